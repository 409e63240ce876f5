// Atomic whole-file writes and directory listings.
#include "ezpz/util/file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "ezpz/util/error.hpp"

namespace ezpz::core {
namespace {

std::string file_kind(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text, bool executable) {
  // rename() would replace whatever is there: a symlink (not its target), or, for root, /dev/full.
  struct stat existing {};
  if (::lstat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    throw UserError(
        "'" + path + "' exists and is not a regular file (" + file_kind(existing.st_mode) + "); not replacing it",
        "write to a new path or to a regular file");
  }
  std::string temporary = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      throw UserError("cannot write '" + path + "'", "check that the directory exists and is writable");
    }
  }
  if (executable) ::chmod(temporary.c_str(), 0755);
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw UserError("cannot write '" + path + "'", "check that the directory exists and is writable");
  }
}

std::string read_regular_file(const std::string& path, const std::string& what, std::size_t max_bytes,
                              const std::string& hint) {
  // O_NONBLOCK: opening a FIFO would wait for a writer; the kind is checked on the open descriptor.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw UserError("cannot read " + what + ": " + std::strerror(errno), hint);
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw UserError("cannot read " + what + ": it is " + file_kind(info.st_mode), "give the path of a regular file");
  }
  if (static_cast<std::size_t>(info.st_size) > max_bytes) {
    ::close(fd);
    throw UserError("cannot read " + what + ": " + std::to_string(info.st_size) + " bytes, more than the " +
                    std::to_string(max_bytes) + " ezpz reads (docs/limits.md)");
  }
  std::string text(static_cast<std::size_t>(info.st_size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t got = ::read(fd, text.data() + done, text.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // the file shrank while read: what is there
    done += static_cast<std::size_t>(got);
  }
  ::close(fd);
  text.resize(done);
  return text;
}

std::optional<std::vector<std::string>> directory_names(const std::string& path) {
  DIR* directory = ::opendir(path.c_str());
  if (directory == nullptr) return std::nullopt;
  std::vector<std::string> names;
  while (const dirent* item = ::readdir(directory)) {
    std::string name = item->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(directory);
  return names;
}

}  // namespace ezpz::core
