// Unpacking a tarball into a directory (libarchive stays inside archive.cpp).
#pragma once

#include <string>

namespace ezpz::core::yeet {

// Unpacks the tarball `tarball` (plain, gzip, zstd, xz or bzip2 — detected from the content, not the
// name) into the existing directory `into`. Members keep their permission bits and mtimes, not their
// owners; symbolic links and hard links inside the archive are recreated. A member that would land
// outside `into` (an absolute path, a '..' component, a path through a symbolic link) is refused, and
// so is a member at the top named like yeet's record (cache_record.hpp), a device, FIFO or socket, and a
// setuid or setgid file.
// Members unpacked before an error stay in `into`. Does not change the working directory or any other
// process-wide state, so threads may unpack different archives at once.
// Throws UserError "cannot unpack '<shown>': <member>: <reason>" (without the member when the error
// is not about one) for an unreadable, truncated or corrupt archive, a refused member, or a failed write;
// `shown` is the tarball as the user named it (yeet's SRC), `tarball` itself when empty.
void unpack_archive(const std::string& tarball, const std::string& into, const std::string& shown = {});

}  // namespace ezpz::core::yeet
