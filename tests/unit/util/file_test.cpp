// Whole-file writes and reads against what another user or a careless one leaves in the way: links at
// the temporary's name, FIFOs, devices, a strict umask.
#include "ezpz/util/file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "ezpz/util/error.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

// A fresh directory, removed with what is in it.
struct Scratch {
  std::string dir;
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "ezpz-file-test-XXXXXX").string();
    dir = ::mkdtemp(pattern.data());
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string path(const std::string& name) const { return dir + "/" + name; }
};

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

mode_t mode_of(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777;
}

// Sets the umask for one test and puts the old one back.
struct Umask {
  mode_t previous;
  explicit Umask(mode_t mask) : previous(::umask(mask)) {}
  ~Umask() { ::umask(previous); }
};

std::string error_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& error) {
    return error.diagnostics().front().message;
  }
  return "";
}

// The old temporary was PATH.tmp.<pid>: a link planted there sent the text into the link's target,
// and the rename left PATH as the planter's link.
TEST(WriteFileAtomically, NeverWritesThroughALinkAtTheOldTemporaryName) {
  Scratch scratch;
  std::string victim = scratch.path("private");
  std::ofstream(victim) << "precious\n";
  ::chmod(victim.c_str(), 0600);
  std::string path = scratch.path("job.sh");
  ASSERT_EQ(::symlink(victim.c_str(), (path + ".tmp." + std::to_string(::getpid())).c_str()), 0);
  write_file_atomically(path, "#!/bin/bash\n", true);
  EXPECT_EQ(contents(victim), "precious\n");
  EXPECT_EQ(mode_of(victim), 0600u);
  struct stat info {};
  ASSERT_EQ(::lstat(path.c_str(), &info), 0);
  EXPECT_TRUE(S_ISREG(info.st_mode)) << "job.sh is not a regular file";
  EXPECT_EQ(contents(path), "#!/bin/bash\n");
}

TEST(WriteFileAtomically, LeavesNoTemporaryBehind) {
  Scratch scratch;
  write_file_atomically(scratch.path("a"), "text");
  write_file_atomically(scratch.path("a"), "again");
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(scratch.dir)) names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"a"});
  EXPECT_EQ(contents(scratch.path("a")), "again");
}

// A spec's env: holds tokens: the script is no more readable than the user's umask allows.
TEST(WriteFileAtomically, HonoursTheUmask) {
  Scratch scratch;
  struct Case {
    mode_t mask;
    bool executable;
    mode_t expected;
  };
  for (const Case& c : {Case{077, true, 0700}, Case{077, false, 0600}, Case{022, true, 0755}, Case{022, false, 0644},
                        Case{027, true, 0750}, Case{002, false, 0664}}) {
    Umask mask(c.mask);
    std::string path = scratch.path("f");
    write_file_atomically(path, "x", c.executable);
    EXPECT_EQ(mode_of(path), c.expected) << "umask " << std::oct << c.mask << (c.executable ? " executable" : "");
  }
}

TEST(WriteFileAtomically, RefusesToReplaceWhatIsNotARegularFile) {
  Scratch scratch;
  std::string link = scratch.path("link");
  ASSERT_EQ(::symlink("/etc/hostname", link.c_str()), 0);
  std::string fifo = scratch.path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(error_text([&] { write_file_atomically(link, "x"); }).find("(a symbolic link)"), std::string::npos);
  EXPECT_NE(error_text([&] { write_file_atomically(fifo, "x"); }).find("(a FIFO)"), std::string::npos);
  EXPECT_TRUE(fs::is_symlink(link));
}

TEST(WriteFileAtomically, NamesThePathWhenTheDirectoryIsMissing) {
  Scratch scratch;
  std::string path = scratch.path("no/such/file");
  EXPECT_EQ(error_text([&] { write_file_atomically(path, "x"); }).rfind("cannot write '" + path + "'", 0), 0u);
}

TEST(ReadRegularFile, SaysWhatAFifoADeviceAndADirectoryAre) {
  Scratch scratch;
  std::string fifo = scratch.path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_text([&] { read_regular_file(fifo, "the spec 'fifo'", 100); }),
            "cannot read the spec 'fifo': it is a FIFO, not a regular file");
  EXPECT_EQ(error_text([&] { read_regular_file("/dev/zero", "the spec", 100); }),
            "cannot read the spec: it is a device, not a regular file");
  EXPECT_EQ(error_text([&] { read_regular_file(scratch.dir, "the spec", 100); }),
            "cannot read the spec: it is a directory, not a regular file");
}

}  // namespace
}  // namespace ezpz::core
