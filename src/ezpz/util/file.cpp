// Regular files only: opened without waiting and without following links where that matters, written
// whole through a temporary no one can guess; directory listings.
#include "ezpz/util/file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <system_error>

#include "ezpz/util/error.hpp"

namespace ezpz::core {
namespace {

// strerror is not thread-safe, and yeet reads and writes on several threads.
std::string reason(int error) {
  return std::generic_category().message(error);
}

std::string file_kind(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// "it is a FIFO, not a regular file"; `mode` 0 when fstat failed.
std::string not_regular(mode_t mode) {
  std::string kind = file_kind(mode);
  return kind == "not a regular file" ? "it is not a regular file" : "it is " + kind + ", not a regular file";
}

// What is at `path` when it is not a regular file (looked at without opening it, so that a device is
// never opened and a FIFO never waited for); nullopt for a regular file or nothing.
std::optional<mode_t> non_regular_at(const std::string& path, Links links) {
  struct stat info {};
  int looked = links == Links::follow ? ::stat(path.c_str(), &info) : ::lstat(path.c_str(), &info);
  if (looked != 0 || S_ISREG(info.st_mode)) return std::nullopt;
  return info.st_mode;
}

// Why open() failed: what is there when it is no regular file (O_NOFOLLOW on a link gives ELOOP, a FIFO
// without a reader ENXIO, a directory EISDIR), else the system's reason.
std::string open_failure(const std::string& path, Links links, int error) {
  if (auto mode = non_regular_at(path, links)) return not_regular(*mode);
  return reason(error);
}

// Checks the kind on the open descriptor (the path may have changed since it was looked at), and
// clears the O_NONBLOCK that only kept open() from waiting.
bool regular_and_blocking(int fd, mode_t& mode) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) return false;
  mode = info.st_mode;
  if (!S_ISREG(mode)) return false;
  int flags = ::fcntl(fd, F_GETFL);
  return flags >= 0 && ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0;
}

// Twelve random letters and digits: a temporary's name that another user cannot plant a link at.
std::string random_name() {
  static constexpr char k_letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device device;
  std::string name;
  for (int i = 0; i < 12; ++i) name += k_letters[device() % (sizeof k_letters - 1)];
  return name;
}

bool write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    done += static_cast<std::size_t>(wrote);
  }
  return true;
}

}  // namespace

FileDescriptor::~FileDescriptor() {
  if (m_fd >= 0) ::close(m_fd);
}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = other.release();
  }
  return *this;
}

int FileDescriptor::release() {
  int fd = m_fd;
  m_fd = -1;
  return fd;
}

FileDescriptor open_regular_file(const std::string& path, const std::string& what, Links links,
                                 const std::string& hint) {
  if (auto mode = non_regular_at(path, links)) throw UserError("cannot read " + what + ": " + not_regular(*mode));
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (links == Links::refuse ? O_NOFOLLOW : 0);
  FileDescriptor file(::open(path.c_str(), flags));
  if (!file) {
    int error = errno;
    if (error == ENOENT) return {};
    throw UserError("cannot read " + what + ": " + open_failure(path, links, error), hint);
  }
  mode_t mode = 0;
  if (!regular_and_blocking(file.get(), mode)) throw UserError("cannot read " + what + ": " + not_regular(mode));
  return file;
}

FileDescriptor open_for_append(const std::string& path, const std::string& what, const std::string& hint) {
  if (auto mode = non_regular_at(path, Links::refuse))
    throw UserError("cannot open " + what + ": " + not_regular(*mode));
  FileDescriptor file(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666));
  if (!file) throw UserError("cannot open " + what + ": " + open_failure(path, Links::refuse, errno), hint);
  mode_t mode = 0;
  if (!regular_and_blocking(file.get(), mode)) throw UserError("cannot open " + what + ": " + not_regular(mode));
  return file;
}

std::string read_open_file(const FileDescriptor& file, const std::string& what, std::size_t max_bytes) {
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) throw UserError("cannot read " + what + ": " + reason(errno));
  if (static_cast<std::size_t>(info.st_size) > max_bytes) {
    throw UserError("cannot read " + what + ": " + std::to_string(info.st_size) + " bytes, more than the " +
                    std::to_string(max_bytes) + " ezpz reads (docs/limits.md)");
  }
  std::string text(static_cast<std::size_t>(info.st_size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t got = ::pread(file.get(), text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw UserError("cannot read " + what + ": " + reason(errno));
    if (got == 0) break;  // the file shrank while it was read: what is there
    done += static_cast<std::size_t>(got);
  }
  text.resize(done);
  return text;
}

std::string read_regular_file(const std::string& path, const std::string& what, std::size_t max_bytes,
                              const std::string& hint, Links links) {
  FileDescriptor file = open_regular_file(path, what, links, hint);
  if (!file) throw UserError("cannot read " + what + ": " + reason(ENOENT), hint);
  return read_open_file(file, what, max_bytes);
}

void write_file_atomically(const std::string& path, const std::string& text, bool executable) {
  // rename() would replace whatever is there: a symlink (not its target), or, for root, /dev/full.
  if (auto mode = non_regular_at(path, Links::refuse)) {
    throw UserError("'" + path + "' exists and is not a regular file (" + file_kind(*mode) + "); not replacing it",
                    "write to a new path or to a regular file");
  }
  auto failed = [&](int error) {
    return UserError("cannot write '" + path + "': " + reason(error),
                     "check that the directory exists and is writable");
  };
  // O_EXCL creates a new file or fails, and never follows a link that is there; the mode given here is
  // reduced by the umask (and a default ACL) as any new file's is.
  std::string temporary;
  FileDescriptor file;
  for (int attempt = 0; attempt < 100 && !file; ++attempt) {
    temporary = path + ".tmp-" + random_name();
    file = FileDescriptor(
        ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, executable ? 0777 : 0666));
    if (!file && errno != EEXIST) throw failed(errno);
  }
  if (!file) throw failed(EEXIST);
  int error = write_all(file.get(), text) ? 0 : errno;
  if (::close(file.release()) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temporary.c_str());
    throw failed(error);
  }
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
