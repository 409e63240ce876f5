// The one interface through which ezpz runs other programs (qsub, sbatch, squeue …), so that tests
// can replace the real processes with a fake that records calls and plays back answers.
#pragma once

#include <string>
#include <vector>

namespace ezpz {

struct ProcessResult {
  int exit_code = 0;  // 127 when the program was not found, 128 + signal when killed
  std::string out;
  std::string err;
};

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  // Runs `argv` (argv[0] searched on PATH) in `cwd` ("" = here) with /dev/null as its standard input,
  // waits, and returns its output.
  // Never throws for a failing program: the caller decides what a non-zero exit means.
  virtual ProcessResult run(const std::vector<std::string>& argv, const std::string& cwd = {}) = 0;
};

// Real processes through Boost.Process.
class SystemProcessRunner : public ProcessRunner {
 public:
  ProcessResult run(const std::vector<std::string>& argv, const std::string& cwd = {}) override;
};

// "sbatch --parsable job.sh" for messages: the words shell-quoted.
std::string command_text(const std::vector<std::string>& argv);

}  // namespace ezpz
