// Scanning the source tree and the manifest's wire format.
#include "ezpz/yeet/manifest.hpp"

#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <string_view>
#include <utility>

#include "ezpz/util/error.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/hash.hpp"
#include "ezpz/yeet/cache_record.hpp"
#include "ezpz/yeet/wire.hpp"

namespace ezpz::core::yeet {
namespace {

constexpr std::string_view k_archive_suffixes[] = {".tar", ".tar.gz", ".tgz", ".tar.zst", ".tar.xz", ".tar.bz2"};
constexpr std::uint32_t k_manifest_tag = 0x797a7065;  // "epzy"

std::string errno_text(int error) {
  return std::strerror(error);
}

std::string join(const std::string& parent, const std::string& name) {
  return parent.empty() ? name : parent + "/" + name;
}

// File systems whose sizes are not what their files hold (statfs(2) magic numbers): a /proc file says
// 0 bytes and has content, a /sys file says 4096 and has less. yeet streams as many bytes as the size
// says, so such a file would arrive empty, or fail as "shorter while it was copied".
constexpr std::pair<long, std::string_view> k_pseudo_file_systems[] = {
    {0x9fa0, "proc"},           {0x62656572, "sysfs"}, {0x64626720, "debugfs"}, {0x74726163, "tracefs"},
    {0x73636673, "securityfs"}, {0x27e0eb, "cgroup"},  {0x63677270, "cgroup2"}, {0x62656570, "configfs"}};

struct Scanner {
  std::string root;
  Manifest& manifest;
  std::map<dev_t, std::string_view> file_systems = {};  // the pseudo file system of each device, or ""

  // The name of the pseudo file system `path` (on `device`) is on, or "" (one statfs per device).
  std::string_view pseudo_file_system(dev_t device, const std::string& path) {
    auto [known, added] = file_systems.try_emplace(device);
    struct statfs info {};
    if (added && ::statfs(path.c_str(), &info) == 0) {
      for (const auto& [magic, name] : k_pseudo_file_systems) {
        if (static_cast<long>(info.f_type) == magic) known->second = name;
      }
    }
    return known->second;
  }

  std::string full(const std::string& relative) const { return relative.empty() ? root : root + "/" + relative; }

  Entry entry_for(const std::string& relative, const struct stat& info) {
    Entry entry;
    entry.path = relative;
    entry.mode = info.st_mode & 07777;
    entry.mtime_ns = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
    if (S_ISDIR(info.st_mode)) {
      entry.kind = EntryKind::directory;
    } else if (S_ISREG(info.st_mode)) {
      entry.kind = EntryKind::file;
      entry.size = static_cast<std::uint64_t>(info.st_size);
      if (std::string_view pseudo = pseudo_file_system(info.st_dev, full(relative)); !pseudo.empty()) {
        throw UserError("'" + full(relative) + "' is on " + std::string(pseudo) +
                            ", where a file's size is not what it holds (yeet copies as many bytes as the size says)",
                        "copy it into a regular file first (cp '" + full(relative) + "' FILE) and yeet that");
      }
    } else if (S_ISLNK(info.st_mode)) {
      entry.kind = EntryKind::symlink;
      entry.target = read_link(relative, info);
    } else {
      throw UserError("'" + full(relative) + "' is not a file, directory or symbolic link",
                      "yeet copies only those; move FIFOs, sockets and devices out of the source");
    }
    return entry;
  }

  std::string read_link(const std::string& relative, const struct stat& info) const {
    std::string target(static_cast<std::size_t>(info.st_size) + 1, '\0');
    ssize_t length = ::readlink(full(relative).c_str(), target.data(), target.size());
    if (length < 0) throw UserError("cannot read the link '" + full(relative) + "': " + errno_text(errno));
    target.resize(static_cast<std::size_t>(length));
    return target;
  }

  void add_directory(const std::string& relative) {
    auto names = directory_names(full(relative));
    if (!names) throw UserError("cannot read the directory '" + full(relative) + "': " + errno_text(errno));
    std::sort(names->begin(), names->end());
    for (const auto& name : *names) add(join(relative, name));
  }

  void add(const std::string& relative) {
    // The copy's record is written at the top of DEST: a source entry there would be overwritten, or
    // followed out of DEST if it is a link.
    if (relative == k_record_name) {
      throw UserError("'" + full(relative) + "': the name '" + k_record_name + "' is yeet's own (its record in DEST)");
    }
    struct stat info {};
    if (::lstat(full(relative).c_str(), &info) != 0) {
      throw UserError("cannot read '" + full(relative) + "': " + errno_text(errno));
    }
    manifest.entries.push_back(entry_for(relative, info));
    const Entry& entry = manifest.entries.back();
    manifest.total_bytes += entry.size;
    if (entry.kind == EntryKind::directory) add_directory(relative);
  }
};

Entry synthetic_root() {
  Entry root;
  root.kind = EntryKind::directory;
  root.mode = 0755;
  return root;
}

std::string base_name(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return std::filesystem::path(path).filename().string();
}

}  // namespace

bool is_archive_name(std::string_view name) {
  return std::any_of(std::begin(k_archive_suffixes), std::end(k_archive_suffixes), [&](std::string_view suffix) {
    return name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  });
}

Manifest scan_source(const std::string& src, bool unpack) {
  Manifest manifest;
  manifest.source = src;
  struct stat info {};
  if (::stat(src.c_str(), &info) != 0) throw UserError("cannot read the source '" + src + "': " + errno_text(errno));
  if (unpack && (!S_ISREG(info.st_mode) || !is_archive_name(base_name(src)))) {
    throw UserError("--unpack needs a tarball, and '" + src + "' is not one",
                    "name it .tar, .tar.gz, .tgz, .tar.zst, .tar.xz or .tar.bz2, or drop --unpack");
  }
  if (S_ISDIR(info.st_mode)) {
    // The root is stat()ed, not lstat()ed: SRC may be a symbolic link to the tree to copy.
    std::string root = src;
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    Scanner scanner{root, manifest};
    manifest.kind = SourceKind::directory;
    manifest.entries.push_back(scanner.entry_for("", info));
    scanner.add_directory("");
    return manifest;
  }
  if (!S_ISREG(info.st_mode)) throw UserError("the source '" + src + "' is not a file or a directory");
  manifest.kind = unpack ? SourceKind::archive : SourceKind::file;
  manifest.entries.push_back(synthetic_root());
  Scanner scanner{src, manifest};
  Entry file = scanner.entry_for("", info);
  file.path = unpack ? std::string(k_archive_entry) : base_name(src);
  manifest.entries.push_back(file);
  manifest.total_bytes = file.size;
  return manifest;
}

std::string encode_manifest(const Manifest& manifest) {
  wire::Writer out;
  out.u32(k_manifest_tag);
  out.u8(static_cast<std::uint8_t>(manifest.kind));
  out.str(manifest.source);
  out.u64(manifest.total_bytes);
  out.u64(manifest.entries.size());
  for (const auto& entry : manifest.entries) {
    out.str(entry.path);
    out.u8(static_cast<std::uint8_t>(entry.kind));
    out.u32(entry.mode);
    out.u64(entry.size);
    out.i64(entry.mtime_ns);
    out.str(entry.target);
  }
  return out.take();
}

Manifest decode_manifest(std::string_view bytes) {
  wire::Reader in(bytes);
  if (in.u32() != k_manifest_tag) throw std::runtime_error("yeet: not a manifest");
  Manifest manifest;
  manifest.kind = static_cast<SourceKind>(in.u8());
  manifest.source = in.str();
  manifest.total_bytes = in.u64();
  std::uint64_t count = in.u64();
  for (std::uint64_t i = 0; i < count; ++i) {
    Entry entry;
    entry.path = in.str();
    entry.kind = static_cast<EntryKind>(in.u8());
    entry.mode = in.u32();
    entry.size = in.u64();
    entry.mtime_ns = in.i64();
    entry.target = in.str();
    manifest.entries.push_back(std::move(entry));
  }
  return manifest;
}

std::uint64_t manifest_key(const Manifest& manifest, std::string_view dest, std::uint8_t venv_mode) {
  wire::Writer placement;
  placement.str(dest);
  placement.u8(venv_mode);
  StreamHash hash;
  std::string encoded = encode_manifest(manifest);
  std::string extra = placement.take();
  hash.update(encoded.data(), encoded.size());
  hash.update(extra.data(), extra.size());
  return hash.digest();
}

}  // namespace ezpz::core::yeet
