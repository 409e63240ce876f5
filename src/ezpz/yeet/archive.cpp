// Unpacking tarballs with libarchive: read any compression of tar, write to disk under one directory.
#include "ezpz/yeet/archive.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <system_error>

#include "ezpz/util/error.hpp"
#include "ezpz/yeet/cache_record.hpp"

namespace ezpz::core::yeet {
namespace {

// No ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS: every path handed to libarchive starts with the absolute
// `into`, so that flag would refuse them all; absolute members are refused by name instead.
// ARCHIVE_EXTRACT_SPARSE: blocks of zeros become holes, as in a copied file (pending_copy.hpp).
constexpr int k_extract_flags = ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SPARSE;
constexpr size_t k_block_size = 1 << 16;
constexpr la_int64_t k_tar_block = 512;

using ArchivePtr = std::unique_ptr<archive, int (*)(archive*)>;

class Unpacker {
 public:
  Unpacker(const std::string& tarball, std::string root, std::string shown)
      : m_tarball(tarball),
        m_shown(std::move(shown)),
        m_root(std::move(root)),
        m_reader(archive_read_new(), archive_read_free),
        m_writer(archive_write_disk_new(), archive_write_free) {
    if (!m_reader || !m_writer) fail("out of memory");
    archive_read_support_filter_all(m_reader.get());
    archive_read_support_format_tar(m_reader.get());  // ustar, GNU tar and pax
    archive_write_disk_set_options(m_writer.get(), k_extract_flags);
  }

  void run() {
    archive* reader = m_reader.get();
    check(archive_read_open_filename(reader, m_tarball.c_str(), k_block_size), reader);
    for (;;) {
      m_member.clear();
      la_int64_t start = archive_filter_bytes(reader, 0);
      archive_entry* entry = nullptr;
      int status = archive_read_next_header(reader, &entry);
      if (status == ARCHIVE_EOF) {
        // libarchive also ends quietly where a member ends without the zero blocks every tar writer
        // appends: an archive cut there would pass for a complete one.
        if (archive_filter_bytes(reader, 0) - start < k_tar_block)
          fail("truncated tar archive (no end-of-archive marker)");
        break;
      }
      check(status, reader);  // a warning (a pax name not in this locale's charset) keeps the raw bytes
      unpack(entry);
    }
    check(archive_read_close(reader), reader);
    check(archive_write_close(m_writer.get()), m_writer.get());  // directory modes and mtimes are set here
  }

 private:
  void unpack(archive_entry* entry) {
    const char* name = archive_entry_pathname(entry);
    m_member = name ? name : "";
    if (is_record(m_member)) fail(std::string("the name '") + k_record_name + "' is yeet's own (its record in DEST)");
    // As in a directory source (manifest.hpp); and no setuid or setgid file, which a yeet run as root
    // would hand to every user of the node (a setgid directory only passes its group on).
    auto type = archive_entry_filetype(entry);
    if (!archive_entry_hardlink(entry) && type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK) {
      fail("a device, FIFO or socket; yeet unpacks only files, directories and symbolic links");
    }
    if (type != AE_IFDIR && (archive_entry_mode(entry) & (S_ISUID | S_ISGID)) != 0) {
      fail("a setuid or setgid file; yeet does not unpack those");
    }
    archive_entry_copy_pathname(entry, inside(m_member).c_str());
    if (const char* target = archive_entry_hardlink(entry)) archive_entry_copy_hardlink(entry, inside(target).c_str());
    check(archive_write_header(m_writer.get(), entry), m_writer.get());
    copy_data();
    check(archive_write_finish_entry(m_writer.get()), m_writer.get());
  }

  // True for a member that names the record at the top of the tree ("./.ezpz-yeet" too).
  static bool is_record(const std::string& member) {
    std::string name;
    std::size_t parts = 0;
    for (std::size_t start = 0; start <= member.size();) {
      std::size_t end = std::min(member.find('/', start), member.size());
      std::string part = member.substr(start, end - start);
      if (!part.empty() && part != ".") {
        name = part;
        ++parts;
      }
      start = end + 1;
    }
    return parts == 1 && name == k_record_name;
  }

  // `path` under the root; a member must not escape it by an absolute path.
  std::string inside(const std::string& path) const {
    if (path.empty() || path[0] == '/') fail(path.empty() ? "empty path" : "path is absolute: '" + path + "'");
    return m_root + "/" + path;
  }

  void copy_data() {
    const void* block;
    size_t size;
    la_int64_t offset;
    int status;
    while ((status = archive_read_data_block(m_reader.get(), &block, &size, &offset)) == ARCHIVE_OK ||
           status == ARCHIVE_WARN) {
      // A failed write (a full disk) is only a warning to libarchive, which then extends the file to its
      // size: the copy would pass with a hole where the data should be.
      if (archive_write_data_block(m_writer.get(), block, size, offset) < 0) fail(write_error());
    }
    if (status != ARCHIVE_EOF) check(status, m_reader.get());
  }

  std::string write_error() const {
    const char* reason = archive_error_string(m_writer.get());
    int error = archive_errno(m_writer.get());
    return std::string(reason ? reason : "write failed") +
           (error > 0 ? ": " + std::generic_category().message(error) : std::string());
  }

  // Warnings pass (libarchive's own tools go on after them); retry means a damaged header.
  void check(int status, archive* where) const {
    if (status == ARCHIVE_OK || status == ARCHIVE_WARN) return;
    const char* reason = archive_error_string(where);
    // The gzip reader reports a stream cut before its trailer without a message.
    fail(reason ? reason : where == m_reader.get() ? "truncated or damaged archive" : "write failed");
  }

  [[noreturn]] void fail(const std::string& reason) const {
    throw UserError("cannot unpack '" + m_shown + "': " + (m_member.empty() ? "" : m_member + ": ") + reason);
  }

  std::string m_tarball;
  std::string m_shown;  // the tarball in messages
  std::string m_root;
  std::string m_member;  // the member being unpacked, for messages
  ArchivePtr m_reader;
  ArchivePtr m_writer;
};

}  // namespace

void unpack_archive(const std::string& tarball, const std::string& into, const std::string& shown) {
  const std::string& name = shown.empty() ? tarball : shown;
  // The real path: ARCHIVE_EXTRACT_SECURE_SYMLINKS also refuses symbolic links above the members (a
  // scratch directory under a symlinked /home), and NODOTDOT a '..' there.
  std::unique_ptr<char, decltype(&std::free)> root(::realpath(into.c_str(), nullptr), std::free);
  if (!root) {
    std::string reason = std::generic_category().message(errno);  // strerror is not thread-safe
    throw UserError("cannot unpack '" + name + "': cannot use the directory '" + into + "': " + reason);
  }
  Unpacker(tarball, root.get(), name).run();
}

}  // namespace ezpz::core::yeet
