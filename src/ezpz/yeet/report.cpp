// Node reports and the run summary.
#include "ezpz/yeet/report.hpp"

#include <cstdio>

#include "ezpz/util/text.hpp"
#include "ezpz/yeet/wire.hpp"

namespace ezpz::core::yeet {
namespace {

constexpr const char* k_outcome_names[] = {"copied", "cached", "shared", "failed"};

std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string where(const NodeReport& report) {
  return report.node + " (rank " + std::to_string(report.rank) + ")";
}

// A shared node has no copy of its own: it takes the outcome of the rank that wrote its DEST (the
// lowest rank with the same node and DEST).
std::vector<NodeReport> with_writers_outcome(std::vector<NodeReport> reports) {
  for (auto& report : reports) {
    if (report.outcome != Outcome::shared) continue;
    for (const auto& writer : reports) {
      if (writer.node != report.node || writer.dest != report.dest) continue;
      if (writer.outcome == Outcome::failed) {
        report.outcome = Outcome::failed;
        report.error = "shares DEST '" + report.dest + "' with rank " + std::to_string(writer.rank) + ", which failed";
      }
      break;
    }
  }
  return reports;
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  constexpr const char* k_units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return std::to_string(bytes) + " B";
  return fixed(value, value < 10 ? 2 : 1) + " " + k_units[unit];
}

std::string encode_report(const NodeReport& report) {
  wire::Writer out;
  out.u32(static_cast<std::uint32_t>(report.rank));
  out.str(report.node);
  out.str(report.dest);
  out.u8(static_cast<std::uint8_t>(report.outcome));
  out.u64(report.bytes);
  out.str(report.error);
  return out.take();
}

NodeReport decode_report(std::string_view bytes) {
  wire::Reader in(bytes);
  NodeReport report;
  report.rank = static_cast<int>(in.u32());
  report.node = in.str();
  report.dest = in.str();
  report.outcome = static_cast<Outcome>(in.u8());
  report.bytes = in.u64();
  report.error = in.str();
  return report;
}

RunSummary summarize(const std::vector<NodeReport>& node_reports, int required, std::uint64_t content_bytes,
                     double seconds) {
  std::vector<NodeReport> reports = with_writers_outcome(node_reports);
  RunSummary summary;
  int counts[4] = {};
  std::uint64_t written = 0;
  std::vector<std::string> failed_nodes;
  for (const auto& report : reports) {
    ++counts[static_cast<int>(report.outcome)];
    written += report.bytes;
    if (report.outcome != Outcome::failed) continue;
    summary.text += "ezpz yeet: failed on " + where(report) + ": " + report.error + "\n";
    failed_nodes.push_back(where(report));
  }
  int nodes = static_cast<int>(reports.size());
  int succeeded = nodes - counts[static_cast<int>(Outcome::failed)];
  std::string line = "ezpz yeet: " + std::to_string(nodes) + (nodes == 1 ? " node: " : " nodes: ");
  for (int outcome = 0; outcome < 4; ++outcome) {
    line += std::to_string(counts[outcome]) + " " + k_outcome_names[outcome] + (outcome < 3 ? ", " : "");
  }
  line += "; " + format_bytes(content_bytes) + " each, " + format_bytes(written) + " written in " + fixed(seconds, 2) +
          " s";
  int copied = counts[static_cast<int>(Outcome::copied)];
  if (copied > 0 && seconds > 0) {
    line += ", " + fixed(static_cast<double>(written) / copied / seconds / 1e9, 2) + " GB/s per node";
  }
  summary.text += line + "\n";
  if (succeeded < required) {
    summary.exit_code = 1;
    summary.text += "ezpz yeet: " + std::to_string(succeeded) + " of " + std::to_string(nodes) + " nodes succeeded, " +
                    std::to_string(required) + " required; failed: " + join(failed_nodes, ", ") + "\n";
  } else if (!failed_nodes.empty()) {
    summary.text += "ezpz yeet: " + std::to_string(succeeded) + " of " + std::to_string(nodes) +
                    " nodes succeeded, enough for --min-success (" + std::to_string(required) + ")\n";
  }
  return summary;
}

}  // namespace ezpz::core::yeet
