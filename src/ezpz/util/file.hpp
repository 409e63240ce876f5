// Writing a whole file so that readers never see it half-written.
#pragma once

#include <string>

namespace ezpz {

// Writes `text` to `path` through a temporary file beside it and a rename, so a failure never leaves
// a half-written file (an earlier file at `path` stays as it was). `executable` makes it mode 0755.
// Throws UserError naming `path` on failure.
void write_file_atomically(const std::string& path, const std::string& text, bool executable = false);

}  // namespace ezpz
