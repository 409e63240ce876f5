// Rank 0's progress lines on stderr while the content streams: bytes, rate and time left.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>

namespace ezpz::core::yeet {

class Progress {
 public:
  // `interactive`: stderr is a terminal, so one line is redrawn; otherwise a line every `interval`.
  Progress(std::uint64_t total, bool enabled, bool interactive, std::ostream& out,
           std::chrono::milliseconds interval = std::chrono::milliseconds(1000));

  // Another `bytes` of the stream were sent. Prints when the interval has passed since the last line.
  void advance(std::uint64_t bytes);
  // Ends a redrawn line.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  void print(Clock::time_point now);

  std::uint64_t m_total;
  std::uint64_t m_done = 0;
  bool m_enabled;
  bool m_interactive;
  std::ostream& m_out;
  std::chrono::milliseconds m_interval;
  Clock::time_point m_start = Clock::now();
  Clock::time_point m_last = m_start;
  bool m_printed = false;
};

}  // namespace ezpz::core::yeet
