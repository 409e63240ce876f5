// DEST patterns: %n, %r, %%, $VAR and ${VAR}, and the paths yeet refuses to replace.
#include "ezpz/yeet/dest_pattern.hpp"

#include <gtest/gtest.h>

#include "ezpz/util/error.hpp"

namespace ezpz::yeet {
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

TEST(NodeName, PrefersTheExplicitNameThenSlurmThenTheHost) {
  EXPECT_EQ(node_name(table_env({{"EZPZ_NODE_NAME", "a"}, {"SLURMD_NODENAME", "n1"}})), "a");
  EXPECT_EQ(node_name(table_env({{"SLURMD_NODENAME", "n1"}})), "n1");
  EXPECT_EQ(node_name(table_env({{"EZPZ_NODE_NAME", ""}, {"SLURMD_NODENAME", "n2"}})), "n2");
  EXPECT_FALSE(node_name(table_env({})).empty());
}

}  // namespace
}  // namespace ezpz::yeet
