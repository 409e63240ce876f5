// The report of `ezpz-torch-test` (the program behind `ezpz test`): one row per rank, exchanged as
// JSON text through the rendezvous store, and rank 0's table, summary line and JSON document.
// No LibTorch here, so this is unit-tested without it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ezpz::torch {

struct RankResult {
  int rank = 0;
  int local_rank = 0;
  std::string node;
  std::string device;
  std::string backend;
  double init_seconds = 0;
  std::optional<double> latency_us;      // median 1-element all-reduce; none with --quick
  std::optional<double> bandwidth_gbps;  // algorithm bandwidth of the large all-reduce; none with --quick
  std::vector<std::string> errors;       // empty = every check passed on this rank

  bool ok() const { return errors.empty(); }
};

// One row as JSON text and back (from_text throws std::runtime_error for text it cannot read).
std::string to_text(const RankResult& result);
RankResult from_text(const std::string& text);

struct TestSettings {
  int iterations = 20;
  double size_mb = 4;
  bool quick = false;
  std::string libtorch;  // "LibTorch 1.13.0"
};

// Everything rank 0 reports. `rows[r]` is rank r's row, or nullopt when rank r did not report
// (`missing_reason` says why, e.g. "did not report within 300 s").
struct TestReport {
  TestSettings settings;
  int world_size = 0;
  std::vector<std::optional<RankResult>> rows;
  std::string missing_reason = "did not report";

  std::vector<std::string> node_names() const;  // distinct, in rank order
  std::vector<std::string> failures() const;    // "rank 1: all-reduce: ...", one per problem
  bool ok() const { return failures().empty(); }
  // "ezpz test: 4 ranks on 1 node(s): all-reduce, broadcast, barrier OK" (or "all-reduce OK" with
  // --quick), or "... : FAILED (rank 1: ...; rank 3: ...)".
  std::string summary_line() const;
  // A heading with the world size, the table of rows, the failures, then the summary line.
  std::string table() const;
  // The same as one JSON document (pretty-printed, ending in a newline).
  std::string json() const;
};

}  // namespace ezpz::torch
