// Whole files written so that readers never see them half-written, directory listings and paths.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ezpz::core {

// Writes `text` to `path` through a temporary file beside it and a rename, so a failure never leaves
// a half-written file (an earlier file at `path` stays as it was). `executable` makes it mode 0755.
// Throws UserError naming `path` on failure, and when `path` exists but is not a regular file (a
// symlink, a device, a directory …), which it never replaces.
void write_file_atomically(const std::string& path, const std::string& text, bool executable = false);

// The whole of the regular file `path`, at most `max_bytes` of it. Throws UserError naming `what`
// (e.g. "job spec 'job.yaml'") when it cannot be opened, is not a regular file (a directory, a FIFO
// that would block, /dev/zero that never ends) or is larger than `max_bytes`; `hint` goes with the
// error when it cannot be opened.
std::string read_regular_file(const std::string& path, const std::string& what, std::size_t max_bytes,
                              const std::string& hint = {});

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
