// Scanning a launch's output for lines that name bad nodes, and for progress.
#include "ezpz/runtime/output_evidence.hpp"

#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

constexpr std::size_t k_max_ignored = 20;
constexpr std::size_t k_max_addresses = 1000;  // distinct addresses kept for finish(); more is noise

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

void OutputEvidence::reset() {
  m_progress_seen = false;
  m_line.clear();
  m_addresses.clear();
  m_seen.clear();
  m_evidence.clear();
  m_suspects.clear();
  m_ignored.clear();
}

void OutputEvidence::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    std::size_t end = bytes.find_first_of("\n\r");
    std::string_view part = bytes.substr(0, end);
    if (m_line.size() < k_max_scanned_line) m_line.append(part.substr(0, k_max_scanned_line - m_line.size()));
    if (end == std::string_view::npos) return;
    scan(m_line);
    m_line.clear();
    bytes.remove_prefix(end + 1);
  }
}

void OutputEvidence::finish() {
  if (!m_line.empty()) scan(m_line);
  m_line.clear();
  for (const auto& found : m_addresses) take(found);
  m_addresses.clear();
}

void OutputEvidence::ignore(std::string message) {
  if (m_ignored.size() < k_max_ignored) m_ignored.push_back(std::move(message));
}

void OutputEvidence::scan(std::string_view line) {
  if (line.empty()) return;
  for (const auto& compiled : m_patterns) {
    const FailurePattern& pattern = *compiled.pattern;
    auto match = compiled.regex.search_groups(line);
    if (!match) continue;
    auto group = static_cast<std::size_t>(pattern.host_group);
    if (group >= match->size() || !(*match)[group]) {
      ignore("pattern '" + pattern.name + "' has no group " + std::to_string(pattern.host_group) +
             " (line: " + shown(line) + ")");
      continue;
    }
    Found found{&pattern, *(*match)[group], shown(line)};
    if (!m_seen.insert(pattern.name + "\n" + found.named).second) continue;  // every rank may say it
    if (pattern.host_is != "address") {
      take(found);
    } else if (m_addresses.size() < k_max_addresses) {
      m_addresses.push_back(std::move(found));
    }
  }
  if (m_progress && !m_progress_seen) m_progress_seen = m_progress->search(line);
}

void OutputEvidence::take(const Found& found) {
  const FailurePattern& pattern = *found.pattern;
  bool address = pattern.host_is == "address";
  auto host = address ? m_names.host_at(found.named) : m_names.host_named(found.named);
  if (!host) {
    ignore("pattern '" + pattern.name + "' names '" + printable(found.named) + "', not " +
           (address ? "the address of one host" : "a host") + " of this allocation (line: " + found.line + ")");
    return;
  }
  auto& list = pattern.proves ? m_evidence : m_suspects;
  for (const auto& known : list) {
    if (known.host == *host) return;
  }
  list.push_back({*host, "pattern", pattern.name + ": " + found.line});
}

}  // namespace ezpz::core
