// DEST/.ezpz-yeet: reading, writing and checking it.
#include "ezpz/yeet/cache_record.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ezpz/util/error.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/hash.hpp"
#include "ezpz/util/limits.hpp"

namespace ezpz::core::yeet {
namespace {

constexpr const char* k_record_header = "ezpz-yeet 1";

bool entry_matches(const std::string& dest, const Entry& entry, bool relocated) {
  struct stat info {};
  std::string path = entry.path.empty() ? dest : dest + "/" + entry.path;
  if (::lstat(path.c_str(), &info) != 0) return false;
  switch (entry.kind) {
    case EntryKind::directory:
      return S_ISDIR(info.st_mode);
    case EntryKind::symlink:
      return S_ISLNK(info.st_mode);
    case EntryKind::file:
      return S_ISREG(info.st_mode) && (relocated || static_cast<std::uint64_t>(info.st_size) == entry.size);
  }
  return false;
}

}  // namespace

std::optional<CacheRecord> read_cache_record(const std::string& dest) {
  std::istringstream in;
  try {
    // Never through a link, never a FIFO (it hung yeet): neither is a record yeet wrote.
    in.str(read_regular_file(dest + "/" + k_record_name, "the record", k_max_record_bytes, {}, Links::refuse));
  } catch (const UserError&) {
    return std::nullopt;
  }
  std::string header, key_word, content_word, source_word;
  CacheRecord record;
  std::string key_hex, content_hex;
  if (!std::getline(in, header) || header != k_record_header) return std::nullopt;
  if (!(in >> key_word >> key_hex >> content_word >> content_hex >> source_word) || key_word != "key" ||
      content_word != "content" || source_word != "source") {
    return std::nullopt;
  }
  std::getline(in >> std::ws, record.source);
  try {
    record.key = std::stoull(key_hex, nullptr, 16);
    record.content = std::stoull(content_hex, nullptr, 16);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return record;
}

void write_cache_record(const std::string& directory, const CacheRecord& record) {
  std::string path = directory + "/" + k_record_name;
  std::string text = std::string(k_record_header) + "\nkey " + hash_hex(record.key) + "\ncontent " +
                     hash_hex(record.content) + "\nsource " + record.source + "\n";
  // O_EXCL: the record is always new in the staging directory, and a link already there (from the
  // source) must never be followed out of it.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  bool written = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  int error = errno;
  if (fd >= 0 && ::close(fd) != 0 && written) {
    written = false;
    error = errno;
  }
  if (!written) throw UserError("cannot write '" + path + "': " + std::strerror(error));
}

bool holds_copy(const std::string& dest, const Manifest& manifest, std::uint64_t key, bool relocated,
                std::string* distrusted) {
  if (dest_distrust(dest)) return false;  // check_replaceable then says why
  auto record = read_cache_record(dest);
  if (!record || record->key != key) return false;
  if (manifest.kind != SourceKind::archive) {
    for (const auto& entry : manifest.entries) {
      if (!entry_matches(dest, entry, relocated)) return false;
    }
  }
  // Sizes and mtimes cannot tell a file another user swapped in (with the same size and mtime) through
  // a directory the source made writable for all; its owner can.
  if (auto foreign = foreign_entry(dest, ::geteuid())) {
    if (distrusted != nullptr) *distrusted = foreign->message();
    return false;
  }
  return true;
}

std::optional<Distrust> dest_distrust(const std::string& dest) {
  std::string parent = std::filesystem::path(dest).parent_path().string();
  if (auto why = why_untrusted(parent.empty() ? "/" : parent, TrustedUsers::caller_and_root(), PathRole::above_entry))
    return why;
  return foreign_owner(dest, ::geteuid());
}

void check_replaceable(const std::string& dest) {
  if (auto why = dest_distrust(dest)) {
    throw UserError("DEST '" + dest + "' is not safe to use: " + why->message(),
                    "yeet keeps and replaces only your own copies, in directories that only you or root can "
                    "change: choose a DEST there (docs/security.md)");
  }
  struct stat info {};
  if (::lstat(dest.c_str(), &info) != 0) return;
  if (S_ISDIR(info.st_mode)) {
    if (read_cache_record(dest)) return;
    if (auto names = directory_names(dest); names && names->empty()) return;
  }
  throw UserError("DEST '" + dest + "' exists and was not made by ezpz yeet; not replacing it",
                  "choose a new directory (yeet creates it), or remove this one first");
}

}  // namespace ezpz::core::yeet
