// Host lists: Slurm node-list expansion (several bracket groups, padding), compression into grids,
// first host, PBS nodefiles, located errors, and a comparison with Slurm's own `scontrol`.
//
// Padding follows Slurm (checked against scontrol below): a range is printed as wide as its lower bound
// is written. "[08-10]" → 08 09 10, "[8-10]" → 8 9 10, "[098-101]" → 098 099 100 101, "[1-003]" → 1 2 3
// (the upper bound's width does not matter), "[00-2]" → 00 01 02.
#include "ezpz/util/hostlist.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "../cannot_run.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

using Hosts = std::vector<std::string>;

// --- a reference order, written independently of the library -----------------------------------

// "x1000c0s12b0n0" → tokens "x", 1000, "c", 0, "s", 12, … ; numbers compare by value, then by written
// length ("nid9" < "nid10" < "nid010"), text as text.
struct Token {
  bool number;
  std::string text;
  unsigned long long value;
};

std::vector<Token> tokens(const std::string& host) {
  std::vector<Token> out;
  std::string text;
  for (size_t i = 0; i < host.size();) {
    if (!std::isdigit(static_cast<unsigned char>(host[i]))) {
      text += host[i++];
      continue;
    }
    size_t end = i;
    while (end < host.size() && std::isdigit(static_cast<unsigned char>(host[end]))) ++end;
    out.push_back(Token{false, text, 0});
    text.clear();
    out.push_back(Token{true, host.substr(i, end - i), std::stoull(host.substr(i, end - i))});
    i = end;
  }
  out.push_back(Token{false, text, 0});
  return out;
}

bool natural_less(const std::string& a, const std::string& b) {
  auto x = tokens(a);
  auto y = tokens(b);
  for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    if (x[i].number) {
      if (x[i].value != y[i].value) return x[i].value < y[i].value;
      if (x[i].text.size() != y[i].text.size()) return x[i].text.size() < y[i].text.size();
    } else if (x[i].text != y[i].text) {
      return x[i].text < y[i].text;
    }
  }
  return x.size() < y.size();
}

// What compress_hostlist promises its list expands to: no empty names, sorted, unique.
Hosts sorted_unique(Hosts hosts) {
  hosts.erase(std::remove(hosts.begin(), hosts.end(), std::string()), hosts.end());
  std::sort(hosts.begin(), hosts.end(), natural_less);
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  return hosts;
}

std::string joined(const Hosts& hosts) {
  return join(hosts, " ");
}

// --- expansion -----------------------------------------------------------------------------------

struct ExpandCase {
  const char* list;
  Hosts hosts;
};

void PrintTo(const ExpandCase& c, std::ostream* out) {
  *out << "'" << c.list << "'";
}

class HostlistExpand : public ::testing::TestWithParam<ExpandCase> {};

TEST_P(HostlistExpand, Expands) {
  EXPECT_EQ(joined(expand_hostlist(GetParam().list)), joined(GetParam().hosts)) << GetParam().list;
}

INSTANTIATE_TEST_SUITE_P(PlainNames, HostlistExpand,
                         ::testing::Values(ExpandCase{"", {}}, ExpandCase{"nid001", {"nid001"}},
                                           ExpandCase{"login-1.example.org", {"login-1.example.org"}},
                                           ExpandCase{"a,b,c", {"a", "b", "c"}},
                                           ExpandCase{"c,a,b,a", {"c", "a", "b", "a"}},  // order and duplicates kept
                                           ExpandCase{"nid007,nid003", {"nid007", "nid003"}}));

INSTANTIATE_TEST_SUITE_P(
    SingleGroup, HostlistExpand,
    ::testing::Values(ExpandCase{"nid[1-3]", {"nid1", "nid2", "nid3"}}, ExpandCase{"nid[5]", {"nid5"}},
                      ExpandCase{"nid[1,3,5]", {"nid1", "nid3", "nid5"}},
                      ExpandCase{"nid[3,1-2]", {"nid3", "nid1", "nid2"}},  // ranges in the order written
                      ExpandCase{"nid[1-2,2]", {"nid1", "nid2", "nid2"}}, ExpandCase{"[1-2]", {"1", "2"}},
                      ExpandCase{"[1-2]a", {"1a", "2a"}}, ExpandCase{"nid[0-2]", {"nid0", "nid1", "nid2"}}));

INSTANTIATE_TEST_SUITE_P(
    Padding, HostlistExpand,
    ::testing::Values(
        ExpandCase{"nid[001-003,010]", {"nid001", "nid002", "nid003", "nid010"}},
        ExpandCase{"nid[08-10]", {"nid08", "nid09", "nid10"}}, ExpandCase{"nid[8-10]", {"nid8", "nid9", "nid10"}},
        ExpandCase{"nid[098-101]", {"nid098", "nid099", "nid100", "nid101"}},
        // The width is the lower bound's written width, whatever the upper bound says (Slurm).
        ExpandCase{"nid[1-003]", {"nid1", "nid2", "nid3"}}, ExpandCase{"nid[001-3]", {"nid001", "nid002", "nid003"}},
        ExpandCase{"nid[00-2]", {"nid00", "nid01", "nid02"}}, ExpandCase{"nid[9-11]", {"nid9", "nid10", "nid11"}},
        ExpandCase{"nid[0998-1001]", {"nid0998", "nid0999", "nid1000", "nid1001"}},
        ExpandCase{"nid[07,8,009]", {"nid07", "nid8", "nid009"}},
        // A number gaining a digit mid-range, then the next range, then the next outer value.
        ExpandCase{"n[8-10,5]x", {"n8x", "n9x", "n10x", "n5x"}},
        ExpandCase{"a[1-2]b[9-10]", {"a1b9", "a1b10", "a2b9", "a2b10"}},
        ExpandCase{"n[99-101,7]", {"n99", "n100", "n101", "n7"}}));

INSTANTIATE_TEST_SUITE_P(
    SeveralGroups, HostlistExpand,
    ::testing::Values(
        // The leftmost group varies slowest.
        ExpandCase{"x1000c[0-1]s[0-1]b0n0", {"x1000c0s0b0n0", "x1000c0s1b0n0", "x1000c1s0b0n0", "x1000c1s1b0n0"}},
        ExpandCase{"x[1-2]y[1-2]z[1-2]",
                   {"x1y1z1", "x1y1z2", "x1y2z1", "x1y2z2", "x2y1z1", "x2y1z2", "x2y2z1", "x2y2z2"}},
        ExpandCase{"c[1,0]s[01-02]", {"c1s01", "c1s02", "c0s01", "c0s02"}}));

INSTANTIATE_TEST_SUITE_P(Suffixes, HostlistExpand,
                         ::testing::Values(ExpandCase{"a[1-2]b[3-4]c", {"a1b3c", "a1b4c", "a2b3c", "a2b4c"}},
                                           ExpandCase{"nid[1-2]-ib", {"nid1-ib", "nid2-ib"}},
                                           ExpandCase{"gpu[01-02].hsn.example",
                                                      {"gpu01.hsn.example", "gpu02.hsn.example"}},
                                           ExpandCase{"a[1-2][3-4]", {"a13", "a14", "a23", "a24"}}));

INSTANTIATE_TEST_SUITE_P(
    Mixed, HostlistExpand,
    ::testing::Values(ExpandCase{"login1,nid[001-002,010],x1000c[0-1]s0b0n[0-1],gpu[08-10]-ib,a[1-2]b[3-4]c",
                                 {"login1", "nid001", "nid002", "nid010", "x1000c0s0b0n0", "x1000c0s0b0n1",
                                  "x1000c1s0b0n0", "x1000c1s0b0n1", "gpu08-ib", "gpu09-ib", "gpu10-ib", "a1b3c",
                                  "a1b4c", "a2b3c", "a2b4c"}},
                      ExpandCase{"a[1-2],a[1-2]", {"a1", "a2", "a1", "a2"}}));

TEST(HostlistExpand, TenThousandNodes) {
  Hosts hosts = expand_hostlist("nid[000001-010000]");
  ASSERT_EQ(hosts.size(), 10000u);
  EXPECT_EQ(hosts.front(), "nid000001");
  EXPECT_EQ(hosts[4999], "nid005000");
  EXPECT_EQ(hosts.back(), "nid010000");
}

// --- errors --------------------------------------------------------------------------------------

struct ErrorCase {
  const char* list;
  const char* message;
  int column;      // 1-based
  int length = 1;  // characters underlined
  HostLimits limits = {};
};

void PrintTo(const ErrorCase& c, std::ostream* out) {
  *out << "'" << c.list << "'";
}

Diagnostic expand_error(const std::string& list, HostLimits limits = {}) {
  try {
    expand_hostlist(list, "SLURM_JOB_NODELIST", limits);
  } catch (const UserError& error) {
    EXPECT_EQ(error.diagnostics().size(), 1u);
    return error.diagnostics().front();
  }
  ADD_FAILURE() << "no error for '" << list << "'";
  return {};
}

class HostlistErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(HostlistErrors, SayWhere) {
  const ErrorCase& c = GetParam();
  Diagnostic d = expand_error(c.list, c.limits);
  EXPECT_EQ(d.message, c.message);
  ASSERT_TRUE(d.loc.known());
  EXPECT_EQ(d.loc.file->name, "SLURM_JOB_NODELIST");
  EXPECT_EQ(d.loc.file->text, c.list);
  EXPECT_EQ(d.loc.line, 1);
  EXPECT_EQ(d.loc.column, c.column);
  EXPECT_EQ(d.loc.length, c.length);
}

// A list whose range sizes add up to 2^64 + 5: a wrapping counter would think it holds 5 names.
std::string wrapping_list() {
  std::string list = "n[";
  for (int i = 0; i < 18; ++i) list += "0-999999999999999999,";
  return list + "0-446744073709551620]";
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, HostlistErrors,
    ::testing::Values(ErrorCase{"nid[1-", "malformed host list: '[' is never closed", 4},
                      ErrorCase{"nid[1-3", "malformed host list: '[' is never closed", 4},
                      ErrorCase{"nid[1,", "malformed host list: '[' is never closed", 4},
                      ErrorCase{"a,nid[", "malformed host list: '[' is never closed", 6},
                      ErrorCase{"nid]", "malformed host list: ']' without '['", 4},
                      ErrorCase{"nid[1-3]]", "malformed host list: ']' without '['", 9},
                      ErrorCase{"nid[a-b]", "malformed host list: expected a number in brackets, found 'a'", 5},
                      ErrorCase{"nid[1-b]", "malformed host list: expected a number in brackets, found 'b'", 7},
                      ErrorCase{"nid[]", "malformed host list: expected a number in brackets, found ']'", 5},
                      ErrorCase{"nid[-2]", "malformed host list: expected a number in brackets, found '-'", 5},
                      ErrorCase{"nid[1;2]", "malformed host list: expected ',', '-' or ']' in brackets, found ';'", 6},
                      ErrorCase{"nid[1-2-3]", "malformed host list: expected ',' or ']' in brackets, found '-'", 8},
                      ErrorCase{"nid[1[2]]", "malformed host list: expected ',', '-' or ']' in brackets, found '['", 6},
                      ErrorCase{"nid[3-1]", "malformed host list: range '3-1' goes down", 5, 3},
                      ErrorCase{"nid[1,10-09]", "malformed host list: range '10-09' goes down", 7, 5},
                      ErrorCase{"a,,b", "malformed host list: empty name", 3},
                      ErrorCase{",a", "malformed host list: empty name", 1},
                      ErrorCase{"a,", "malformed host list: trailing ','", 2},
                      ErrorCase{"nid[1-3],", "malformed host list: trailing ','", 9},
                      ErrorCase{"a b", "malformed host list: whitespace in a host list", 2},
                      ErrorCase{"a,\tb", "malformed host list: whitespace in a host list", 3},
                      ErrorCase{"n[1234567890123456789]", "malformed host list: number longer than 18 digits", 3, 19}));

INSTANTIATE_TEST_SUITE_P(
    TooMany, HostlistErrors,
    ::testing::Values(
        // The name that crosses the limit is underlined.
        ErrorCase{"a,nid[1-10]", "host list expands to more than 5 names", 3, 9, {5}},
        ErrorCase{"a[1-3],b[1-3]", "host list expands to more than 5 names", 8, 6, {5}},
        ErrorCase{"x[0-9]y[0-9]z[0-9]", "host list expands to more than 999 names", 1, 18, {999}},
        ErrorCase{"ab[1-3],c", "host list expands to more than 8 bytes of names", 1, 7, {10, 8}},
        ErrorCase{"a,nid[1-10]", "host list expands to more than 20 bytes of names", 3, 9, {100, 20}},
        // The lists: a few bytes that name billions of hosts, counted, not expanded.
        ErrorCase{"nid[0-999999999999]", "host list expands to more than 1000000 names", 1, 19},
        ErrorCase{"n[0-99999999999]", "host list expands to more than 1000000 names", 1, 16},
        ErrorCase{"a[0-99999]b[0-99999]", "host list expands to more than 1000000 names", 1, 20},
        ErrorCase{"a[0-999999],b[0-999999]", "host list expands to more than 1000000 names", 13, 11},
        // 10^36 names: the product saturates instead of wrapping around.
        ErrorCase{"n[0-999999999999999999]m[0-999999999999999999]", "host list expands to more than 1000000 names", 1,
                  46}));

TEST(HostlistErrors, ExactlyMaxHostsIsFine) {
  EXPECT_EQ(expand_hostlist("a[1-3],b[1-2]", "list", {5}).size(), 5u);
  EXPECT_EQ(expand_hostlist("x[0-9]y[0-9]z[0-9]", "list", {1000}).size(), 1000u);
  EXPECT_EQ(expand_hostlist("ab[1-3],c", "list", {10, 10}).size(), 4u);  // 3 + 3 + 3 + 1 bytes
}

// 1,000,000 names of 206 bytes: within the name count, but 206 MB of names (10,000,000 such names, 2 GB,
// came from a 213-byte SLURM_JOB_NODELIST before there was a bound on bytes).
TEST(HostlistErrors, LongNamesAreBoundedInBytes) {
  std::string list = std::string(200, 'x') + "[0-999999]";
  Diagnostic d = expand_error(list);
  EXPECT_EQ(d.message, "host list expands to more than " + std::to_string(k_max_host_bytes) +
                           " bytes of names (character 1 of " + std::to_string(list.size()) + ")");
  EXPECT_EQ(expand_hostlist("x[1000-1999]c0s[0-7]b0n0.hostmgmt2102.cm.aurora.alcf.anl.gov").size(), 8000u);
}

// The bound covers several lists that go to one output (`ezpz hostlist expand A B`).
TEST(HostlistErrors, EarlierListsCountAgainstTheBound) {
  EXPECT_EQ(expand_hostlist("a[1-3]", "list", {5}, {2, 0}).size(), 3u);
  try {
    expand_hostlist("a[1-3]", "list", {5}, {3, 0});
    ADD_FAILURE() << "no error";
  } catch (const UserError& error) {
    EXPECT_EQ(error.diagnostics().front().message, "host list expands to more than 5 names");
  }
  EXPECT_THROW(expand_hostlist("ab", "list", {5, 10}, {1, 9}), UserError);
}

// Widths and lengths of numbers: leading zeros up to 18 digits are kept, longer numbers are an error,
// never an overflow.
TEST(HostlistNumbers, WidthsAndLengthsStayInBounds) {
  EXPECT_EQ(joined(expand_hostlist("n[000000000000000098-000000000000000101]")),
            "n000000000000000098 n000000000000000099 n000000000000000100 n000000000000000101");
  EXPECT_EQ(joined(expand_hostlist("n[999999999999999998-999999999999999999]")),
            "n999999999999999998 n999999999999999999");
  EXPECT_EQ(expand_error("n[0000000000000000009-10]").message, "malformed host list: number longer than 18 digits")
      << "19 digits, even as leading zeros";
  EXPECT_EQ(expand_error("n[000000000000000000000000000001]").message,
            "malformed host list: number longer than 18 digits");
  EXPECT_EQ(expand_error("n[1-123456789012345678901234567890]").message,
            "malformed host list: number longer than 18 digits");
  EXPECT_EQ(expand_error("n[0-999999999999999999]").message, "host list expands to more than 1000000 names");
  EXPECT_EQ(first_host("n[000000000000000007-999999999999999999]"), "n000000000000000007");
}

TEST(ReadNodefile, IsBoundedInHosts) {
  EXPECT_EQ(read_nodefile("a\na\nb\nb\n", "the host file PBS_NODEFILE=f", 2).size(), 2u) << "repeats are one host";
  try {
    read_nodefile("a\nb\nc\n", "the host file PBS_NODEFILE=f", 2);
    ADD_FAILURE() << "no error";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()), "the host file PBS_NODEFILE=f names more than 2 different hosts");
  }
}

TEST(HostlistErrors, CountsDoNotWrapAround) {
  std::string list = wrapping_list();
  Diagnostic d = expand_error(list);
  EXPECT_EQ(d.message,
            "host list expands to more than 1000000 names (character 1 of " + std::to_string(list.size()) + ")");
}

TEST(HostlistErrors, HintsHowToFix) {
  EXPECT_EQ(expand_error("nid[3-1]").hint, "write the lower bound first: '1-3'");
  EXPECT_EQ(expand_error("nid[1-").hint, "add the missing ']'");
  EXPECT_EQ(expand_error("a,,b").hint, "remove the extra ','");
}

// A long list is shown around the error only; the message says where in the whole list it is.
TEST(HostlistErrors, LongListShowsAWindow) {
  std::string list;
  for (int i = 1; i <= 100; ++i) list += "nid" + std::to_string(1000 + i) + ",";
  size_t bad = list.size() + 3;  // 0-based position of the '['
  list += "nid[1-2";
  Diagnostic d = expand_error(list);
  EXPECT_EQ(d.message, "malformed host list: '[' is never closed (character " + std::to_string(bad + 1) + " of " +
                           std::to_string(list.size()) + ")");
  ASSERT_TRUE(d.loc.known());
  const std::string& shown = d.loc.file->text;
  EXPECT_LT(shown.size(), 70u);
  EXPECT_EQ(shown.substr(0, 3), "...");
  EXPECT_EQ(shown.substr(shown.size() - 7), "nid[1-2");
  EXPECT_EQ(shown[static_cast<size_t>(d.loc.column - 1)], '[') << shown;
  // The formatted error stays short and the caret sits under the '['.
  std::string text = format_diagnostic(d);
  EXPECT_LT(text.size(), 400u) << text;
  EXPECT_NE(text.find("^"), std::string::npos);
}

TEST(HostlistErrors, FormattedWithACaret) {
  Diagnostic d = expand_error("nid[3-1]");
  EXPECT_EQ(format_diagnostic(d),
            "ezpz: SLURM_JOB_NODELIST nid[3-1]: error: malformed host list: range '3-1' goes down\n"
            "  nid[3-1]\n"
            "      ^~~\n"
            "  hint: write the lower bound first: '1-3'\n");
}

// --- first host ----------------------------------------------------------------------------------

TEST(HostlistFirstHost, IsTheFirstExpandedName) {
  for (const char* list : {"nid[003-005],a", "x1000c[3-4]s[5,1]b0n0", "nid[3,1-2]", "a", "b,a", "[08-10]x", "nid[9-11]",
                           "login1,nid[001-002,010]"}) {
    EXPECT_EQ(first_host(list), expand_hostlist(list).front()) << list;
  }
  EXPECT_EQ(first_host("x1000c[3-4]s[5,1]b0n0"), "x1000c3s5b0n0");
}

TEST(HostlistFirstHost, DoesNotExpand) {
  EXPECT_EQ(first_host("nid[000000000000-999999999999]"), "nid000000000000");
  EXPECT_EQ(first_host(wrapping_list()), "n0");
}

TEST(HostlistFirstHost, ChecksTheWholeList) {
  EXPECT_THROW(first_host("a,,b"), UserError);
  EXPECT_THROW(first_host("a,nid[1-"), UserError);
  try {
    first_host("", "PBS_NODEFILE");
    FAIL() << "no error for an empty list";
  } catch (const UserError& error) {
    EXPECT_EQ(error.diagnostics().front().message, "empty host list");
    EXPECT_EQ(error.diagnostics().front().loc.file->name, "PBS_NODEFILE");
  }
}

// --- compression ---------------------------------------------------------------------------------

struct CompressCase {
  Hosts hosts;
  const char* list;
};

void PrintTo(const CompressCase& c, std::ostream* out) {
  *out << "'" << c.list << "'";
}

class HostlistCompress : public ::testing::TestWithParam<CompressCase> {};

TEST_P(HostlistCompress, Compresses) {
  EXPECT_EQ(compress_hostlist(GetParam().hosts), GetParam().list);
  // And the list expands to the names sorted and deduplicated.
  EXPECT_EQ(joined(expand_hostlist(GetParam().list)), joined(sorted_unique(GetParam().hosts)));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, HostlistCompress,
    ::testing::Values(CompressCase{{}, ""}, CompressCase{{""}, ""}, CompressCase{{"a"}, "a"},
                      CompressCase{{"b", "a", "b", ""}, "a,b"},
                      CompressCase{{"nid001", "nid002", "nid003", "nid010"}, "nid[001-003,010]"},
                      CompressCase{{"nid10", "nid9", "nid10", "nid8"}, "nid[8-10]"},
                      // Widths are kept; a range continues across a power of ten when the width allows it.
                      CompressCase{{"nid08", "nid09", "nid10"}, "nid[08-10]"},
                      CompressCase{{"nid098", "nid099", "nid100", "nid101"}, "nid[098-101]"},
                      CompressCase{{"nid9", "nid010"}, "nid[9,010]"}, CompressCase{{"nid01", "nid1"}, "nid[1,01]"},
                      CompressCase{{"nid1", "nid2", "nid02", "nid03"}, "nid[1-2,02-03]"},
                      CompressCase{{"login2", "nid001", "login1", "b"}, "b,login[1-2],nid001"},
                      CompressCase{{"a1b3c", "a1b4c", "a2b3c", "a2b4c"}, "a[1-2]b[3-4]c"},
                      CompressCase{{"gpu01-ib", "gpu02-ib", "gpu03-ib"}, "gpu[01-03]-ib"},
                      // Digit runs too long to be counters stay text.
                      CompressCase{{"h1234567890123456789", "h1234567890123456790"},
                                   "h1234567890123456789,h1234567890123456790"},
                      // Only neighbours in sorted order merge, so the expansion is sorted: not "a[1,3]b5,a2b1".
                      CompressCase{{"a1b5", "a3b5", "a2b1"}, "a1b5,a2b1,a3b5"}));

// Cray names: the compressed list is a grid with one bracket group per varying field.
INSTANTIATE_TEST_SUITE_P(
    Grids, HostlistCompress,
    ::testing::Values(
        CompressCase{expand_hostlist("x1000c[0-1]s[0-7]b0n0"), "x1000c[0-1]s[0-7]b0n0"},
        CompressCase{expand_hostlist("x1000c[0-1]s[0-7]b0n[0-1]"), "x1000c[0-1]s[0-7]b0n[0-1]"},
        CompressCase{expand_hostlist("x[1000-1001]c[0-7]s[0-7]b0n[0-1]"), "x[1000-1001]c[0-7]s[0-7]b0n[0-1]"},
        // Given in any order, with duplicates.
        CompressCase{expand_hostlist("x1000c1s[0-1]b0n0,x1000c0s[1,0]b0n0,x1000c0s0b0n0"), "x1000c[0-1]s[0-1]b0n0"},
        // A partial grid: two rectangles.
        CompressCase{expand_hostlist("x1000c0s[0-7]b0n[0-1],x1000c1s[0-3]b0n[0-1]"),
                     "x1000c0s[0-7]b0n[0-1],x1000c1s[0-3]b0n[0-1]"},
        // A hole.
        CompressCase{expand_hostlist("x1000c0s[0-2]b0n[0-1],x1000c0s3b0n0,x1000c0s[4-7]b0n[0-1]"),
                     "x1000c0s[0-2]b0n[0-1],x1000c0s3b0n0,x1000c0s[4-7]b0n[0-1]"}));

TEST(HostlistCompress, RefusesNamesNoListCanHold) {
  for (const char* bad : {"a,b", "a[1]", "a]", "a b", "a\tb"}) {
    EXPECT_THROW(compress_hostlist({"ok1", bad}), UserError) << bad;
  }
}

// compress(expand(x)) expands to expand(x) sorted and deduplicated, and compressing again changes nothing.
TEST(HostlistRoundTrip, CompressThenExpandIsSortedUnique) {
  for (const char* list :
       {"nid[001-003,010]", "nid[08-10]", "nid[8-10]", "nid[098-101]", "nid[1-003]", "c,a,b,a", "nid[3,1-2],nid2",
        "x1000c[0-1]s[0-1]b0n0", "a[1-2]b[3-4]c", "login1,nid[001-002,010],x1000c[0-1]s0b0n[0-1],gpu[08-10]-ib",
        "x1000c[0-3]s[0-7]b[0-1]n[0-1],x1001c[0-3]s[0-7]b[0-1]n[0-1],uan[01-04]", "nid[000001-010000]",
        "nid[9-11],nid[09-11],nid[009-011]", "[1-3]a,[2-4]a"}) {
    Hosts hosts = expand_hostlist(list);
    std::string compressed = compress_hostlist(hosts);
    EXPECT_EQ(joined(expand_hostlist(compressed)), joined(sorted_unique(hosts))) << list << " → " << compressed;
    EXPECT_EQ(compress_hostlist(expand_hostlist(compressed)), compressed) << list;
  }
  EXPECT_EQ(compress_hostlist(expand_hostlist("x1000c[0-3]s[0-7]b[0-1]n[0-1],x1001c[0-3]s[0-7]b[0-1]n[0-1]")),
            "x[1000-1001]c[0-3]s[0-7]b[0-1]n[0-1]");
}

// Random subsets of a Cray machine, with holes, shuffled and with duplicates (fixed seed).
TEST(HostlistRoundTrip, RandomSubsetsOfACrayMachine) {
  Hosts machine = expand_hostlist("x[1000-1003]c[0-7]s[0-7]b[0-1]n[0-1],uan[01-12],nid[0998-1002]");
  std::mt19937 random(12345);
  for (int round = 0; round < 50; ++round) {
    double keep = std::uniform_real_distribution<double>(0.05, 1.0)(random);
    Hosts hosts;
    for (const auto& host : machine) {
      if (std::uniform_real_distribution<double>(0, 1)(random) < keep) hosts.push_back(host);
    }
    for (size_t i = 0; i < hosts.size() / 10; ++i) hosts.push_back(hosts[random() % hosts.size()]);
    std::shuffle(hosts.begin(), hosts.end(), random);
    std::string compressed = compress_hostlist(hosts);
    ASSERT_EQ(joined(expand_hostlist(compressed)), joined(sorted_unique(hosts))) << "round " << round;
  }
  // The whole machine is one grid per kind of name.
  EXPECT_EQ(compress_hostlist(machine), "nid[0998-1002],uan[01-12],x[1000-1003]c[0-7]s[0-7]b[0-1]n[0-1]");
}

// --- PBS nodefiles -------------------------------------------------------------------------------

struct NodefileCase {
  const char* what;
  const char* text;
  Hosts hosts;
};

void PrintTo(const NodefileCase& c, std::ostream* out) {
  *out << c.what;
}

class HostlistNodefile : public ::testing::TestWithParam<NodefileCase> {};

TEST_P(HostlistNodefile, UniqueHostsInOrder) {
  EXPECT_EQ(joined(read_nodefile(GetParam().text)), joined(GetParam().hosts));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, HostlistNodefile,
    ::testing::Values(NodefileCase{"one line per slot",
                                   "x1000c0s0b0n0\nx1000c0s0b0n0\nx1000c0s1b0n0\nx1000c0s1b0n0\n",
                                   {"x1000c0s0b0n0", "x1000c0s1b0n0"}},
                      NodefileCase{"first occurrence order", "n2\nn1\nn2\nn3\nn1\n", {"n2", "n1", "n3"}},
                      NodefileCase{"blank lines", "\nn1\n\n  \nn2\n\n", {"n1", "n2"}},
                      NodefileCase{"CRLF", "n1\r\nn1\r\nn2\r\n", {"n1", "n2"}},
                      NodefileCase{"no final newline", "n1\nn2", {"n1", "n2"}},
                      NodefileCase{"surrounding spaces", "  n1\t\n n1\nn2  \n", {"n1", "n2"}},
                      NodefileCase{"empty", "", {}}, NodefileCase{"only blank lines", "\n\r\n\n", {}},
                      NodefileCase{"interleaved slots", "a.hsn\nb.hsn\na.hsn\nb.hsn\n", {"a.hsn", "b.hsn"}}));

// --- Slurm's own scontrol as the reference -------------------------------------------------------

struct Output {
  std::string out;
  std::string err;
};

// Runs `scontrol ARGS` with a minimal configuration in a temporary directory (scontrol refuses to
// start without one, but `show hostnames|hostlist` never contacts a controller).
class HostlistScontrol : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = ::testing::TempDir() + "ezpz-scontrol-XXXXXX";
    if (::mkdtemp(s_dir.data()) == nullptr) {
      s_unavailable = "cannot create a temporary directory";
      return;
    }
    std::ofstream(s_dir + "/slurm.conf") << "ClusterName=x\nSlurmctldHost=localhost\n";
    if (std::system("command -v scontrol >/dev/null 2>&1") != 0) {
      s_unavailable = "scontrol is not installed (Debian package slurm-client)";
      return;
    }
    Output probe = run({"show", "hostnames", "nid[001-003]"});
    if (probe.out != "nid001\nnid002\nnid003\n") {
      s_unavailable = "scontrol cannot run here: " + probe.out + probe.err;
    }
  }
  static void TearDownTestSuite() {
    std::error_code ignored;
    std::filesystem::remove_all(s_dir, ignored);
  }
  void SetUp() override {
    if (!s_unavailable.empty()) EZPZ_CANNOT_RUN(s_unavailable);
  }

  static Output run(const std::vector<std::string>& args) {
    std::string command = "SLURM_CONF=" + shell_quote(s_dir + "/slurm.conf") + " scontrol";
    for (const auto& arg : args) command += " " + shell_quote(arg);
    command += " 2>" + shell_quote(s_dir + "/stderr");
    Output output;
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
      char buffer[4096];
      size_t n = 0;
      while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.out.append(buffer, n);
      ::pclose(pipe);
    }
    std::ifstream err(s_dir + "/stderr");
    output.err.assign(std::istreambuf_iterator<char>(err), std::istreambuf_iterator<char>());
    return output;
  }

  static std::string lines(const Hosts& hosts) {
    std::string out;
    for (const auto& host : hosts) out += host + "\n";
    return out;
  }

  static inline std::string s_dir;
  static inline std::string s_unavailable;
};

// Lists Slurm 22.05 accepts: ezpz expands them exactly as `scontrol show hostnames` does.
TEST_F(HostlistScontrol, ExpandsLikeShowHostnames) {
  for (const char* list : {"nid[001-003]",  "nid[001-003,010]",  "nid[08-10]",    "nid[8-10]", "nid[098-101]",
                           "nid[1-003]",    "nid[001-3]",        "nid[00-2]",     "nid[0-2]",  "nid[9-11]",
                           "nid[5]",        "nid[05]",           "a,b,c",         "c,a,b,a",   "login1,nid[001-002]",
                           "nid[3,1-2]",    "nid[1,1]",          "a[1-2],a[1-2]", "[1-2]",     "x1000c0s0b0n[0-1]",
                           "nid[07,8,009]", "nid[000001-010000]"}) {
    Output slurm = run({"show", "hostnames", list});
    ASSERT_TRUE(slurm.err.empty()) << list << ": " << slurm.err;
    EXPECT_EQ(lines(expand_hostlist(list)), slurm.out) << list;
  }
}

// Names given in sorted order: ezpz compresses them as `scontrol show hostlist` does.
TEST_F(HostlistScontrol, CompressesLikeShowHostlist) {
  for (const char* names :
       {"nid001,nid002,nid003,nid010", "nid08,nid09,nid10", "nid8,nid9,nid10", "nid098,nid099,nid100,nid101",
        "nid9,nid010", "nid1,nid01", "a1,a2,b,c5", "login1,login2,nid001", "x1000c0s0b0n0,x1000c0s0b0n1"}) {
    Output slurm = run({"show", "hostlist", names});
    ASSERT_TRUE(slurm.err.empty()) << names << ": " << slurm.err;
    EXPECT_EQ(compress_hostlist(split(names, ',')) + "\n", slurm.out) << names;
  }
}

// Why ezpz has its own: scontrol refuses a name with two bracket groups (every Cray node list) and a
// text after a bracket group (exit status 0, nothing on stdout); ezpz expands both.
TEST_F(HostlistScontrol, RefusesWhatEzpzExpands) {
  for (const char* list : {"x1000c[0-1]s[0-1]b0n0", "a[1-2]b[3-4]c", "nid[1-3]-ib"}) {
    Output slurm = run({"show", "hostnames", list});
    EXPECT_EQ(slurm.out, "") << list;
    EXPECT_NE(slurm.err.find("Invalid hostlist"), std::string::npos) << list << ": " << slurm.err;
  }
  EXPECT_EQ(joined(expand_hostlist("x1000c[0-1]s[0-1]b0n0")),
            "x1000c0s0b0n0 x1000c0s1b0n0 x1000c1s0b0n0 x1000c1s1b0n0");
}

}  // namespace
}  // namespace ezpz::core
