// Progress lines.
#include "ezpz/yeet/progress.hpp"

#include <cmath>
#include <cstdio>

#include "ezpz/yeet/report.hpp"

namespace ezpz::core::yeet {

Progress::Progress(std::uint64_t total, bool enabled, bool interactive, std::ostream& out,
                   std::chrono::milliseconds interval)
    : m_total(total), m_enabled(enabled), m_interactive(interactive), m_out(out), m_interval(interval) {}

void Progress::advance(std::uint64_t bytes) {
  m_done += bytes;
  if (!m_enabled) return;
  Clock::time_point now = Clock::now();
  if (now - m_last >= m_interval) print(now);
}

void Progress::print(Clock::time_point now) {
  m_last = now;
  double seconds = std::chrono::duration<double>(now - m_start).count();
  double rate = seconds > 0 ? static_cast<double>(m_done) / seconds : 0;
  char line[160];
  std::snprintf(line, sizeof line, "ezpz yeet: %s of %s (%.0f%%), %.1f MB/s, about %.0f s left",
                format_bytes(m_done).c_str(), format_bytes(m_total).c_str(),
                m_total ? 100.0 * static_cast<double>(m_done) / static_cast<double>(m_total) : 100.0, rate / 1e6,
                rate > 0 ? std::ceil(static_cast<double>(m_total - m_done) / rate) : 0.0);
  m_out << (m_interactive ? "\r\033[K" : "") << line << (m_interactive ? "" : "\n") << std::flush;
  m_printed = true;
}

void Progress::finish() {
  if (m_enabled && m_interactive && m_printed) m_out << "\r\033[K" << std::flush;
}

}  // namespace ezpz::core::yeet
