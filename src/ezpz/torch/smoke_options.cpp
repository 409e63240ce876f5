#include "ezpz/torch/smoke_options.hpp"

#include <CLI/CLI.hpp>

namespace ezpz::torch {

std::optional<int> parse_test_options(int argc, char** argv, TestOptions& options) {
  CLI::App app{
      "ezpz-torch-test: a distributed smoke test of c10d (all-reduce, broadcast, barrier) with timings.\n"
      "Run one process per rank, e.g. `ezpz launch -n 4 -- ezpz test` (which runs this program);\n"
      "each reads RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT,\n"
      "TORCH_DEVICE and TORCH_BACKEND. Rank 0 prints the report. Exit status: 0 when this rank's\n"
      "checks passed (on rank 0: every rank's), 1 otherwise, 2 for bad usage.",
      "ezpz-torch-test"};
  app.add_option("--iterations", options.iterations, "timed 1-element all-reduces (latency = their median)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--size-mb", options.size_mb, "MiB of float32 in the bandwidth all-reduce")
      ->check(CLI::Range(0.000001, 65536.0))
      ->capture_default_str();
  app.add_flag("--quick", options.quick, "one checked all-reduce only (no broadcast, barrier or timings)");
  app.add_flag("--json", options.json, "rank 0 prints a JSON document instead of the table");
  app.add_option("--timeout", options.timeout_s, "seconds to wait for the rendezvous, a collective or a late rank")
      ->check(CLI::Range(0.001, 86400.0))
      ->capture_default_str();
  app.add_option("--fail-rank", options.fail_rank, "make this rank's all-reduce check fail (to test the test)")
      ->group("");  // hidden
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
  return std::nullopt;
}

}  // namespace ezpz::torch
