// Files read, appended to and written whole without following what another user can plant (links,
// FIFOs, devices), directory listings and paths.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ezpz::core {

// An open file descriptor, closed when it goes.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : m_fd(fd) {}
  ~FileDescriptor();
  FileDescriptor(FileDescriptor&& other) noexcept : m_fd(other.release()) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return m_fd; }
  explicit operator bool() const { return m_fd >= 0; }
  // Gives up ownership: the caller closes it.
  int release();

 private:
  int m_fd = -1;
};

// Whether a symbolic link in place of the file is followed. Paths the user names (a spec, a script, a
// host file, a job's output file) are; files ezpz keeps for itself (a job's record) and files it
// appends to are not.
enum class Links { follow, refuse };

// Opens the regular file `path` for reading. Nothing that is not a regular file is opened for longer
// than it takes to see what it is, and nothing waits: a FIFO would block open() for a writer, a device
// could never end. Returns an empty descriptor when nothing is at `path`. Throws UserError
// "cannot read WHAT: it is a FIFO, not a regular file" (a directory, a device, a socket; with
// Links::refuse a symbolic link too), or with the system's reason when it cannot be opened, and `hint`.
FileDescriptor open_regular_file(const std::string& path, const std::string& what, Links links = Links::follow,
                                 const std::string& hint = {});

// Opens the regular file `path` to append to it, creating it (mode 0666 less the umask) when missing.
// Never through a symbolic link at `path` and never anything but a regular file: a link sent the
// writes into its target, a FIFO blocked open() (deaf to SIGTERM). Throws UserError "cannot open WHAT:
// it is a symbolic link, not a regular file", or with the system's reason and `hint`.
FileDescriptor open_for_append(const std::string& path, const std::string& what, const std::string& hint = {});

// What `file` (opened by open_regular_file) holds from its start, at most `max_bytes`; throws
// UserError naming `what` when it holds more or cannot be read.
std::string read_open_file(const FileDescriptor& file, const std::string& what, std::size_t max_bytes);

// The whole of the regular file `path`, at most `max_bytes` of it (open_regular_file, then
// read_open_file). Throws UserError naming `what` (e.g. "job spec 'job.yaml'") when it is missing
// (with `hint`), cannot be opened, is not a regular file or is larger than `max_bytes`.
std::string read_regular_file(const std::string& path, const std::string& what, std::size_t max_bytes,
                              const std::string& hint = {}, Links links = Links::follow);

// Writes `text` to `path` through a new temporary file beside it and a rename, so a failure never
// leaves a half-written file (an earlier file at `path` stays as it was). The temporary has a name no
// one can guess, is created with O_EXCL (never through a link someone planted there) and with mode
// 0666, or 0777 when `executable`, less the umask: a script's env: often holds tokens. Throws
// UserError naming `path` on failure, and when `path` exists but is not a regular file (a symlink, a
// device, a directory …), which it never replaces.
void write_file_atomically(const std::string& path, const std::string& text, bool executable = false);

// The names in directory `path` (without "." and ".."), in the order the file system gives them;
// nullopt when it cannot be opened, with errno saying why.
std::optional<std::vector<std::string>> directory_names(const std::string& path);

// Whether `path` is `dir` or inside it, by whole components ("/a/bc" is not under "/a/b" or "/a/b/").
inline bool path_is_under(std::string_view path, std::string_view dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
  if (dir.empty() || path.substr(0, dir.size()) != dir) return false;
  return path.size() == dir.size() || dir.back() == '/' || path[dir.size()] == '/';
}

}  // namespace ezpz::core
