// ezpz/process.hpp: the one interface through which ezpz runs other programs (qsub, sbatch, squeue …).
// Replace it to run them elsewhere (over ssh, in a workflow engine) or to test without a scheduler.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ezpz {

struct ProcessResult {
  int exit_code = 0;  // 127 when the program was not found, 128 + signal when killed, 124 on timeout
  std::string out;
  std::string err;
  bool timed_out = false;  // stopped after the runner's time limit; `out` holds what came before
};

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  // Runs `argv` (argv[0] searched on PATH) in `cwd` ("" = the current directory) with /dev/null as
  // its standard input, waits, and returns its output. Must not throw for a program that fails or
  // cannot be found: the caller decides what an exit code means. ezpz calls it from one thread at a
  // time per operation.
  virtual ProcessResult run(const std::vector<std::string>& argv, const std::string& cwd = {}) = 0;
};

// Real processes. A program that has not ended within `timeout` is killed with everything it started
// (its process group) and reported `timed_out`; each output stream keeps at most its first 16 MiB.
// Without a timeout: $EZPZ_SCHEDULER_TIMEOUT seconds when set, else 120 s, as the ezpz command. Throws
// Error for an EZPZ_SCHEDULER_TIMEOUT that is not a number of seconds from 0.001 to 86400.
std::unique_ptr<ProcessRunner> make_process_runner(std::optional<std::chrono::milliseconds> timeout = std::nullopt);

}  // namespace ezpz
