// What a failed launch's output says: lines that name bad nodes (the profile's failover.patterns) and
// whether the program got past start-up (the spec's progress pattern).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ezpz/runtime/node_names.hpp"
#include "ezpz/util/regex.hpp"

namespace ezpz::core {

// The most bytes of one line that are looked at: a longer line is cut there.
inline constexpr std::size_t k_max_scanned_line = 4096;

class OutputEvidence {
 public:
  // Compiles the patterns once. Throws UserError at a pattern's place when one is not a regular
  // expression; `progress` ("" for none) was checked where it was written.
  OutputEvidence(const Failover& failover, NodeNames& names, const std::string& progress);

  // Forgets what earlier output said (a new attempt starts).
  void reset();
  // The next bytes of the output, in any pieces; lines end at '\n' or '\r'. Cheap: it matches lines
  // (each in time linear in its length, whatever the pattern), and leaves resolving addresses to
  // finish().
  void feed(std::string_view bytes);
  // The end of the output: a last line without '\n' is looked at, and the addresses patterns found are
  // matched to the allocation's hosts.
  void finish();

  // One entry per host a proving pattern named, with its first line.
  const std::vector<Evidence>& evidence() const { return m_evidence; }
  // One entry per host a pattern with `proves: false` named: recorded, never acted on alone.
  const std::vector<Evidence>& suspects() const { return m_suspects; }
  // What a pattern matched but proves nothing about this allocation, once per name: "pattern
  // 'pals-shepherd-killed' names 'x9', not a host of this allocation (line: …)". At most 20.
  const std::vector<std::string>& ignored() const { return m_ignored; }
  // Whether a line matched the progress pattern.
  bool progress_seen() const { return m_progress_seen; }
  bool watches_progress() const { return m_progress.has_value(); }

 private:
  struct Compiled {
    const FailurePattern* pattern;
    Regex regex;
  };
  struct Found {
    const FailurePattern* pattern;
    std::string named;  // the host or address the line names
    std::string line;   // shown
  };

  void scan(std::string_view line);
  void take(const Found& found);
  void ignore(std::string message);

  NodeNames& m_names;
  std::vector<Compiled> m_patterns;
  std::optional<Regex> m_progress;
  bool m_progress_seen = false;
  std::string m_line;              // the unfinished line, at most k_max_scanned_line bytes
  std::vector<Found> m_addresses;  // matched to hosts in finish()
  std::set<std::string> m_seen;    // pattern + name pairs already taken
  std::vector<Evidence> m_evidence;
  std::vector<Evidence> m_suspects;
  std::vector<std::string> m_ignored;
};

}  // namespace ezpz::core
