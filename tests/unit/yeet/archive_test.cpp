// Unpacking tarballs: every compression, what a tree holds, members that would escape, broken archives.
#include "ezpz/yeet/archive.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../cannot_run.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core::yeet {
namespace {

namespace fs = std::filesystem;

// Exit status of `sh -c COMMAND`; its output goes to `out`.
int run(const std::string& command, std::string* out = nullptr) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buffer[4096];
  size_t n;
  std::string text;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, n);
  if (out) *out = text;
  return ::pclose(pipe);
}

bool have(const std::string& tool) {
  return run("command -v " + tool) == 0;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write(const fs::path& path, const std::string& text, fs::perms mode = fs::perms(0644)) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
  fs::permissions(path, mode);
}

long long mtime_seconds(const fs::path& path) {
  struct stat info {};
  ::lstat(path.c_str(), &info);
  return static_cast<long long>(info.st_mtim.tv_sec);
}

// The message of the UserError `f` throws; "" when it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const UserError& error) {
    return error.diagnostics()[0].message;
  }
  return "";
}

class ArchiveUnpack : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = ::testing::TempDir() + "ezpz-archive-XXXXXX";
    ASSERT_NE(::mkdtemp(m_dir.data()), nullptr);
    m_into = m_dir + "/into";
    fs::create_directory(m_into);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(m_dir, ignored);
  }

  // A tarball of the given members, made by Python's tarfile (GNU tar will not write '..' or absolute
  // names): "f:NAME" a file, "l:NAME:TARGET" a symlink, "h:NAME:TARGET" a hard link, "c:NAME" a character
  // device, "b:NAME" a block device, "p:NAME" a FIFO, "u:NAME" a setuid file, "g:NAME" a setgid file,
  // "D:NAME" a setgid directory; "@" is m_dir.
  std::string python_tarball(const std::vector<std::string>& members) {
    if (!have("python3")) return "";
    std::string tarball = m_dir + "/crafted.tar";
    std::string command =
        "python3 -c 'import io, sys, tarfile\n"
        "with tarfile.open(sys.argv[1], \"w\", format=tarfile.GNU_FORMAT) as t:\n"
        "    for spec in sys.argv[2:]:\n"
        "        kind, name, *target = spec.split(\":\")\n"
        "        info = tarfile.TarInfo(name)\n"
        "        info.type = {\"f\": tarfile.REGTYPE, \"l\": tarfile.SYMTYPE, \"h\": tarfile.LNKTYPE,\n"
        "                     \"c\": tarfile.CHRTYPE, \"b\": tarfile.BLKTYPE, \"p\": tarfile.FIFOTYPE,\n"
        "                     \"u\": tarfile.REGTYPE, \"g\": tarfile.REGTYPE, \"D\": tarfile.DIRTYPE}[kind]\n"
        "        info.mode = {\"u\": 0o4755, \"g\": 0o2755, \"D\": 0o2755}.get(kind, 0o644)\n"
        "        info.linkname = target[0] if target else \"\"\n"
        "        data = b\"payload\\n\" if kind in \"fug\" else b\"\"\n"
        "        info.size = len(data)\n"
        "        t.addfile(info, io.BytesIO(data))\n"
        "' " +
        shell_quote(tarball);
    for (std::string member : members) {
      for (size_t at; (at = member.find('@')) != std::string::npos;) member.replace(at, 1, m_dir);
      command += " " + shell_quote(member);
    }
    std::string out;
    if (run(command, &out) != 0) ADD_FAILURE() << out;
    return tarball;
  }

  std::string m_dir;
  std::string m_into;
};

// --- every compression, the same tree --------------------------------------------------------------

struct Compression {
  const char* name;
  const char* tar_option;  // how GNU tar is told to compress
  const char* tool;        // the program that must be installed, nullptr for none
};

void PrintTo(const Compression& param, std::ostream* out) {
  *out << param.name;
}

class ArchiveFormats : public ArchiveUnpack, public ::testing::WithParamInterface<Compression> {
 protected:
  // A tree with nested directories, an executable, an empty file, a symlink, a hard link, an old mtime
  // and a non-ASCII name.
  void make_tree(const fs::path& src) {
    write(src / "a/b/c/deep.txt", "deep\n");
    write(src / "a/run.sh", "#!/bin/sh\necho hi\n", fs::perms(0755));
    write(src / "a/empty", "", fs::perms(0600));
    write(src / "ünï cödé.txt", "non-ascii\n");
    fs::permissions(src / "a/b", fs::perms(0750));
    fs::create_symlink("b/c", src / "a/link");
    fs::create_hard_link(src / "a/b/c/deep.txt", src / "hard");
    fs::last_write_time(src / "a/run.sh", fs::last_write_time(src / "a/run.sh") - std::chrono::hours(24 * 365));
  }
};

TEST_P(ArchiveFormats, UnpacksTheSameTree) {
  const Compression& c = GetParam();
  if (c.tool && !have(c.tool)) EZPZ_CANNOT_RUN(c.tool << " is not installed");
  const fs::path src = m_dir + "/src";
  make_tree(src);
  // A name that says nothing: the compression is found from the content.
  const std::string tarball = m_dir + "/payload.bin";
  std::string out;
  ASSERT_EQ(run(std::string("tar ") + c.tar_option + " -cf " + shell_quote(tarball) + " -C " +
                    shell_quote(src.string()) + " .",
                &out),
            0)
      << out;

  unpack_archive(tarball, m_into);

  int entries = 0;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    ++entries;
    fs::path relative = entry.path().lexically_relative(src);
    fs::path copy = m_into / relative;
    fs::file_status want = fs::symlink_status(entry.path()), got = fs::symlink_status(copy);
    ASSERT_EQ(got.type(), want.type()) << relative;
    if (want.type() == fs::file_type::symlink) {
      EXPECT_EQ(fs::read_symlink(copy), fs::read_symlink(entry.path())) << relative;
      continue;
    }
    EXPECT_EQ(got.permissions(), want.permissions()) << relative;
    if (want.type() == fs::file_type::regular) {
      EXPECT_EQ(read(copy), read(entry.path())) << relative;
      EXPECT_EQ(mtime_seconds(copy), mtime_seconds(entry.path())) << relative;  // GNU tar keeps seconds
    }
  }
  EXPECT_EQ(entries, 9);
  int copies = 0;
  for ([[maybe_unused]] const auto& entry : fs::recursive_directory_iterator(m_into)) ++copies;
  EXPECT_EQ(copies, entries);
  EXPECT_TRUE(fs::equivalent(m_into + "/hard", m_into + "/a/b/c/deep.txt"));
  EXPECT_EQ(fs::hard_link_count(m_into + "/hard"), 2u);
}

INSTANTIATE_TEST_SUITE_P(Archive, ArchiveFormats,
                         ::testing::Values(Compression{"plain", "", nullptr},
                                           Compression{"pax", "--format=posix", nullptr},
                                           Compression{"gzip", "-z", "gzip"}, Compression{"zstd", "-I zstd", "zstd"},
                                           Compression{"xz", "-J", "xz"}, Compression{"bzip2", "-j", "bzip2"}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

// --- members that would land outside `into` --------------------------------------------------------

struct Escape {
  const char* name;
  std::vector<std::string> members;  // as for python_tarball
  std::string message;               // after "cannot unpack 'TARBALL': "; "@" is m_dir
  std::string outside;               // a path under m_dir that must not appear
};

void PrintTo(const Escape& param, std::ostream* out) {
  *out << param.name;
}

class ArchiveEscapes : public ArchiveUnpack, public ::testing::WithParamInterface<Escape> {};

const std::string k_not_special = "a device, FIFO or socket; yeet unpacks only files, directories and symbolic links";

TEST_P(ArchiveEscapes, AreRefused) {
  const Escape& e = GetParam();
  write(m_dir + "/secret", "secret\n");
  std::string tarball = python_tarball(e.members);
  if (tarball.empty()) EZPZ_CANNOT_RUN("python3 is needed to craft the archive");
  std::string message = e.message;
  for (size_t at; (at = message.find('@')) != std::string::npos;) message.replace(at, 1, m_dir);

  EXPECT_EQ(error_of([&] { unpack_archive(tarball, m_into); }), "cannot unpack '" + tarball + "': " + message);
  EXPECT_FALSE(fs::exists(fs::symlink_status(m_dir + "/" + e.outside))) << e.outside;
  EXPECT_EQ(read(m_dir + "/secret"), "secret\n");
}

INSTANTIATE_TEST_SUITE_P(
    Archive, ArchiveEscapes,
    ::testing::Values(Escape{"dot_dot", {"f:ok.txt", "f:../evil"}, "../evil: Path contains '..'", "evil"},
                      Escape{"dot_dot_inside", {"f:a/../../evil"}, "a/../../evil: Path contains '..'", "evil"},
                      Escape{"absolute", {"f:@/evil"}, "@/evil: path is absolute: '@/evil'", "evil"},
                      Escape{"hard_link_out", {"h:steal:../secret"}, "steal: Path contains '..'", "into/steal"},
                      Escape{"through_a_symlink",
                             {"l:up:@", "f:up/evil"},
                             "up/evil: Cannot extract through symlink @/into/up/evil",
                             "evil"},
                      Escape{"the_record_name",
                             {"l:.ezpz-yeet:@/secret"},
                             ".ezpz-yeet: the name '.ezpz-yeet' is yeet's own (its record in DEST)",
                             "into/.ezpz-yeet"},
                      Escape{"the_record_name_after_dot_slash",
                             {"f:.//./.ezpz-yeet"},
                             ".//./.ezpz-yeet: the name '.ezpz-yeet' is yeet's own (its record in DEST)",
                             "into/.ezpz-yeet"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// Refused as in a directory source (manifest.hpp), and setuid and setgid files, which a root yeet would
// hand to every user of the node.
INSTANTIATE_TEST_SUITE_P(
    Special, ArchiveEscapes,
    ::testing::Values(Escape{"character_device", {"c:into-null"}, "into-null: " + k_not_special, "into/into-null"},
                      Escape{"block_device", {"b:disk"}, "disk: " + k_not_special, "into/disk"},
                      Escape{"fifo", {"p:pipe"}, "pipe: " + k_not_special, "into/pipe"},
                      Escape{"setuid", {"u:su"}, "su: a setuid or setgid file; yeet does not unpack those", "into/su"},
                      Escape{"setgid", {"g:sg"}, "sg: a setuid or setgid file; yeet does not unpack those", "into/sg"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// A setgid directory only makes its files take its group (a project directory), and is kept.
TEST_F(ArchiveUnpack, ASetgidDirectoryIsUnpacked) {
  std::string tarball = python_tarball({"D:project", "f:project/x"});
  if (tarball.empty()) EZPZ_CANNOT_RUN("python3 is needed to craft the archive");
  EXPECT_EQ(error_of([&] { unpack_archive(tarball, m_into); }), "");
  EXPECT_EQ(read(m_into + "/project/x"), "payload\n");
}

// --- archives that are not whole ---------------------------------------------------------------------

struct Damage {
  const char* name;
  const char* make;     // shell commands that leave the broken tarball in $T, from the files in $S
  std::string message;  // after "cannot unpack '$T': "
};

void PrintTo(const Damage& param, std::ostream* out) {
  *out << param.name;
}

class ArchiveDamage : public ArchiveUnpack, public ::testing::WithParamInterface<Damage> {};

TEST_P(ArchiveDamage, FailsInsteadOfUnpackingPart) {
  const Damage& d = GetParam();
  if (std::string(d.make).find("zstd") != std::string::npos && !have("zstd")) EZPZ_CANNOT_RUN("zstd is not installed");
  std::mt19937 random(7);
  std::string noise(256 * 1024, '\0');  // 512 blocks: noise.bin ends at byte 512 + 262144 = 262656
  for (char& byte : noise) byte = static_cast<char>(random());  // incompressible
  write(m_dir + "/src/noise.bin", noise);
  write(m_dir + "/src/tail.txt", "tail\n");
  const std::string tarball = m_dir + "/broken";
  std::string out;
  ASSERT_EQ(run("T=" + shell_quote(tarball) + " S=" + shell_quote(m_dir + "/src") + "; cd \"$S\" && " + d.make, &out),
            0)
      << out;

  EXPECT_EQ(error_of([&] { unpack_archive(tarball, m_into); }), "cannot unpack '" + tarball + "': " + d.message);
}

// Shell arithmetic for half the size of $T.
#define HALF "$(($(stat -c %s \"$T\") / 2))"

INSTANTIATE_TEST_SUITE_P(
    Archive, ArchiveDamage,
    ::testing::Values(
        Damage{"truncated_plain", "tar -cf \"$T\" noise.bin tail.txt && truncate -s " HALF " \"$T\"",
               "noise.bin: Truncated tar archive"},
        Damage{"truncated_gzip", "tar -czf \"$T\" noise.bin tail.txt && truncate -s " HALF " \"$T\"",
               "noise.bin: truncated gzip input"},
        Damage{"truncated_zstd", "tar -I zstd -cf \"$T\" noise.bin tail.txt && truncate -s " HALF " \"$T\"",
               "noise.bin: Truncated zstd input"},
        Damage{"gzip_header_only", "tar -czf \"$T\" noise.bin tail.txt && truncate -s 20 \"$T\"",
               "truncated gzip input"},
        Damage{"gzip_without_its_trailer", "tar -czf \"$T\" noise.bin tail.txt && truncate -s -8 \"$T\"",
               "noise.bin: truncated or damaged archive"},
        Damage{"cut_at_a_member_boundary", "tar -cf \"$T\" noise.bin tail.txt && truncate -s 262656 \"$T\"",
               "truncated tar archive (no end-of-archive marker)"},
        Damage{"gzip_of_a_tar_cut_at_a_member_boundary",
               "tar -cf - noise.bin tail.txt | head -c 262656 | gzip > \"$T\"",
               "truncated tar archive (no end-of-archive marker)"},
        Damage{"damaged_second_header",
               "tar -cf \"$T\" noise.bin tail.txt && printf XXXXXXXX | dd of=\"$T\" bs=1 seek=262804 conv=notrunc",
               "Damaged tar archive"},
        Damage{"empty", ": > \"$T\"", "Unrecognized archive format"},
        Damage{"not_a_tarball", "echo 'just some text' > \"$T\"", "Unrecognized archive format"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

#undef HALF

TEST_F(ArchiveUnpack, EmptyIsFineMissingIsNot) {
  const std::string tarball = m_dir + "/t.tar";
  ASSERT_EQ(run("tar -cf " + shell_quote(tarball) + " -T /dev/null"), 0);
  EXPECT_EQ(error_of([&] { unpack_archive(tarball, m_into); }), "");  // no members, but whole
  EXPECT_EQ(error_of([&] { unpack_archive(m_dir + "/missing.tar", m_into); }),
            "cannot unpack '" + m_dir + "/missing.tar': Failed to open '" + m_dir + "/missing.tar'");
  EXPECT_EQ(
      error_of([&] { unpack_archive(tarball, m_dir + "/nowhere"); }),
      "cannot unpack '" + tarball + "': cannot use the directory '" + m_dir + "/nowhere': No such file or directory");
}

// `into` reached through a symbolic link (a scratch directory under a symlinked /home) still works.
TEST_F(ArchiveUnpack, IntoMayBeBehindASymlink) {
  write(m_dir + "/src/file.txt", "x\n");
  const std::string tarball = m_dir + "/t.tar";
  ASSERT_EQ(run("tar -cf " + shell_quote(tarball) + " -C " + shell_quote(m_dir + "/src") + " file.txt"), 0);
  fs::create_directory_symlink(m_into, m_dir + "/alias");
  unpack_archive(tarball, m_dir + "/alias/");
  EXPECT_EQ(read(m_into + "/file.txt"), "x\n");
}

}  // namespace
}  // namespace ezpz::core::yeet
