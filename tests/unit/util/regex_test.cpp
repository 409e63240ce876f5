// The one regular-expression engine: RE2's syntax, bytes, groups, and time linear in the text.
#include "ezpz/util/regex.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

Regex compiled(const std::string& pattern) {
  return compile_regex(pattern, {}, "test");
}

TEST(Regex, SearchesMatchesAndCaptures) {
  EXPECT_TRUE(compiled("login-[0-9]+").search("sophia-login-02"));
  EXPECT_FALSE(compiled("^login").search("sophia-login-02"));
  auto groups = compiled(R"(^([0-9]+(_[0-9]+)?)(;[A-Za-z0-9_-]+)?$)").full_match_groups("4242;cluster");
  ASSERT_TRUE(groups);
  EXPECT_EQ((*groups)[1], "4242");
  EXPECT_EQ((*groups)[2], std::nullopt) << "a group that took no part";
  EXPECT_EQ((*groups)[3], ";cluster");
  EXPECT_FALSE(compiled("[0-9]+").full_match_groups("42x")) << "a full match covers the whole text";
  EXPECT_EQ(compiled(R"(\$\{([A-Za-z_]+)\})").replace_all("/a/${USER}/${X}", R"($\1)"), "/a/$USER/$X");
  EXPECT_TRUE(compiled("(?m)^slurm [0-9]").search("x\nslurm 23.02")) << "(?m): ^ at every line";
}

TEST(Regex, TextIsBytes) {
  // A rank's output need not be UTF-8: '.' takes any byte but a newline, as std::regex did.
  EXPECT_TRUE(
      compiled("^a.b$").search("a\xff"
                               "b"));
  EXPECT_TRUE(compiled("café").search("un café noir"));
}

TEST(Regex, WhatRe2RefusesIsAUserErrorAtItsPlace) {
  EXPECT_EQ(regex_problem("^(x+)$"), "");
  EXPECT_NE(regex_problem("(("), "");
  EXPECT_NE(regex_problem(R"((a)\1)"), "") << "no backreferences";
  EXPECT_NE(regex_problem("a(?=b)"), "") << "no lookaround";
  auto source = make_source("p.yaml", "regex: '(('\n");
  try {
    compile_regex("((", SourceLoc{source, 1, 8, 4}, "failover.patterns 'x'");
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    const Diagnostic& d = error.diagnostics().at(0);
    EXPECT_EQ(d.loc.describe(), "p.yaml:1:8");
    EXPECT_EQ(d.message, "'failover.patterns 'x'' is not a regular expression: '((': " + regex_problem("(("));
    EXPECT_EQ(regex_problem("(("), "missing ): ((");
    EXPECT_NE(d.hint.find("RE2"), std::string::npos) << d.hint;
  }
}

// Patterns std::regex backtracked on for ever, on inputs it recursed on once per byte until the stack
// ran out: each ends at once (the budget: a second for all of them).
TEST(Regex, CatastrophicPatternsOnLongTextEndWithinASecond) {
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(compiled("^(a|a)*$").search(std::string(100000, 'a') + "b"));
  EXPECT_FALSE(compiled("(x+x+)+y").search(std::string(100000, 'x')));
  EXPECT_FALSE(compiled("^(a+)+$").search(std::string(100000, 'a') + "!"));
  auto groups = compiled("^([0-9]+)$").full_match_groups(std::string(1'000'000, '7'));
  ASSERT_TRUE(groups);
  EXPECT_EQ((*groups)[1]->size(), 1'000'000u);
  EXPECT_TRUE(compiled("^sophia-login-[0-9]+").search("sophia-login-" + std::string(1'000'000, '1')));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(QuotedCut, ShowsAPrefixAndTheLength) {
  EXPECT_EQ(quoted_cut("short"), "'short'");
  EXPECT_EQ(quoted_cut(std::string(30000, '1'), 5), "'11111…' (30000 bytes)");
  EXPECT_EQ(quoted_cut("\x1b[2Jhello", 4), "'\\x1b[2J…' (9 bytes)") << "escapes shown, never sent";
  EXPECT_EQ(quoted_cut("aé", 2), "'a…' (3 bytes)") << "never inside a UTF-8 character";
}

}  // namespace
}  // namespace ezpz::core
