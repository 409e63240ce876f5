// The record yeet leaves in every DEST it fills (DEST/.ezpz-yeet): what was copied, so a re-run can
// keep a copy that is already there, and so yeet never replaces a directory it did not make.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ezpz/util/trust.hpp"
#include "ezpz/yeet/manifest.hpp"

namespace ezpz::core::yeet {

inline constexpr const char* k_record_name = ".ezpz-yeet";

struct CacheRecord {
  std::uint64_t key = 0;      // manifest_key of the copy
  std::uint64_t content = 0;  // hash of the per-file content hashes
  std::string source;
};

// The record in `dest`, if `dest` is a directory holding a readable one: a regular file (a link or a
// FIFO there is none, and is not waited for).
std::optional<CacheRecord> read_cache_record(const std::string& dest);

// Writes the record into `directory` (the staging directory, before it is renamed to DEST).
// Throws UserError on I/O errors.
void write_cache_record(const std::string& directory, const CacheRecord& record);

// True when `dest` holds a record with `key` and every entry of `manifest` is still there, with the
// same kind, and regular files with the same size (for directory sources; files changed by venv
// relocation are only checked for existence). An unpacked archive is trusted by its record alone.
// Never true for a DEST that dest_distrust() refuses, or one with anything in it the caller does not own
// (another user could have changed it: then `distrusted`, when given, says what, and a copy is made anew).
bool holds_copy(const std::string& dest, const Manifest& manifest, std::uint64_t key, bool relocated,
                std::string* distrusted = nullptr);

// Why yeet must not keep or replace `dest`: a directory above it that the caller may not trust
// (util/trust.hpp: owned by another user than the caller or root, or writable by others without the
// sticky bit, so DEST could be renamed away), or `dest` itself is another user's. nullopt when neither.
std::optional<Distrust> dest_distrust(const std::string& dest);

// What yeet may replace: a missing path, an empty directory, or a directory with a record, that
// dest_distrust() does not refuse. Throws UserError otherwise (a file, a directory yeet did not make, so
// that a mistyped DEST such as /tmp is never swapped away, or what another user made or can change).
void check_replaceable(const std::string& dest);

}  // namespace ezpz::core::yeet
