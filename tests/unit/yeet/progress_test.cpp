// Rank 0's progress lines: bytes, share, rate and time left; redrawn on a terminal, lines otherwise.
#include "ezpz/yeet/progress.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "ezpz/util/regex.hpp"

namespace ezpz::core::yeet {
namespace {

TEST(Progress, PrintsBytesShareRateAndTimeLeft) {
  std::ostringstream out;
  Progress progress(4u << 20, true, false, out, std::chrono::milliseconds(0));
  progress.advance(1u << 20);
  progress.advance(1u << 20);
  progress.finish();
  std::string text = out.str();
  auto found = [&](const std::string& pattern) { return compile_regex(pattern, {}, "test").search(text); };
  EXPECT_TRUE(found("^ezpz yeet: 1.00 MiB of 4.00 MiB \\(25%\\), [0-9.]+ MB/s, about [0-9]+ s left\n")) << text;
  EXPECT_TRUE(found("\nezpz yeet: 2.00 MiB of 4.00 MiB \\(50%\\), [0-9.]+ MB/s, about [0-9]+ s left\n$")) << text;
}

TEST(Progress, RedrawsOneLineOnATerminalAndClearsItAtTheEnd) {
  std::ostringstream out;
  Progress progress(100, true, true, out, std::chrono::milliseconds(0));
  progress.advance(50);
  progress.finish();
  EXPECT_EQ(out.str().find('\n'), std::string::npos);
  EXPECT_EQ(out.str().rfind("\r\033[K"), out.str().size() - 4) << "the last write clears the line";
}

TEST(Progress, IsSilentWhenDisabledOrWithinTheInterval) {
  std::ostringstream quiet, patient;
  Progress disabled(100, false, false, quiet, std::chrono::milliseconds(0));
  Progress slow(100, true, false, patient, std::chrono::hours(1));
  for (int i = 0; i < 10; ++i) {
    disabled.advance(10);
    slow.advance(10);
  }
  disabled.finish();
  slow.finish();
  EXPECT_EQ(quiet.str(), "");
  EXPECT_EQ(patient.str(), "");
}

}  // namespace
}  // namespace ezpz::core::yeet
