// Rank 0's side of the content stream: reads the source's files in manifest order, hashing each.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ezpz/util/hash.hpp"
#include "ezpz/yeet/content_stream.hpp"
#include "ezpz/yeet/manifest.hpp"

namespace ezpz::core::yeet {

class SourceReader {
 public:
  explicit SourceReader(const Manifest& manifest);
  ~SourceReader();
  SourceReader(const SourceReader&) = delete;
  SourceReader& operator=(const SourceReader&) = delete;

  // Fills `out` with the next `size` bytes of the stream. A file that cannot be read, or that is
  // shorter than when it was scanned, does not stop the stream: its missing bytes are sent as zeros
  // (every node then fails that file's checksum) and error() says what happened. The stream length
  // stays fixed, so every rank's broadcasts keep matching.
  void read(char* out, std::size_t size);

  // Per-file content hashes in content_files() order; complete once the whole stream was read.
  const std::vector<std::uint64_t>& file_hashes() const { return m_hashes; }
  // The first read problem ("cannot read '/src/a': Input/output error"), or "".
  const std::string& error() const { return m_error; }

 private:
  std::string path_of(const Entry& entry) const;
  void fail(const std::string& message);

  const Manifest& m_manifest;
  ContentCursor m_cursor;
  std::vector<std::uint64_t> m_hashes;
  std::string m_error;
  StreamHash m_hash;       // of the file being read
  bool m_file_ok = false;  // the file being read has given every byte so far
  int m_fd = -1;
};

}  // namespace ezpz::core::yeet
