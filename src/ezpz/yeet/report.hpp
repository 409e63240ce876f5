// What each node reports at the end of a copy, and the summary rank 0 prints from all reports.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ezpz::core::yeet {

// copied: DEST was written. cached: DEST already held the same copy. shared: another rank on the same
// node has the same DEST and wrote it. failed: see error.
enum class Outcome : std::uint8_t { copied, cached, shared, failed };

struct NodeReport {
  int rank = 0;
  std::string node;
  std::string dest;
  Outcome outcome = Outcome::failed;
  std::uint64_t bytes = 0;  // written by this node
  std::string error;        // for failed: "cannot create '/x': Permission denied"
};

std::string encode_report(const NodeReport& report);
NodeReport decode_report(std::string_view bytes);

struct RunSummary {
  int exit_code = 0;  // 0 when enough nodes succeeded (--min-success), else 1
  std::string text;   // failure lines, then the summary line; each line ends in '\n'
};

// `reports` in rank order; `content_bytes` is the size of one copy; `seconds` the wall time of the run.
// `required` is how many nodes must succeed (options.hpp: required_successes). A shared node whose
// DEST's writer (the lowest rank with the same node and DEST) failed counts as failed.
RunSummary summarize(const std::vector<NodeReport>& reports, int required, std::uint64_t content_bytes, double seconds);

// "1.00 GiB", "512.0 MiB", "17 B".
std::string format_bytes(std::uint64_t bytes);

}  // namespace ezpz::core::yeet
