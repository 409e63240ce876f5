// The trust rule on a real tree: owners set with chown (the tests run as root in CI) and modes with
// chmod, judged for a caller uid 64101 with root trusted; uid 64102 is the other user.
#include "ezpz/util/trust.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>

#include "../cannot_run.hpp"

namespace ezpz::core {
namespace {

constexpr uid_t k_caller = 64101;
constexpr uid_t k_other = 64102;

class TrustTest : public testing::Test {
 public:
  void SetUp() override {
    if (::geteuid() != 0) EZPZ_CANNOT_RUN("the trust tests chown files to other users, which needs root");
    std::string pattern = ::testing::TempDir() + "ezpz-trust-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_root = pattern;
    ::chmod(m_root.c_str(), 0755);
  }
  void TearDown() override {
    if (!m_root.empty()) std::system(("rm -rf '" + m_root + "'").c_str());
  }

  std::string at(const std::string& name) const { return m_root + "/" + name; }
  // A directory of `owner` with `mode` (chmod after mkdir: the umask does not apply).
  std::string dir(const std::string& name, uid_t owner, mode_t mode) const {
    std::string path = at(name);
    ::mkdir(path.c_str(), 0700);
    EXPECT_EQ(::chown(path.c_str(), owner, owner), 0);
    ::chmod(path.c_str(), mode);
    return path;
  }
  std::string file(const std::string& name, uid_t owner, mode_t mode) const {
    std::string path = at(name);
    std::ofstream(path) << "scheduler: slurm\n";
    EXPECT_EQ(::chown(path.c_str(), owner, owner), 0);
    ::chmod(path.c_str(), mode);
    return path;
  }
  std::string link(const std::string& name, const std::string& target, uid_t owner) const {
    std::string path = at(name);
    EXPECT_EQ(::symlink(target.c_str(), path.c_str()), 0);
    EXPECT_EQ(::lchown(path.c_str(), owner, owner), 0);
    return path;
  }

  // "" when trusted, else the message.
  static std::string verdict(const std::string& path) {
    auto problem = why_untrusted(path, TrustedUsers{k_caller, {0}});
    return problem ? problem->message() : "";
  }

  std::string m_root;
};

TEST_F(TrustTest, TheCallersOwnDirectoryAndFileAreTrusted) {
  dir("mine", k_caller, 0755);
  EXPECT_EQ(verdict(file("mine/a.yaml", k_caller, 0644)), "");
  EXPECT_EQ(verdict(at("mine")), "");
}

TEST_F(TrustTest, RootsDirectoriesAreTrusted) {
  dir("roots", 0, 0755);
  EXPECT_EQ(verdict(file("roots/a.yaml", 0, 0644)), "");
}

struct Case {
  const char* name;
  std::function<std::string(const TrustTest&)> make;  // returns the path judged
  std::string expected;                               // the message, with @ for the tree's root
};

TEST_F(TrustTest, EachWayAnotherUserCouldChangeAPathIsRefused) {
  const Case k_cases[] = {
      {"a directory another user owns", [](const TrustTest& t) { return t.dir("theirs", k_other, 0755); },
       "'@/theirs' is owned by uid 64102, not by you (uid 64101) or root"},
      {"a file another user owns in the caller's directory",
       [](const TrustTest& t) {
         t.dir("d", k_caller, 0755);
         return t.file("d/slurm.yaml", k_other, 0644);
       },
       "'@/d/slurm.yaml' is owned by uid 64102, not by you (uid 64101) or root"},
      {"a group-writable directory", [](const TrustTest& t) { return t.dir("group", k_caller, 0775); },
       "'@/group' is writable by its group (mode 0775)"},
      {"a world-writable file",
       [](const TrustTest& t) {
         t.dir("d", k_caller, 0755);
         return t.file("d/a.yaml", k_caller, 0666);
       },
       "'@/d/a.yaml' is writable by others (mode 0666)"},
      {"the path itself world-writable with the sticky bit",
       [](const TrustTest& t) { return t.dir("sticky", 0, 01777); }, "'@/sticky' is writable by others (mode 1777)"},
      {"a parent writable by others without the sticky bit (the entry could be renamed away)",
       [](const TrustTest& t) {
         t.dir("open", 0, 0777);
         return t.dir("open/mine", k_caller, 0755);
       },
       "'@/open' is writable by others (mode 0777) and has no sticky bit"},
      {"a parent another user owns",
       [](const TrustTest& t) {
         t.dir("theirs", k_other, 0755);
         return t.dir("theirs/mine", k_caller, 0755);
       },
       "'@/theirs' is owned by uid 64102, not by you (uid 64101) or root"},
      {"another user's entry in a sticky directory (/tmp/share of a binary in /tmp/x)",
       [](const TrustTest& t) {
         t.dir("tmp", 0, 01777);
         t.dir("tmp/share", k_other, 0755);
         return t.dir("tmp/share/systems", k_other, 0755);
       },
       "'@/tmp/share' is owned by uid 64102, not by you (uid 64101) or root"},
      {"a missing path below another user's directory",
       [](const TrustTest& t) {
         t.dir("theirs", k_other, 0777);
         return t.at("theirs/env");
       },
       "'@/theirs' is owned by uid 64102, not by you (uid 64101) or root"},
      {"another user's symbolic link to the caller's directory",
       [](const TrustTest& t) {
         t.dir("tmp", 0, 01777);
         t.dir("mine", k_caller, 0755);
         return t.link("tmp/link", t.at("mine"), k_other);
       },
       "'@/tmp/link' is owned by uid 64102, not by you (uid 64101) or root"},
      {"the caller's symbolic link to another user's directory",
       [](const TrustTest& t) {
         t.dir("theirs", k_other, 0755);
         return t.link("link", "theirs", k_caller);
       },
       "'@/theirs' is owned by uid 64102, not by you (uid 64101) or root"},
      {"'..' after a link leads to the link target's parent",
       [](const TrustTest& t) {
         t.dir("theirs", k_other, 0755);
         t.dir("theirs/sub", k_caller, 0755);
         t.dir("mine", k_caller, 0755);
         t.link("mine/up", t.at("theirs/sub"), k_caller);
         return t.at("mine/up/../sub");
       },
       "'@/theirs' is owned by uid 64102, not by you (uid 64101) or root"},
  };
  for (const auto& test_case : k_cases) {
    SCOPED_TRACE(test_case.name);
    std::string path = test_case.make(*this);
    std::string expected = test_case.expected;
    expected.replace(expected.find('@'), 1, m_root);
    EXPECT_EQ(verdict(path), expected);
    std::system(("rm -rf '" + m_root + "'/*").c_str());
  }
}

TEST_F(TrustTest, WhatTheRuleAllows) {
  // The caller's entry in a sticky, world-writable directory (/tmp/env); a missing path below a trusted
  // directory (yeet creates it); the caller's link to the caller's directory.
  dir("tmp", 0, 01777);
  dir("tmp/env", k_caller, 0755);
  EXPECT_EQ(verdict(at("tmp/env")), "");
  EXPECT_EQ(verdict(at("tmp/missing/deeper")), "");
  dir("mine", k_caller, 0755);
  link("tmp/link", at("mine"), k_caller);
  EXPECT_EQ(verdict(at("tmp/link")), "");
  EXPECT_EQ(verdict(at("tmp/link/../env")), "");
}

TEST_F(TrustTest, ADirectoryAboveAnEntryMayBeStickyLikeTmp) {
  const TrustedUsers users{k_caller, {0}};
  dir("tmp", 0, 01777);
  EXPECT_TRUE(why_untrusted(at("tmp"), users));  // read as itself: anyone can add to it
  EXPECT_FALSE(why_untrusted(at("tmp"), users, PathRole::above_entry));
  dir("open", 0, 0777);
  auto problem = why_untrusted(at("open"), users, PathRole::above_entry);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->message(), "'" + at("open") + "' is writable by others (mode 0777) and has no sticky bit");
  dir("theirs", k_other, 01777);
  problem = why_untrusted(at("theirs"), users, PathRole::above_entry);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->reason, "is owned by uid 64102, not by you (uid 64101) or root");
}

TEST_F(TrustTest, TheOwnerOfTheBinaryCanBeTrustedToo) {
  dir("site", 500, 0755);
  auto problem = why_untrusted(at("site"), TrustedUsers{k_caller, {0, 500}});
  EXPECT_FALSE(problem) << problem->message();
  problem = why_untrusted(file("site/x.yaml", k_other, 0644), TrustedUsers{k_caller, {0, 500}});
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->reason, "is owned by uid 64102, not by you (uid 64101), root or uid 500 (the owner of this ezpz)");
}

TEST_F(TrustTest, ForeignEntryFindsWhatTheOwnerDoesNotOwnAnywhereInATree) {
  dir("dest", k_caller, 0755);
  dir("dest/lib", k_caller, 0777);
  file("dest/lib/mod.py", k_caller, 0644);
  EXPECT_FALSE(foreign_entry(at("dest"), k_caller));
  EXPECT_FALSE(foreign_entry(at("missing"), k_caller));
  file("dest/lib/evil.pth", k_other, 0644);
  auto problem = foreign_entry(at("dest"), k_caller);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->message(), "'" + at("dest/lib/evil.pth") + "' is owned by uid 64102, not by you (uid 64101)");
  EXPECT_TRUE(foreign_entry(at("dest"), k_other));  // the top is the first entry checked
}

}  // namespace
}  // namespace ezpz::core
