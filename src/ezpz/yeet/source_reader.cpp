// Reading the source's files into the content stream.
#include "ezpz/yeet/source_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ezpz/util/hash.hpp"

namespace ezpz::core::yeet {

SourceReader::SourceReader(const Manifest& manifest)
    : m_manifest(manifest), m_cursor(manifest), m_hashes(m_cursor.content_files().size(), StreamHash().digest()) {}

SourceReader::~SourceReader() {
  if (m_fd >= 0) ::close(m_fd);
}

std::string SourceReader::path_of(const Entry& entry) const {
  if (m_manifest.kind != SourceKind::directory) return m_manifest.source;
  return m_manifest.source + "/" + entry.path;
}

void SourceReader::fail(const std::string& message) {
  if (m_error.empty()) m_error = message;
}

void SourceReader::read(char* out, std::size_t size) {
  m_cursor.advance(size, [&](const FilePiece& piece) {
    const Entry& entry = m_manifest.entries[m_cursor.content_files()[piece.file]];
    if (piece.first) {
      m_hash.reset();
      // As it was scanned (lstat): a link or a FIFO put there since is not followed, nor waited for.
      m_fd = ::open(path_of(entry).c_str(),
                    O_RDONLY | O_CLOEXEC | O_NONBLOCK | (m_manifest.kind == SourceKind::directory ? O_NOFOLLOW : 0));
      m_file_ok = m_fd >= 0;
      struct stat info {};
      if (!m_file_ok) {
        fail("cannot read '" + path_of(entry) + "': " + std::strerror(errno));
      } else if (::fstat(m_fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        fail("cannot read '" + path_of(entry) + "': it is no longer a regular file");
        m_file_ok = false;
      }
    }
    char* at = out + piece.stream_start;
    std::size_t filled = 0;
    while (m_file_ok && filled < piece.length) {
      ssize_t got = ::pread(m_fd, at + filled, piece.length - filled, static_cast<off_t>(piece.offset + filled));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        fail(got == 0 ? "'" + path_of(entry) + "' became shorter while it was copied"
                      : "cannot read '" + path_of(entry) + "': " + std::strerror(errno));
        m_file_ok = false;
        break;
      }
      filled += static_cast<std::size_t>(got);
    }
    std::memset(at + filled, 0, piece.length - filled);
    m_hash.update(at, filled);
    if (piece.last) {
      // A file that failed gets a hash no node can match: the zeros sent in its place are not its content.
      m_hashes[piece.file] = m_file_ok ? m_hash.digest() : ~m_hash.digest();
      if (m_fd >= 0) ::close(m_fd);
      m_fd = -1;
    }
  });
}

}  // namespace ezpz::core::yeet
