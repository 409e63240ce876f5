// Whole files written so that readers never see them half-written, and directory listings.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ezpz {

// Writes `text` to `path` through a temporary file beside it and a rename, so a failure never leaves
// a half-written file (an earlier file at `path` stays as it was). `executable` makes it mode 0755.
// Throws UserError naming `path` on failure, and when `path` exists but is not a regular file (a
// symlink, a device, a directory …), which it never replaces.
void write_file_atomically(const std::string& path, const std::string& text, bool executable = false);

// The names in directory `path` (without "." and ".."), in the order the file system gives them;
// nullopt when it cannot be opened, with errno saying why.
std::optional<std::vector<std::string>> directory_names(const std::string& path);

}  // namespace ezpz
