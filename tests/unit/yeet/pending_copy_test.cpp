// One node's copy without MPI: the source reader's stream written through PendingCopy in uneven pieces,
// checked, renamed into place; corruption, foreign and older DESTs, read-only directories, the cache,
// a disk that fills while a tarball is unpacked.
#include "ezpz/yeet/pending_copy.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "../cannot_run.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/yeet/cache_record.hpp"
#include "ezpz/yeet/source_reader.hpp"
#include "yeet_tree.hpp"

namespace ezpz::core::yeet {
namespace {

using test::exists;
using test::mode_of;
using test::read_file;
using test::TempDir;
using test::write_file;

struct Transfer {
  std::vector<std::uint64_t> hashes;
  std::string read_error;
};

// Streams the manifest's content from the source into `staging`, `piece` bytes at a time; `damage`
// flips one byte at that stream offset (as a damaged transfer would).
Transfer stream(const Manifest& manifest, PendingCopy& staging, std::size_t piece, long damage = -1) {
  SourceReader reader(manifest);
  std::string buffer;
  for (std::uint64_t done = 0; done < manifest.total_bytes; done += buffer.size()) {
    buffer.assign(static_cast<std::size_t>(std::min<std::uint64_t>(piece, manifest.total_bytes - done)), '\0');
    reader.read(buffer.data(), buffer.size());
    if (damage >= 0 && static_cast<std::uint64_t>(damage) >= done &&
        static_cast<std::uint64_t>(damage) < done + buffer.size()) {
      buffer[static_cast<std::size_t>(damage - static_cast<long>(done))] ^= 1;
    }
    staging.write(buffer.data(), buffer.size());
  }
  return {reader.file_hashes(), reader.error()};
}

class PendingCopyTest : public testing::Test {
 protected:
  void SetUp() override {
    ::mkdir((dir / "src").c_str(), 0755);
    ::mkdir((dir / "src/sub").c_str(), 0755);
    ::mkdir((dir / "src/ro").c_str(), 0755);
    write_file(dir / "src/sub/a.txt", "alpha\n");
    write_file(dir / "src/big.bin", std::string(10000, 'x') + "end");
    write_file(dir / "src/tool", "#!/bin/sh\n", 0750);
    write_file(dir / "src/empty", "");
    write_file(dir / "src/ro/inside", "kept");
    ::chmod((dir / "src/ro").c_str(), 0555);
    ::symlink("sub/a.txt", (dir / "src/link").c_str());
    manifest = scan_source(dir / "src", false);
  }

  TempDir dir;
  Manifest manifest;
};

TEST_F(PendingCopyTest, WritesTheStreamInAnyPiecesAndRenamesIntoPlace) {
  std::string dest = dir / "nodes/n1/copy";
  {
    PendingCopy staging(manifest, dest, "0");
    Transfer transfer = stream(manifest, staging, 333);
    EXPECT_FALSE(exists(dest)) << "DEST must not appear before commit";
    staging.commit(transfer.hashes, VenvMode::detect, 42);
    EXPECT_EQ(staging.bytes_written(), manifest.total_bytes);
  }
  EXPECT_EQ(read_file(dest + "/sub/a.txt"), "alpha\n");
  EXPECT_EQ(read_file(dest + "/big.bin"), std::string(10000, 'x') + "end");
  EXPECT_EQ(read_file(dest + "/empty"), "");
  EXPECT_EQ(read_file(dest + "/ro/inside"), "kept");
  EXPECT_EQ(mode_of(dest + "/tool"), 0750u);
  EXPECT_EQ(mode_of(dest + "/ro"), 0555u);
  char target[64] = {};
  ASSERT_GT(::readlink((dest + "/link").c_str(), target, sizeof target), 0);
  EXPECT_STREQ(target, "sub/a.txt");
  struct stat source_info {
  }, copy_info{};
  ::stat((dir / "src/big.bin").c_str(), &source_info);
  ::stat((dest + "/big.bin").c_str(), &copy_info);
  EXPECT_EQ(copy_info.st_mtim.tv_sec, source_info.st_mtim.tv_sec);
  EXPECT_EQ(copy_info.st_mtim.tv_nsec, source_info.st_mtim.tv_nsec);
  EXPECT_TRUE(holds_copy(dest, manifest, 42, false));
  EXPECT_FALSE(holds_copy(dest, manifest, 43, false));
  ::unlink((dest + "/sub/a.txt").c_str());
  EXPECT_FALSE(holds_copy(dest, manifest, 42, false)) << "a removed file must invalidate the cache";
}

TEST_F(PendingCopyTest, ADamagedByteFailsTheFileAndLeavesNothingBehind) {
  std::string dest = dir / "copy";
  try {
    PendingCopy staging(manifest, dest, "1");
    Transfer transfer = stream(manifest, staging, 4096, 5000);
    EXPECT_EQ(test::count_prefixed(dir.path(), ".copy.yeet-1-"), 1) << "the staging directory is beside DEST";
    staging.commit(transfer.hashes, VenvMode::detect, 1);
    FAIL() << "the damaged copy was accepted";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()), "checksum mismatch: '" + dest + "/big.bin' differs from the source");
  }
  EXPECT_FALSE(exists(dest));
  EXPECT_EQ(read_file(dir / "src/big.bin").size(), 10003u);
  EXPECT_EQ(test::count_prefixed(dir.path(), ".copy.yeet-"), 0) << "a staging directory was left behind";
}

TEST_F(PendingCopyTest, ReplacesAnOlderCopyButNeverAForeignDirectory) {
  std::string dest = dir / "copy";
  for (int round = 0; round < 2; ++round) {
    PendingCopy staging(manifest, dest, "0");
    staging.commit(stream(manifest, staging, 1 << 20).hashes, VenvMode::off, static_cast<std::uint64_t>(round));
  }
  EXPECT_EQ(read_cache_record(dest)->key, 1u);
  EXPECT_EQ(read_file(dest + "/ro/inside"), "kept");

  ::mkdir((dir / "mine").c_str(), 0755);
  write_file(dir / "mine/notes", "keep me");
  EXPECT_THROW(PendingCopy(manifest, dir / "mine", "0"), UserError);
  EXPECT_EQ(read_file(dir / "mine/notes"), "keep me");
  write_file(dir / "afile", "x");
  EXPECT_THROW(PendingCopy(manifest, dir / "afile/copy", "0"), UserError);
}

// Issue 27: on a node shared with other users, only the caller's own copy is kept, and only in directories
// no one else can rename it out of (chown to uid 64102 needs root, as the tests have in CI).
TEST_F(PendingCopyTest, NeverKeepsOrReplacesWhatAnotherUserOwns) {
  if (::geteuid() != 0) EZPZ_CANNOT_RUN("chown to another user needs root");
  auto refusal = [&](const std::string& dest) {
    try {
      check_replaceable(dest);
    } catch (const UserError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  std::string dest = dir / "copy";
  {
    PendingCopy staging(manifest, dest, "0");
    staging.commit(stream(manifest, staging, 4096).hashes, VenvMode::off, 42);
  }
  ASSERT_TRUE(holds_copy(dest, manifest, 42, false));
  // A file of another user's, with the same size: only its owner tells it apart.
  ASSERT_EQ(::lchown((dest + "/sub/a.txt").c_str(), 64102, 64102), 0);
  std::string distrusted;
  EXPECT_FALSE(holds_copy(dest, manifest, 42, false, &distrusted));
  EXPECT_EQ(distrusted, "'" + dest + "/sub/a.txt' is owned by uid 64102, not by you (root)");
  EXPECT_EQ(refusal(dest), "") << "the caller's own DEST is replaced by a fresh copy";
  // DEST itself another user's: neither kept nor replaced.
  ASSERT_EQ(::chown(dest.c_str(), 64102, 64102), 0);
  EXPECT_FALSE(holds_copy(dest, manifest, 42, false));
  EXPECT_EQ(refusal(dest),
            "DEST '" + dest + "' is not safe to use: '" + dest + "' is owned by uid 64102, not by you (root)");
  // Under a directory anyone may rename entries in; and under another user's directory, with nothing created.
  ::mkdir((dir / "open").c_str(), 0777);
  ::chmod((dir / "open").c_str(), 0777);
  EXPECT_EQ(refusal(dir / "open/copy"), "DEST '" + (dir / "open/copy") + "' is not safe to use: '" + (dir / "open") +
                                            "' is writable by others (mode 0777) and has no sticky bit");
  ::chmod((dir / "open").c_str(), 01777);
  EXPECT_EQ(refusal(dir / "open/copy"), "") << "the sticky bit (/tmp) keeps others from renaming DEST";
  ::mkdir((dir / "theirs").c_str(), 0777);
  ASSERT_EQ(::chown((dir / "theirs").c_str(), 64102, 64102), 0);
  EXPECT_THROW(PendingCopy(manifest, dir / "theirs/deeper/copy", "0"), UserError);
  EXPECT_FALSE(exists(dir / "theirs/deeper")) << "no parent is created under another user's directory";
}

TEST_F(PendingCopyTest, AnUnreadableSourceFileIsSentAsZerosAndFailsTheChecksum) {
  std::string dest = dir / "copy";
  PendingCopy staging(manifest, dest, "0");
  ::unlink((dir / "src/sub/a.txt").c_str());
  Transfer transfer = stream(manifest, staging, 100);
  EXPECT_EQ(transfer.read_error, "cannot read '" + (dir / "src/sub/a.txt") + "': No such file or directory");
  EXPECT_THROW(staging.commit(transfer.hashes, VenvMode::off, 1), UserError);
}

TEST_F(PendingCopyTest, AnEntryWithTheRecordsNameIsRefused) {
  write_file(dir / "src/sub/.ezpz-yeet", "only the top of the tree holds the record");
  EXPECT_NO_THROW(scan_source(dir / "src", false));
  write_file(dir / "victim", "precious");
  ::symlink((dir / "victim").c_str(), (dir / "src/.ezpz-yeet").c_str());
  try {
    scan_source(dir / "src", false);
    FAIL() << "a source entry named .ezpz-yeet was accepted";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()),
              "'" + (dir / "src/.ezpz-yeet") + "': the name '.ezpz-yeet' is yeet's own (its record in DEST)");
  }
}

TEST(CacheRecord, IsNeverWrittenThroughALink) {
  TempDir dir;
  write_file(dir / "victim", "precious");
  ::mkdir((dir / "staging").c_str(), 0700);
  ::symlink((dir / "victim").c_str(), (dir / "staging/.ezpz-yeet").c_str());
  EXPECT_THROW(write_cache_record(dir / "staging", CacheRecord{1, 2, "src"}), UserError);
  EXPECT_EQ(read_file(dir / "victim"), "precious");
}

// A FIFO in place of DEST's record hung yeet (and a link there was read through): neither is a record.
TEST(CacheRecord, OnlyARegularFileIsARecord) {
  TempDir dir;
  ::mkdir((dir / "fifo").c_str(), 0755);
  ASSERT_EQ(::mkfifo((dir / "fifo/.ezpz-yeet").c_str(), 0644), 0);
  EXPECT_FALSE(read_cache_record(dir / "fifo"));
  EXPECT_THROW(check_replaceable(dir / "fifo"), UserError);
  ::mkdir((dir / "made").c_str(), 0755);
  write_cache_record(dir / "made", CacheRecord{1, 2, "src"});
  ::mkdir((dir / "link").c_str(), 0755);
  ::symlink((dir / "made/.ezpz-yeet").c_str(), (dir / "link/.ezpz-yeet").c_str());
  EXPECT_TRUE(read_cache_record(dir / "made"));
  EXPECT_FALSE(read_cache_record(dir / "link"));
}

TEST(PendingCopyArchive, AnUnpackErrorNamesTheSourceNotTheStagingFile) {
  TempDir dir;
  write_file(dir / "broken.tar", "just some text\n");
  Manifest manifest = scan_source(dir / "broken.tar", true);
  try {
    PendingCopy staging(manifest, dir / "copy", "0");
    staging.commit(stream(manifest, staging, 4096).hashes, VenvMode::off, 1);
    FAIL() << "the broken tarball was accepted";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()), "cannot unpack '" + (dir / "broken.tar") + "': Unrecognized archive format");
  }
  EXPECT_FALSE(exists(dir / "copy"));
}

// Puts this (forked, single-threaded) process into a mount namespace of its own, with a tmpfs of
// `bytes` at `path`: a disk that fills, seen by no other process. As root, or through a user namespace.
bool mount_small_disk(const std::string& path, std::size_t bytes) {
  if (::unshare(CLONE_NEWNS) != 0) {
    std::string uid = std::to_string(::getuid()), gid = std::to_string(::getgid());
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return false;
    std::ofstream("/proc/self/setgroups") << "deny";
    std::ofstream("/proc/self/uid_map") << "0 " << uid << " 1";
    std::ofstream("/proc/self/gid_map") << "0 " << gid << " 1";
  }
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
  return ::mount("tmpfs", path.c_str(), "tmpfs", 0, ("size=" + std::to_string(bytes)).c_str()) == 0;
}

// A tarball that fits on the node's disk and unpacks to more than fits: the write fails with ENOSPC
// (libarchive calls that a warning), while extending the file to its size still succeeds (a hole).
TEST(PendingCopyArchive, ADiskThatFillsWhileUnpackingFailsTheNodeAndLeavesNoDest) {
  TempDir dir;
  ::mkdir((dir / "tree").c_str(), 0755);
  ::mkdir((dir / "disk").c_str(), 0755);
  write_file(dir / "tree/big", std::string(1u << 20, 'x'));  // 1 MiB in a tarball of a few KiB
  ASSERT_EQ(std::system(("tar -C '" + (dir / "tree") + "' -czf '" + (dir / "t.tar.gz") + "' big").c_str()), 0);
  Manifest manifest = scan_source(dir / "t.tar.gz", true);
  std::string dest = dir / "disk/copy";
  int message[2];
  ASSERT_EQ(::pipe(message), 0);
  pid_t child = ::fork();
  if (child == 0) {
    ::close(message[0]);
    if (!mount_small_disk(dir / "disk", 256u << 10)) ::_exit(77);
    int code = 0;
    try {
      PendingCopy staging(manifest, dest, "0");
      staging.commit(stream(manifest, staging, 4096).hashes, VenvMode::off, 1);
    } catch (const UserError& error) {
      ssize_t ignored = ::write(message[1], error.what(), std::strlen(error.what()));
      (void)ignored;
      code |= 1;
    }
    // What the node leaves on its disk, seen from inside the namespace.
    code |= exists(dest) ? 2 : 0;
    code |= test::count_prefixed(dir / "disk", ".copy.yeet-") != 0 ? 4 : 0;
    ::_exit(code);
  }
  ::close(message[1]);
  std::string text;
  char buffer[512];
  for (ssize_t n; (n = ::read(message[0], buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<std::size_t>(n));
  ::close(message[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) EZPZ_CANNOT_RUN("no mount namespace with a tmpfs (needs root or user namespaces)");
  int left = WEXITSTATUS(status);
  EXPECT_TRUE(left & 1) << "the short copy was accepted";
  EXPECT_FALSE(left & 2) << "DEST was left behind";
  EXPECT_FALSE(left & 4) << "a staging directory was left behind";
  EXPECT_EQ(text, "cannot unpack '" + (dir / "t.tar.gz") + "': big: Write failed: No space left on device");
}

// A sparse source (a disk image, a preallocated checkpoint) was written in full on every node: runs of
// zero blocks become holes there, with the same content and size, whatever the pieces of the stream.
TEST(PendingCopySparse, ZeroBlocksBecomeHolesOnTheNode) {
  TempDir dir;
  ::mkdir((dir / "src").c_str(), 0755);
  constexpr off_t k_mib = 1 << 20;
  int fd = ::open((dir / "src/image").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, "head", 4, 0), 4);
  ASSERT_EQ(::pwrite(fd, "middle", 6, 16 * k_mib + 1), 6);
  ASSERT_EQ(::pwrite(fd, "tail", 4, 64 * k_mib - 4), 4);
  ::close(fd);
  fd = ::open((dir / "src/ends-in-a-hole").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_EQ(::write(fd, "data", 4), 4);
  ASSERT_EQ(::ftruncate(fd, 8 * k_mib + 100), 0);
  ::close(fd);
  write_file(dir / "src/small", std::string(100, '\0'));
  Manifest manifest = scan_source(dir / "src", false);
  std::string dest = dir / "copy";
  {
    PendingCopy staging(manifest, dest, "0");
    staging.commit(stream(manifest, staging, 1000003).hashes, VenvMode::off, 1);
  }
  for (const char* name : {"image", "ends-in-a-hole", "small"}) {
    struct stat source {
    }, copy{};
    ASSERT_EQ(::stat((dir / "src/" + name).c_str(), &source), 0);
    ASSERT_EQ(::stat((dest + "/" + name).c_str(), &copy), 0);
    EXPECT_EQ(copy.st_size, source.st_size) << name;
    EXPECT_TRUE(read_file(dest + "/" + name) == read_file(dir / "src/" + name)) << name << " differs";
    EXPECT_LE(copy.st_blocks * 512, 64 * 1024) << name << " was written in full";
  }
}

TEST(RemoveTree, RemovesReadOnlyDirectories) {
  TempDir dir;
  ::mkdir((dir / "t").c_str(), 0755);
  ::mkdir((dir / "t/ro").c_str(), 0755);
  write_file(dir / "t/ro/f", "x");
  ::chmod((dir / "t/ro").c_str(), 0500);
  remove_tree(dir / "t");
  EXPECT_FALSE(exists(dir / "t"));
}

}  // namespace
}  // namespace ezpz::core::yeet
