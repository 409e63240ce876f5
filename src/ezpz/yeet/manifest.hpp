// What yeet copies: the list of directories, files and symbolic links under the source, in the order
// their bytes are streamed, with the metadata every node recreates. Rank 0 scans the source once and
// broadcasts this list; file contents follow as one stream of concatenated bytes in list order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ezpz::core::yeet {

enum class EntryKind : std::uint8_t { directory, file, symlink };

struct Entry {
  std::string path;  // relative to the tree root, '/'-separated; "" is the root directory
  EntryKind kind = EntryKind::file;
  std::uint32_t mode = 0;  // permission bits (07777)
  std::uint64_t size = 0;  // bytes, files only
  std::int64_t mtime_ns = 0;
  std::string target;  // symlinks only, as stored (relative or absolute)
};

// directory: SRC is a directory and DEST becomes a copy of it. file: DEST is a directory holding
// the file under its own name. archive: the tarball is copied, checked, and unpacked into DEST.
enum class SourceKind : std::uint8_t { directory, file, archive };

struct Manifest {
  SourceKind kind = SourceKind::directory;
  std::string source;             // SRC as given, for messages and the cache record; part of manifest_key
  std::vector<Entry> entries;     // parents before children; entries[0] is the root directory
  std::uint64_t total_bytes = 0;  // sum of file sizes: the length of the content stream
};

// The name a tarball is received under inside the staging directory before it is unpacked.
inline constexpr std::string_view k_archive_entry = ".ezpz-yeet-archive";

// True for names yeet can unpack: .tar, .tar.gz, .tgz, .tar.zst, .tar.xz, .tar.bz2.
bool is_archive_name(std::string_view name);

// Walks SRC (lstat, children sorted by name). With `unpack`, SRC must be a tarball by name.
// Throws UserError for a missing or unreadable source, a special file (FIFO, socket, device) or
// `unpack` on something that is not a tarball.
Manifest scan_source(const std::string& src, bool unpack);

std::string encode_manifest(const Manifest& manifest);
Manifest decode_manifest(std::string_view bytes);

// Identifies what a node's copy must be: the whole manifest as encode_manifest writes it (the source
// kind, so whether it is unpacked; SRC as given; every entry's path, kind, mode, size, mtime and target)
// and how it is placed (`dest`, `venv_mode`). Equal keys mean a node's earlier copy can be kept, the
// way rsync's quick check trusts size and mtime.
std::uint64_t manifest_key(const Manifest& manifest, std::string_view dest, std::uint8_t venv_mode);

}  // namespace ezpz::core::yeet
