// The content stream: the bytes of every file of a manifest, concatenated in manifest order. Rank 0
// reads it and every node writes it in pieces; this cursor maps a run of stream bytes to the files
// it belongs to, the same way on both sides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ezpz/yeet/manifest.hpp"

namespace ezpz::core::yeet {

// Part of one file within a run of stream bytes.
struct FilePiece {
  std::size_t file = 0;          // index into content_files()
  std::uint64_t offset = 0;      // where the piece starts within the file
  std::size_t stream_start = 0;  // where it starts within the run passed to advance()
  std::size_t length = 0;
  bool first = false;  // the file's first byte is in this piece
  bool last = false;   // the file's last byte is in this piece
};

class ContentCursor {
 public:
  explicit ContentCursor(const Manifest& manifest);

  // Indices into manifest.entries of every regular file, in stream order (empty files included).
  const std::vector<std::size_t>& content_files() const { return m_files; }

  // Splits the next `size` bytes of the stream into pieces and calls visit(piece) for each, in order.
  // Empty files never produce a piece. Reading past the end of the stream is a bug (assert).
  template <class Visit>
  void advance(std::size_t size, Visit&& visit) {
    std::size_t done = 0;
    while (done < size) {
      skip_empty_files();
      std::uint64_t file_size = m_sizes[m_file];
      std::size_t length = static_cast<std::size_t>(std::min<std::uint64_t>(file_size - m_offset, size - done));
      FilePiece piece{m_file, m_offset, done, length, m_offset == 0, m_offset + length == file_size};
      visit(piece);
      done += length;
      m_offset += length;
      if (m_offset == file_size) {
        ++m_file;
        m_offset = 0;
      }
    }
  }

 private:
  void skip_empty_files();

  std::vector<std::size_t> m_files;
  std::vector<std::uint64_t> m_sizes;
  std::size_t m_file = 0;
  std::uint64_t m_offset = 0;
};

}  // namespace ezpz::core::yeet
