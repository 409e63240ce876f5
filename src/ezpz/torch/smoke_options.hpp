// The command line of ezpz-torch-test, parsed without LibTorch (CLI11 alone costs ~10 s of compile
// time, so it stays out of the LibTorch translation unit).
#pragma once

#include <optional>

namespace ezpz::torch {

struct TestOptions {
  int iterations = 20;     // timed 1-element all-reduces (latency = their median)
  double size_mb = 4;      // MiB of float32 in the bandwidth all-reduce
  bool quick = false;      // one checked all-reduce only
  bool json = false;       // rank 0 prints JSON instead of the table
  double timeout_s = 300;  // rendezvous, collectives, late ranks
  int fail_rank = -1;      // hidden: this rank's all-reduce check fails (to test the test)
};

// Fills `options` from the command line. Returns the exit status when the program should stop now:
// 0 after --help (printed on stdout), 2 after a usage error (printed on stderr).
std::optional<int> parse_test_options(int argc, char** argv, TestOptions& options);

}  // namespace ezpz::torch
