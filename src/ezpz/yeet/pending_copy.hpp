// A node's side of a copy: a staging directory beside DEST that receives the content stream, is checked
// against the source's hashes and only then renamed to DEST. Nothing half-written ever sits at DEST.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ezpz/util/hash.hpp"
#include "ezpz/yeet/content_stream.hpp"
#include "ezpz/yeet/manifest.hpp"
#include "ezpz/yeet/options.hpp"

namespace ezpz::core::yeet {

class PendingCopy {
 public:
  // Checks that DEST may be replaced (cache_record.hpp), creates DEST's parent directories and the
  // staging directory `.<name>.yeet-<tag>` beside DEST, and in it every directory, symbolic link and
  // empty file of the manifest. Throws UserError naming the path that failed.
  PendingCopy(const Manifest& manifest, std::string dest, const std::string& tag);
  // Removes the staging directory unless commit() succeeded.
  ~PendingCopy();
  PendingCopy(const PendingCopy&) = delete;
  PendingCopy& operator=(const PendingCopy&) = delete;

  // Writes the next `size` bytes of the content stream; blocks of zeros (4 KiB, aligned in the file)
  // become holes, so a sparse source stays sparse. Throws UserError naming the DEST path on I/O errors
  // (the caller keeps receiving and drops the rest).
  void write(const char* data, std::size_t size);

  // Checks every file against `expected` (the source's hashes in content_files() order), unpacks an
  // archive, relocates a virtual environment (VenvMode), restores modes and mtimes, writes the cache
  // record and renames the staging directory to DEST (exchanging it with an older copy, which is then
  // removed). Throws UserError naming the first file that differs or the step that failed.
  void commit(const std::vector<std::uint64_t>& expected, VenvMode venv, std::uint64_t key);

  std::uint64_t bytes_written() const { return m_bytes; }

 private:
  std::string staged(const Entry& entry) const;
  std::string shown(const Entry& entry) const;
  void create_skeleton();
  // Writes `size` bytes of the open file at `offset`, its blocks of zeros as holes.
  void write_data(const Entry& entry, const char* data, std::size_t size, std::uint64_t offset);
  void verify(const std::vector<std::uint64_t>& expected) const;
  void restore_metadata() const;
  void move_into_place();

  const Manifest& m_manifest;
  std::string m_dest;
  std::string m_dir;
  ContentCursor m_cursor;
  std::vector<std::uint64_t> m_hashes;
  StreamHash m_hash;
  int m_fd = -1;
  std::uint64_t m_end = 0;  // the end of the last bytes written to the open file
  std::uint64_t m_bytes = 0;
  bool m_committed = false;
};

// Removes a tree, first making its directories writable (copies keep the source's modes, and a
// read-only directory would otherwise stop an unprivileged user from removing what is in it).
void remove_tree(const std::string& path);

}  // namespace ezpz::core::yeet
