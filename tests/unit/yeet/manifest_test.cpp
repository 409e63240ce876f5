// The source scan (order, kinds, sizes, links, refusals) and the manifest's wire format and key.
#include "ezpz/yeet/manifest.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "ezpz/util/error.hpp"
#include "yeet_tree.hpp"

namespace ezpz::core::yeet {
namespace {

using test::TempDir;
using test::write_file;

std::string describe(const Manifest& manifest) {
  std::string out;
  for (const auto& entry : manifest.entries) {
    out += "'" + entry.path + "' " + std::to_string(static_cast<int>(entry.kind)) + " " + std::to_string(entry.size) +
           (entry.target.empty() ? "" : " -> " + entry.target) + "\n";
  }
  return out;
}

TEST(ScanSource, ListsParentsBeforeChildrenSortedByName) {
  TempDir dir;
  ::mkdir((dir / "src").c_str(), 0755);
  ::mkdir((dir / "src/b").c_str(), 0700);
  write_file(dir / "src/b/z.txt", "zz");
  write_file(dir / "src/a.bin", "abc");
  write_file(dir / "src/empty", "");
  ::symlink("b/z.txt", (dir / "src/link").c_str());
  Manifest manifest = scan_source(dir / "src", false);
  EXPECT_EQ(manifest.kind, SourceKind::directory);
  EXPECT_EQ(describe(manifest),
            "'' 0 0\n"
            "'a.bin' 1 3\n"
            "'b' 0 0\n"
            "'b/z.txt' 1 2\n"
            "'empty' 1 0\n"
            "'link' 2 0 -> b/z.txt\n");
  EXPECT_EQ(manifest.total_bytes, 5u);
  EXPECT_EQ(manifest.entries[2].mode, 0700u);
}

TEST(ScanSource, AFileBecomesDestSlashItsNameAndATarballOneArchiveEntry) {
  TempDir dir;
  write_file(dir / "model.pt", "weights");
  write_file(dir / "env.tar.gz", "not really");
  EXPECT_EQ(describe(scan_source(dir / "model.pt", false)), "'' 0 0\n'model.pt' 1 7\n");
  Manifest archive = scan_source(dir / "env.tar.gz", true);
  EXPECT_EQ(archive.kind, SourceKind::archive);
  EXPECT_EQ(archive.entries[1].path, std::string(k_archive_entry));
  EXPECT_EQ(scan_source(dir / "env.tar.gz", false).kind, SourceKind::file);
}

// /proc files give a size of 0 and still have content: yeet copied them empty, said "copied" and
// exited 0.
TEST(ScanSource, RefusesFilesWhoseSizeIsNotWhatTheyHold) {
  for (const std::string path : {"/proc/self/status", "/proc/cpuinfo"}) {
    try {
      scan_source(path, false);
      ADD_FAILURE() << path << " was accepted";
    } catch (const UserError& error) {
      EXPECT_EQ(std::string(error.what()), "'" + path +
                                               "' is on proc, where a file's size is not what it holds (yeet "
                                               "copies as many bytes as the size says)");
    }
  }
}

TEST(ScanSource, RefusesWhatItCannotCopy) {
  TempDir dir;
  write_file(dir / "plain.txt", "x");
  ::mkdir((dir / "tree").c_str(), 0755);
  ::mkfifo((dir / "tree/pipe").c_str(), 0644);
  EXPECT_THROW(scan_source(dir / "missing", false), UserError);
  EXPECT_THROW(scan_source(dir / "plain.txt", true), UserError);
  try {
    scan_source(dir / "tree", false);
    FAIL() << "a FIFO was accepted";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()), "'" + (dir / "tree/pipe") + "' is not a file, directory or symbolic link");
  }
}

TEST(ArchiveNames, KnowsTheTarballSuffixes) {
  for (const char* name : {"a.tar", "a.tar.gz", "a.tgz", "a.tar.zst", "a.tar.xz", "a.tar.bz2"}) {
    EXPECT_TRUE(is_archive_name(name)) << name;
  }
  for (const char* name : {"a.gz", "a.zip", "tar", ".tar", "a.tar.gz.part"})
    EXPECT_FALSE(is_archive_name(name)) << name;
}

TEST(Manifest, SurvivesTheWireAndItsKeyFollowsWhatMatters) {
  TempDir dir;
  ::mkdir((dir / "src").c_str(), 0755);
  write_file(dir / "src/ünï cödé", "data");
  ::symlink("/abs/target", (dir / "src/abs").c_str());
  Manifest manifest = scan_source(dir / "src", false);
  Manifest decoded = decode_manifest(encode_manifest(manifest));
  EXPECT_EQ(describe(decoded), describe(manifest));
  EXPECT_EQ(decoded.total_bytes, manifest.total_bytes);
  EXPECT_EQ(decoded.source, manifest.source);
  EXPECT_EQ(decoded.entries[2].mtime_ns, manifest.entries[2].mtime_ns);

  std::uint64_t key = manifest_key(manifest, "/tmp/a", 0);
  EXPECT_EQ(manifest_key(decoded, "/tmp/a", 0), key);
  EXPECT_NE(manifest_key(manifest, "/tmp/b", 0), key);
  EXPECT_NE(manifest_key(manifest, "/tmp/a", 1), key);
  Manifest touched = manifest;
  touched.entries[2].mtime_ns += 1;
  EXPECT_NE(manifest_key(touched, "/tmp/a", 0), key);
  EXPECT_THROW(decode_manifest(encode_manifest(manifest).substr(0, 20)), std::runtime_error);
}

}  // namespace
}  // namespace ezpz::core::yeet
