// DEST patterns: %n, %r, %%, $VAR and ${VAR}, the paths yeet refuses to replace, DEST inside SRC.
#include "ezpz/yeet/dest_pattern.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "ezpz/util/error.hpp"
#include "yeet_tree.hpp"

namespace ezpz::core::yeet {
namespace {

const EnvLookup k_env = table_env({{"USER", "alice"}, {"SCRATCH", "/local/scratch"}, {"EMPTY", ""}});

struct Case {
  std::string pattern;
  std::string expected;
};

class ExpandDest : public testing::TestWithParam<Case> {};

TEST_P(ExpandDest, ExpandsEverySequence) {
  EXPECT_EQ(expand_dest(GetParam().pattern, "x1000c0s0b0n0", 3, k_env), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(Patterns, ExpandDest,
                         testing::Values(Case{"/tmp/env", "/tmp/env"}, Case{"/tmp/env/", "/tmp/env"},
                                         Case{"/tmp/%n/env", "/tmp/x1000c0s0b0n0/env"}, Case{"/tmp/r%r", "/tmp/r3"},
                                         Case{"/tmp/100%%", "/tmp/100%"},
                                         Case{"/mnt/bb/$USER/env", "/mnt/bb/alice/env"},
                                         Case{"${SCRATCH}/env-%r", "/local/scratch/env-3"},
                                         Case{"/tmp/$USER$EMPTY/x", "/tmp/alice/x"}, Case{"/tmp/cost$", "/tmp/cost$"},
                                         Case{"/tmp/a$1", "/tmp/a$1"}));

TEST(ExpandDest, RefusesWhatItCannotExpandOrMustNotReplace) {
  for (const char* pattern : {"/tmp/%x", "/tmp/%", "/tmp/$NOPE/env", "/tmp/${USER", "/tmp/${1x}", "relative/env", "/",
                              "//", "/tmp/..", "/tmp/.", "$EMPTY"}) {
    EXPECT_THROW(expand_dest(pattern, "n1", 0, k_env), UserError) << pattern;
  }
}

TEST(ExpandDest, NamesTheUnsetVariable) {
  try {
    expand_dest("/tmp/$NOPE", "n1", 0, k_env);
    FAIL() << "no error";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(), "DEST '/tmp/$NOPE' uses $NOPE, which is not set");
  }
}

// The message check_dest_outside_src throws; "" when it throws none.
std::string inside_error(const std::string& src, const std::string& dest) {
  try {
    check_dest_outside_src(src, dest);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

TEST(CheckDestOutsideSrc, RefusesDestInsideSrcOnceLinksAreResolved) {
  test::TempDir dir;
  std::string base = std::filesystem::canonical(dir.path()).string();
  ::mkdir((base + "/src").c_str(), 0755);
  ::mkdir((base + "/src/sub").c_str(), 0755);
  ::symlink((base + "/src").c_str(), (base + "/link").c_str());
  EXPECT_EQ(inside_error(base + "/src", base + "/src/copy"),
            "DEST '" + base + "/src/copy' is inside SRC '" + base + "/src': each run would copy the copies again");
  EXPECT_EQ(inside_error(base + "/src", base + "/link/new/copy"),
            "DEST '" + base + "/link/new/copy' is inside SRC '" + base + "/src' (it is '" + base +
                "/src/new/copy'): each run would copy the copies again");
  EXPECT_NE(inside_error(base + "/link", base + "/src/sub"), "");
  EXPECT_NE(inside_error(base + "/src", base + "/src"), "");
  EXPECT_EQ(inside_error(base + "/src", base + "/src-copy"), "") << "a longer name is not inside";
  EXPECT_EQ(inside_error(base + "/src/sub", base + "/src/copy"), "");
  EXPECT_EQ(inside_error(base + "/missing", base + "/missing/copy"), "") << "the scan reports a missing SRC";
}

TEST(NodeName, PrefersTheExplicitNameThenSlurmThenTheHost) {
  EXPECT_EQ(node_name(table_env({{"EZPZ_NODE_NAME", "a"}, {"SLURMD_NODENAME", "n1"}})), "a");
  EXPECT_EQ(node_name(table_env({{"SLURMD_NODENAME", "n1"}})), "n1");
  EXPECT_EQ(node_name(table_env({{"EZPZ_NODE_NAME", ""}, {"SLURMD_NODENAME", "n2"}})), "n2");
  EXPECT_FALSE(node_name(table_env({})).empty());
}

}  // namespace
}  // namespace ezpz::core::yeet
