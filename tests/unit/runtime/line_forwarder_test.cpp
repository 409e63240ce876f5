// LineForwarder: whole lines per source, held bytes bounded, bytes unchanged, a "\n" only where another
// source would otherwise continue an unfinished line; a table of cases, then random interleavings.
#include "ezpz/runtime/line_forwarder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace ezpz::core {
namespace {

using Pieces = std::vector<std::pair<long, std::string>>;

struct Step {
  long source;
  std::string bytes;
  bool finish = false;  // finish the source instead of feeding it
};

Step feed(long source, std::string bytes) {
  return {source, std::move(bytes)};
}
Step finish(long source) {
  return {source, "", true};
}

struct Case {
  const char* name;
  std::size_t max_chunk;
  std::vector<Step> steps;
  Pieces expected;                                    // what the sink got, in order
  std::vector<std::pair<long, std::size_t>> pending;  // held bytes per source at the end
};

std::string bytes(std::initializer_list<int> values) {
  std::string text;
  for (int value : values) text.push_back(static_cast<char>(value));
  return text;
}

const Case k_cases[] = {
    {"a whole line passes at once", 64, {feed(0, "hello\n")}, {{0, "hello\n"}}, {{0, 0}}},
    {"an unfinished line is held", 64, {feed(0, "hel")}, {}, {{0, 3}}},
    {"pieces of a line pass together",
     64,
     {feed(0, "he"), feed(0, "ll"), feed(0, "o\nwor")},
     {{0, "hello\n"}},
     {{0, 3}}},
    {"several lines in one feed pass as one piece", 64, {feed(0, "a\nb\nc")}, {{0, "a\nb\n"}}, {{0, 1}}},
    {"another source's line does not cut into an unfinished one",
     64,
     {feed(0, "rank 0 sa"), feed(1, "rank 1 says hi\n"), feed(0, "ys hi\n")},
     {{1, "rank 1 says hi\n"}, {0, "rank 0 says hi\n"}},
     {{0, 0}, {1, 0}}},
    {"finish passes the last line without adding a newline",
     64,
     {feed(0, "a\ntail"), finish(0)},
     {{0, "a\n"}, {0, "tail"}},
     {{0, 0}}},
    {"after an unfinished last line, another source starts on a new line",
     64,
     {feed(0, "tail"), finish(0), feed(1, "next\n")},
     {{0, "tail"}, {0, "\n"}, {1, "next\n"}},
     {}},
    {"the same source continues its own line without a newline",
     64,
     {feed(0, "a"), finish(0), feed(0, "b\n")},
     {{0, "a"}, {0, "b\n"}},
     {}},
    {"finish with nothing held, or of an unknown source, passes nothing",
     64,
     {feed(0, "a\n"), finish(0), finish(7)},
     {{0, "a\n"}},
     {}},
    {"an empty feed passes nothing", 64, {feed(0, "")}, {}, {{0, 0}}},
    {"a long line without a newline passes in chunks of max_chunk",
     4,
     {feed(0, "abcdefghij")},
     {{0, "abcd"}, {0, "efgh"}},
     {{0, 2}}},
    {"a chunk is made of several feeds", 4, {feed(0, "ab"), feed(0, "cdef")}, {{0, "abcd"}}, {{0, 2}}},
    {"exactly max_chunk bytes pass at once", 4, {feed(0, "abcd")}, {{0, "abcd"}}, {{0, 0}}},
    {"a finished long line passes whole", 4, {feed(0, "abcdefghij\n")}, {{0, "abcdefghij\n"}}, {{0, 0}}},
    {"another source after a chunk starts on a new line, the chunked line goes on after it",
     4,
     {feed(0, "abcdef"), feed(1, "x\n"), feed(0, "g\n")},
     {{0, "abcd"}, {0, "\n"}, {1, "x\n"}, {0, "efg\n"}},
     {}},
    {"NUL and bytes that are not UTF-8 pass unchanged",
     64,
     {feed(0, bytes({'a', 0, 0xff, 0xfe, 0xc3})), feed(0, bytes({'(', '\n', 0x80}))},
     {{0, bytes({'a', 0, 0xff, 0xfe, 0xc3, '(', '\n'})}},
     {{0, 1}}},
    {"a carriage return releases a progress bar's redraw",
     64,
     {feed(0, " 10%\r 20%"), feed(1, "log\n"), feed(0, "\r 30%\n")},
     {{0, " 10%\r"}, {0, "\n"}, {1, "log\n"}, {0, " 20%\r 30%\n"}},
     {}},
    {"CRLF lines pass whole", 64, {feed(0, "a\r\nb\r\n")}, {{0, "a\r\nb\r\n"}}, {}},
    {"the launcher's own message after a rank's unfinished line",
     64,
     {feed(3, "partial"), finish(3), feed(-1, "ezpz launch: rank 1 failed\n")},
     {{3, "partial"}, {3, "\n"}, {-1, "ezpz launch: rank 1 failed\n"}},
     {}},
};

class LineForwarderCase : public testing::TestWithParam<Case> {};

TEST_P(LineForwarderCase, PassesWholeLines) {
  const Case& c = GetParam();
  Pieces got;
  LineForwarder forwarder([&](long source, std::string_view piece) { got.emplace_back(source, std::string(piece)); },
                          c.max_chunk);
  for (const Step& step : c.steps) {
    if (step.finish) {
      forwarder.finish(step.source);
    } else {
      forwarder.feed(step.source, step.bytes);
    }
  }
  EXPECT_EQ(got, c.expected);
  for (const auto& [source, held] : c.pending) EXPECT_EQ(forwarder.pending(source), held) << "source " << source;
}

INSTANTIATE_TEST_SUITE_P(Table, LineForwarderCase, testing::ValuesIn(k_cases), [](const auto& test_case) {
  std::string name;
  for (const char* p = test_case.param.name; *p; ++p) name += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
  return name;
});

// Random lines (any byte but '\n' and '\r', some longer than a chunk) from 4 sources, cut into random
// pieces fed in a random order: every output line belongs to one source, each source's bytes arrive
// complete and in order, every line that fits in a chunk arrives as one line, held bytes stay bounded.
TEST(LineForwarder, RandomInterleavingsKeepLinesWhole) {
  constexpr std::size_t k_chunk = 16;
  constexpr long k_sources = 4;
  std::mt19937 random(20240611);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::string> input(k_sources);
    std::vector<std::vector<std::string>> lines(k_sources);
    for (long s = 0; s < k_sources; ++s) {
      int count = static_cast<int>(random() % 20);
      for (int i = 0; i < count; ++i) {
        std::string line;
        std::size_t length = random() % 8 == 0 ? k_chunk + random() % 40 : random() % k_chunk;
        for (std::size_t b = 0; b < length; ++b) {
          char byte;
          do byte = static_cast<char>(random() % 256);
          while (byte == '\n' || byte == '\r');
          line.push_back(byte);
        }
        lines[s].push_back(line);
        input[s] += line + "\n";
      }
      if (random() % 2) input[s] += "tail" + std::to_string(s);  // a last line without '\n'
    }

    std::string output;
    std::vector<long> owner;  // the source of every output byte
    LineForwarder forwarder(
        [&](long source, std::string_view piece) {
          output.append(piece);
          owner.insert(owner.end(), piece.size(), source);
        },
        k_chunk);
    std::vector<std::size_t> offset(k_sources, 0);
    for (;;) {
      std::vector<long> open;
      for (long s = 0; s < k_sources; ++s) {
        if (offset[s] < input[s].size()) open.push_back(s);
      }
      if (open.empty()) break;
      long s = open[random() % open.size()];
      std::size_t take = std::min<std::size_t>(1 + random() % 24, input[s].size() - offset[s]);
      forwarder.feed(s, std::string_view(input[s]).substr(offset[s], take));
      offset[s] += take;
      ASSERT_LT(forwarder.pending(s), k_chunk);
    }
    for (long s = 0; s < k_sources; ++s) forwarder.finish(s);

    // Every output line has one source.
    std::size_t start = 0;
    for (std::size_t i = 0; i < output.size(); ++i) {
      if (output[i] != '\n' && i + 1 != output.size()) continue;
      for (std::size_t j = start; j <= i; ++j) {
        ASSERT_EQ(owner[j], owner[start])
            << "round " << round << ": a line mixes sources " << owner[start] << " and " << owner[j];
      }
      start = i + 1;
    }
    for (long s = 0; s < k_sources; ++s) {
      std::string sent;
      std::string received;
      for (char byte : input[s]) {
        if (byte != '\n') sent.push_back(byte);
      }
      for (std::size_t i = 0; i < output.size(); ++i) {
        if (owner[i] == s && output[i] != '\n') received.push_back(output[i]);
      }
      EXPECT_EQ(received, sent) << "round " << round << ": source " << s << "'s bytes";
      // Lines that fit in a chunk arrive as whole output lines, in order.
      std::vector<std::string> short_lines;
      for (const auto& line : lines[s]) {
        if (line.size() < k_chunk) short_lines.push_back(line);
      }
      std::vector<std::string> out_lines;
      std::string current;
      for (std::size_t i = 0; i < output.size(); ++i) {
        if (owner[i] != s) continue;
        if (output[i] == '\n') {
          out_lines.push_back(current);
          current.clear();
        } else {
          current.push_back(output[i]);
        }
      }
      std::size_t next = 0;
      for (const auto& line : out_lines) {
        if (next < short_lines.size() && line == short_lines[next]) ++next;
      }
      EXPECT_EQ(next, short_lines.size()) << "round " << round << ": source " << s << "'s short lines arrive whole";
    }
  }
}

}  // namespace
}  // namespace ezpz::core
