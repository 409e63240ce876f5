// Walltime parsing and normalisation, table-driven.
#include "ezpz/util/walltime.hpp"

#include <gtest/gtest.h>

namespace ezpz::core {
namespace {

struct Case {
  const char* text;
  long seconds;  // -1: rejected
};

void PrintTo(const Case& c, std::ostream* out) {
  *out << "'" << c.text << "'";
}

class WalltimeParse : public ::testing::TestWithParam<Case> {};

TEST_P(WalltimeParse, ParsesOrRejects) {
  std::string why;
  auto seconds = parse_walltime(GetParam().text, &why);
  if (GetParam().seconds < 0) {
    EXPECT_FALSE(seconds) << GetParam().text;
    EXPECT_FALSE(why.empty());
  } else {
    ASSERT_TRUE(seconds) << GetParam().text << ": " << why;
    EXPECT_EQ(*seconds, GetParam().seconds) << GetParam().text;
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, WalltimeParse,
                         ::testing::Values(Case{"01:00:00", 3600}, Case{"1:30:00", 5400}, Case{"90:00", 5400},
                                           Case{"5:60", 360}, Case{"168:00:00", 168 * 3600},
                                           Case{"1-12:00:00", 36 * 3600}, Case{"2-00", 48 * 3600},
                                           // Slurm's D-HH[:MM[:SS]]: after the days come hours, not minutes.
                                           Case{"1-12", 36 * 3600}, Case{"1-12:30", 36 * 3600 + 1800},
                                           Case{"1-12:30:15", 36 * 3600 + 1815}, Case{"90m", 5400}, Case{"1h30m", 5400},
                                           Case{"1H30M", 5400}, Case{"2d", 172800}, Case{"45s", 45},
                                           Case{"1d2h3m4s", 93784}, Case{" 2h ", 7200}, Case{"90", -1}, Case{"", -1},
                                           Case{"abc", -1}, Case{"30m1h", -1}, Case{"1h1h", -1}, Case{"1:2:3:4", -1},
                                           Case{"0", -1}, Case{"00:00:00", -1}, Case{"1x", -1}, Case{"h", -1},
                                           Case{"-1:00:00", -1}, Case{"99999999999h", -1}, Case{"100000d", -1}));

TEST(WalltimeFormat, PadsAndKeepsHoursOver24) {
  EXPECT_EQ(format_walltime(3600), "01:00:00");
  EXPECT_EQ(format_walltime(360), "00:06:00");
  EXPECT_EQ(format_walltime(45), "00:00:45");
  EXPECT_EQ(format_walltime(168 * 3600), "168:00:00");
}

TEST(WalltimeParse, ExplainsAmbiguousNumbers) {
  std::string why;
  EXPECT_FALSE(parse_walltime("90", &why));
  EXPECT_NE(why.find("90m"), std::string::npos) << why;
}

}  // namespace
}  // namespace ezpz::core

namespace ezpz::core {
namespace {

TEST(ZeroDuration, IsZeroInEveryFormAndNothingElse) {
  for (const char* zero : {"0", "0s", "0m", "00:00:00", "0h0m"}) EXPECT_TRUE(is_zero_duration(zero)) << zero;
  for (const char* other : {"", "s", "10s", "0.5s", "1", "00:00:01"}) EXPECT_FALSE(is_zero_duration(other)) << other;
}

TEST(IsoUtc, FormatsSecondsSinceTheEpoch) {
  EXPECT_EQ(iso_utc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(iso_utc(1'800'000'000), "2027-01-15T08:00:00Z");
}

}  // namespace
}  // namespace ezpz::core
