// Scanning a launch's output for lines that name bad nodes, and for progress.
#include "ezpz/runtime/output_evidence.hpp"

#include <algorithm>

#include "ezpz/util/regex.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz {
namespace {

constexpr std::size_t k_max_ignored = 20;

std::string shown(std::string_view line) {
  std::string text = printable(line.substr(0, 200));
  return line.size() > 200 ? text + "…" : text;
}

}  // namespace

OutputEvidence::OutputEvidence(const Failover& failover, NodeNames& names, const std::string& progress)
    : m_names(names) {
  for (const auto& pattern : failover.patterns) {
    std::string what = "failover.patterns '" + (pattern.name.empty() ? pattern.regex : pattern.name) + "'";
    m_patterns.push_back({&pattern, compile_regex(pattern.regex, pattern.loc, what)});
  }
  if (!progress.empty()) m_progress = compile_regex(progress, {}, "supervise.progress");
}

void OutputEvidence::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    std::size_t end = bytes.find_first_of("\n\r");
    std::string_view part = bytes.substr(0, end);
    if (m_line.size() < k_max_scanned_line) {
      m_line.append(part.substr(0, k_max_scanned_line - m_line.size()));
    }
    if (end == std::string_view::npos) return;
    scan(m_line);
    m_line.clear();
    bytes.remove_prefix(end + 1);
  }
}

void OutputEvidence::finish() {
  if (!m_line.empty()) scan(m_line);
  m_line.clear();
}

void OutputEvidence::ignore(std::string message) {
  if (m_ignored.size() < k_max_ignored) m_ignored.push_back(std::move(message));
}

void OutputEvidence::scan(std::string_view line) {
  if (line.empty()) return;
  std::string text(line);
  if (m_progress && !m_progress_seen) {
    try {
      m_progress_seen = std::regex_search(text, *m_progress);
    } catch (const std::exception&) {
      // A line std::regex gives up on (error_complexity, error_stack) proves nothing.
    }
  }
  for (auto& compiled : m_patterns) {
    if (compiled.broken) continue;
    const FailurePattern& pattern = *compiled.pattern;
    std::smatch match;
    try {
      if (!std::regex_search(text, match, compiled.regex)) continue;
    } catch (const std::exception& error) {
      compiled.broken = true;
      ignore("pattern '" + pattern.name + "' gave up on a line (" + error.what() + "); not used again");
      continue;
    }
    if (static_cast<std::size_t>(pattern.host_group) >= match.size() || !match[pattern.host_group].matched) {
      ignore("pattern '" + pattern.name + "' has no group " + std::to_string(pattern.host_group) +
             " (line: " + shown(line) + ")");
      continue;
    }
    std::string named = match[pattern.host_group].str();
    auto host = pattern.host_is == "address" ? m_names.host_at(named) : m_names.host_named(named);
    if (!host) {
      if (!m_ignored_names.insert(pattern.name + "\n" + named).second) continue;  // said once per name
      ignore("pattern '" + pattern.name + "' names '" + printable(named) + "', not " +
             (pattern.host_is == "address" ? "the address of one host" : "a host") +
             " of this allocation (line: " + shown(line) + ")");
      continue;
    }
    bool known = std::any_of(m_evidence.begin(), m_evidence.end(), [&](const Evidence& e) { return e.host == *host; });
    if (!known) m_evidence.push_back({*host, "pattern", pattern.name + ": " + shown(line)});
  }
}

}  // namespace ezpz
