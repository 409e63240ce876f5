// Shell quoting, command splitting, suggestions, prefixes and paths under a directory.
#include "ezpz/util/text.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "ezpz/util/file.hpp"

namespace ezpz::core {
namespace {

// What /bin/sh makes of `echo <quoted>`: the quoted word must come back unchanged.
std::string through_shell(const std::string& word) {
  std::string command = "printf '%s' " + shell_quote(word);
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[256];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  pclose(pipe);
  return out;
}

TEST(ShellQuote, LeavesPlainWordsAlone) {
  EXPECT_EQ(shell_quote("python3"), "python3");
  EXPECT_EQ(shell_quote("--lr=3e-4"), "--lr=3e-4");
  EXPECT_EQ(shell_quote("/flare/a_b/c.d"), "/flare/a_b/c.d");
  EXPECT_EQ(shell_quote("list:1-8:9-16"), "list:1-8:9-16");
}

TEST(ShellQuote, QuotesEverythingElse) {
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$(rm -rf /)"), "'$(rm -rf /)'");
  EXPECT_EQ(shell_quote("=x"), "'=x'");
}

TEST(ShellQuote, KeepsABackslashOutOfTheClosingQuote) {
  // 'a\' is right, but shellcheck reads it as an escaped quote (SC1003).
  EXPECT_EQ(shell_quote("a\\"), "'a'\\\\");
  EXPECT_EQ(shell_quote("a\\'b"), "'a'\\\\\\''b'");
  EXPECT_EQ(shell_quote("a\\b"), "'a\\b'");
  EXPECT_EQ(shell_quote("'"), "\\'");
  EXPECT_EQ(shell_quote("\\"), "\\\\");
}

TEST(ShellQuote, RoundTripsThroughARealShell) {
  for (std::string word : {"$(touch /tmp/pwned)",
                           "`id`",
                           "a'b\"c",
                           "semi;colon",
                           "new\nline",
                           "*",
                           "~user",
                           "back\\slash",
                           "tab\there",
                           "!bang",
                           "{a,b}",
                           "x=$HOME",
                           "  ",
                           "ümlaut",
                           "trail\\",
                           "\\",
                           "\\'",
                           "'",
                           "''",
                           "a\\\\'\\"}) {
    EXPECT_EQ(through_shell(word), word);
  }
}

TEST(SplitCommandWords, SplitsLikeAShellWithoutExpanding) {
  std::string why;
  using V = std::vector<std::string>;
  EXPECT_EQ(*split_command_words("python3 train.py --lr 3e-4", &why), (V{"python3", "train.py", "--lr", "3e-4"}));
  EXPECT_EQ(*split_command_words("a 'b c' \"d e\" f\\ g", &why), (V{"a", "b c", "d e", "f g"}));
  EXPECT_EQ(*split_command_words("echo $HOME; rm", &why), (V{"echo", "$HOME;", "rm"}));
  EXPECT_EQ(*split_command_words("'' x", &why), (V{"", "x"}));
  EXPECT_EQ(*split_command_words("  ", &why), V{});
  EXPECT_EQ(*split_command_words("\"a \\\"q\\\" \\$x\"", &why), (V{"a \"q\" $x"}));
  EXPECT_FALSE(split_command_words("a 'b", &why));
  EXPECT_NE(why.find("single"), std::string::npos);
  EXPECT_FALSE(split_command_words("a \"b", &why));
}

TEST(ClosestMatch, SuggestsOnlyLikelyTypos) {
  std::vector<std::string> keys = {"walltime", "nodes", "queue", "account"};
  EXPECT_EQ(closest_match("walltme", keys), "walltime");
  EXPECT_EQ(closest_match("nodse", keys), "nodes");
  EXPECT_EQ(closest_match("acount", keys), "account");
  EXPECT_EQ(closest_match("nodse", keys), "nodes");  // a transposition is one edit
  EXPECT_EQ(closest_match("zzzzzz", keys), "");
  EXPECT_EQ(suggestion_hint("zzzzzz", {"a", "b"}), "expected 'a' or 'b'");
  EXPECT_EQ(suggestion_hint("walltme", keys), "did you mean 'walltime'?");
}

TEST(EditDistance, CountsEdits) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(StripPrefix, GivesTheRestOnlyAfterThePrefix) {
  EXPECT_EQ(strip_prefix("NodeName=n1", "NodeName="), std::optional<std::string_view>("n1"));
  EXPECT_EQ(strip_prefix("NodeName=", "NodeName="), std::optional<std::string_view>(""));
  EXPECT_EQ(strip_prefix("abc", ""), std::optional<std::string_view>("abc"));
  EXPECT_EQ(strip_prefix("State=IDLE", "NodeName="), std::nullopt);
  EXPECT_EQ(strip_prefix("Node", "NodeName="), std::nullopt);
}

TEST(PathIsUnder, ComparesWholeComponents) {
  EXPECT_TRUE(path_is_under("/local/scratch", "/local/scratch"));
  EXPECT_TRUE(path_is_under("/local/scratch/env", "/local/scratch"));
  EXPECT_TRUE(path_is_under("/local/scratch/env", "/local/scratch/"));
  EXPECT_TRUE(path_is_under("/local/scratch", "/local/scratch/"));
  EXPECT_FALSE(path_is_under("/local/scratch2", "/local/scratch"));
  EXPECT_FALSE(path_is_under("/local/scratch2/env", "/local/scratch/"));
  EXPECT_FALSE(path_is_under("/local", "/local/scratch"));
  EXPECT_TRUE(path_is_under("/anything", "/"));
  EXPECT_TRUE(path_is_under("/", "/"));
  EXPECT_FALSE(path_is_under("relative", "/"));
  EXPECT_FALSE(path_is_under("/a", ""));
}

TEST(Printable, EscapesControlCharacters) {
  EXPECT_EQ(printable("a\nb\tc\x1b"), "a\\nb\\tc\\x1b");
  EXPECT_EQ(printable("plain"), "plain");
}

}  // namespace
}  // namespace ezpz::core
