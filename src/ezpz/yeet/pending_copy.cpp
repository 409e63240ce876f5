// Receiving a copy into a staging directory and moving it into place.
#include "ezpz/yeet/pending_copy.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "ezpz/util/error.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/hash.hpp"
#include "ezpz/yeet/archive.hpp"
#include "ezpz/yeet/cache_record.hpp"
#include "ezpz/yeet/venv.hpp"

namespace ezpz::core::yeet {
namespace {

constexpr std::size_t k_write_bytes = 1u << 20;
// The unit of holes: the page size, and the block size of the usual file systems.
constexpr std::size_t k_hole_block = 4096;

std::string errno_text() {
  return std::strerror(errno);
}

std::string parent_of(const std::string& path) {
  return std::filesystem::path(path).parent_path().string();
}

// mkdir -p; throws naming the first directory that cannot be made.
void make_directories(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) return;
    throw UserError("cannot create '" + path + "': it exists and is not a directory");
  }
  if (path != "/") make_directories(parent_of(path));
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    throw UserError("cannot create '" + path + "': " + errno_text());
  }
}

timespec to_timespec(std::int64_t ns) {
  return timespec{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
}

std::string random_suffix() {
  std::random_device device;
  return hash_hex((static_cast<std::uint64_t>(device()) << 32) ^ device()).substr(0, 8);
}

}  // namespace

void remove_tree(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return;
  if (S_ISDIR(info.st_mode)) {
    ::chmod(path.c_str(), (info.st_mode & 07777) | S_IRWXU);
    if (auto names = directory_names(path)) {
      for (const auto& name : *names) remove_tree(path + "/" + name);
    }
    ::rmdir(path.c_str());
    return;
  }
  ::unlink(path.c_str());
}

PendingCopy::PendingCopy(const Manifest& manifest, std::string dest, const std::string& tag)
    : m_manifest(manifest),
      m_dest(std::move(dest)),
      m_cursor(manifest),
      m_hashes(m_cursor.content_files().size(), StreamHash().digest()) {
  check_replaceable(m_dest);
  make_directories(parent_of(m_dest));
  check_replaceable(m_dest);  // again: another user may have made a missing parent first
  m_dir = parent_of(m_dest) + "/." + std::filesystem::path(m_dest).filename().string() + ".yeet-" + tag + "-" +
          random_suffix();
  if (::mkdir(m_dir.c_str(), 0700) != 0) {
    throw UserError("cannot create a staging directory beside '" + m_dest + "': " + errno_text());
  }
  create_skeleton();
}

PendingCopy::~PendingCopy() {
  if (m_fd >= 0) ::close(m_fd);
  if (!m_committed) remove_tree(m_dir);
}

std::string PendingCopy::staged(const Entry& entry) const {
  return entry.path.empty() ? m_dir : m_dir + "/" + entry.path;
}

std::string PendingCopy::shown(const Entry& entry) const {
  return entry.path.empty() ? m_dest : m_dest + "/" + entry.path;
}

void PendingCopy::create_skeleton() {
  for (const auto& entry : m_manifest.entries) {
    if (entry.path.empty()) continue;
    int status = 0;
    switch (entry.kind) {
      case EntryKind::directory:
        status = ::mkdir(staged(entry).c_str(), 0700);
        break;
      case EntryKind::symlink:
        status = ::symlink(entry.target.c_str(), staged(entry).c_str());
        break;
      case EntryKind::file:
        if (entry.size == 0) {
          int fd = ::open(staged(entry).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
          status = fd < 0 ? -1 : ::close(fd);
        }
        break;
    }
    if (status != 0) throw UserError("cannot create '" + shown(entry) + "': " + errno_text());
  }
}

void PendingCopy::write(const char* data, std::size_t size) {
  m_cursor.advance(size, [&](const FilePiece& piece) {
    const Entry& entry = m_manifest.entries[m_cursor.content_files()[piece.file]];
    if (piece.first) {
      m_hash.reset();
      m_fd = ::open(staged(entry).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (m_fd < 0) throw UserError("cannot create '" + shown(entry) + "': " + errno_text());
    }
    const char* at = data + piece.stream_start;
    // Hash and write at most k_write_bytes at a time: the bytes are still in the CPU cache when they
    // are written, and one huge write() is much slower on ext4 after a cache drop (bench/README.md, yeet).
    for (std::size_t done = 0; done < piece.length;) {
      std::size_t part = std::min(k_write_bytes, piece.length - done);
      m_hash.update(at + done, part);
      write_data(entry, at + done, part, piece.offset + done);
      done += part;
    }
    m_bytes += piece.length;
    if (piece.last) {
      m_hashes[piece.file] = m_hash.digest();
      // A hole at the end is no write: the size is set here.
      int status = m_end < entry.size ? ::ftruncate(m_fd, static_cast<off_t>(entry.size)) : 0;
      if (::close(m_fd) != 0) status = -1;
      m_fd = -1;
      m_end = 0;
      if (status != 0) throw UserError("cannot write '" + shown(entry) + "': " + errno_text());
    }
  });
}

void PendingCopy::write_data(const Entry& entry, const char* data, std::size_t size, std::uint64_t offset) {
  auto write_run = [&](std::size_t start, std::size_t end) {
    for (std::size_t done = start; done < end;) {
      ssize_t wrote = ::pwrite(m_fd, data + done, end - done, static_cast<off_t>(offset + done));
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0) throw UserError("cannot write '" + shown(entry) + "': " + errno_text());
      done += static_cast<std::size_t>(wrote);
    }
    if (end > start) m_end = offset + end;
  };
  // Blocks of zeros (aligned in the file) are left unwritten, as holes: a sparse file (a disk image, a
  // preallocated checkpoint) stays sparse on the node. The bytes between are written in one call.
  std::size_t run = 0;
  for (std::size_t block = 0; block < size;) {
    std::size_t end = std::min(size, block + k_hole_block - (offset + block) % k_hole_block);
    if (data[block] == 0 && std::memcmp(data + block, data + block + 1, end - block - 1) == 0) {
      write_run(run, block);
      run = end;
    }
    block = end;
  }
  write_run(run, size);
}

void PendingCopy::verify(const std::vector<std::uint64_t>& expected) const {
  const auto& files = m_cursor.content_files();
  if (expected.size() != files.size()) throw UserError("the source's checksums do not fit the file list");
  std::size_t differing = 0;
  std::string first;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (m_hashes[i] == expected[i]) continue;
    if (differing++ == 0) first = shown(m_manifest.entries[files[i]]);
  }
  if (differing == 0) return;
  throw UserError("checksum mismatch: '" + first + "' differs from the source" +
                  (differing > 1 ? " (and " + std::to_string(differing - 1) + " more files)" : std::string()));
}

void PendingCopy::restore_metadata() const {
  // Files first, then directories deepest first: a read-only directory must not stop what is inside.
  for (const auto& entry : m_manifest.entries) {
    if (entry.kind == EntryKind::file && ::chmod(staged(entry).c_str(), entry.mode) != 0) {
      throw UserError("cannot set the mode of '" + shown(entry) + "': " + errno_text());
    }
  }
  for (auto entry = m_manifest.entries.rbegin(); entry != m_manifest.entries.rend(); ++entry) {
    timespec times[2] = {to_timespec(entry->mtime_ns), to_timespec(entry->mtime_ns)};
    if (entry->kind == EntryKind::directory && ::chmod(staged(*entry).c_str(), entry->mode) != 0) {
      throw UserError("cannot set the mode of '" + shown(*entry) + "': " + errno_text());
    }
    // mtimes are best effort (as cp -a on file systems that refuse them).
    ::utimensat(AT_FDCWD, staged(*entry).c_str(), times, AT_SYMLINK_NOFOLLOW);
  }
}

void PendingCopy::move_into_place() {
  check_replaceable(m_dest);
  if (::rename(m_dir.c_str(), m_dest.c_str()) == 0) return;
  if (errno != EEXIST && errno != ENOTEMPTY)
    throw UserError("cannot rename the copy to '" + m_dest + "': " + errno_text());
  // An older copy is there: swap it out in one step where the file system can, else in two.
  if (::renameat2(AT_FDCWD, m_dir.c_str(), AT_FDCWD, m_dest.c_str(), RENAME_EXCHANGE) != 0) {
    std::string old = m_dir + ".old";
    if (::rename(m_dest.c_str(), old.c_str()) != 0 || ::rename(m_dir.c_str(), m_dest.c_str()) != 0) {
      throw UserError("cannot replace '" + m_dest + "': " + errno_text());
    }
    m_committed = true;
    remove_tree(old);
    return;
  }
  m_committed = true;
  remove_tree(m_dir);  // now the older copy
}

void PendingCopy::commit(const std::vector<std::uint64_t>& expected, VenvMode venv, std::uint64_t key) {
  verify(expected);
  if (m_manifest.kind == SourceKind::archive) {
    std::string archive = m_dir + "/" + std::string(k_archive_entry);
    unpack_archive(archive, m_dir, m_manifest.source);
    ::unlink(archive.c_str());
  }
  bool relocate = venv == VenvMode::on || (venv == VenvMode::detect && is_venv(m_dir));
  if (relocate) {
    if (!is_venv(m_dir)) {
      throw UserError("--venv: '" + m_manifest.source + "' is not a Python virtual environment (no pyvenv.cfg)");
    }
    relocate_venv(m_dir, m_dest);
  }
  StreamHash content;
  content.update(expected.data(), expected.size() * sizeof(std::uint64_t));
  write_cache_record(m_dir, CacheRecord{key, content.digest(), m_manifest.source});
  if (m_manifest.kind == SourceKind::archive) {
    ::chmod(m_dir.c_str(), 0755);  // the unpacked members brought their own modes
  } else {
    restore_metadata();
  }
  move_into_place();
  m_committed = true;
}

}  // namespace ezpz::core::yeet
