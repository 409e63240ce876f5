// Real processes for the ProcessRunner interface (ezpz/process.hpp), and how failures are reported.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "ezpz/process.hpp"

namespace ezpz::core {

// Real processes through Boost.Process. A program that has not ended within `timeout` is killed with
// everything it started (its process group) and reported `timed_out`; each output stream keeps at most
// k_max_command_output bytes (util/limits.hpp; the rest is read and dropped, so the program never
// blocks on a full pipe).
class SystemProcessRunner : public ProcessRunner {
 public:
  // The time limit: $EZPZ_SCHEDULER_TIMEOUT seconds when set, else 120 s. Throws UserError for a value
  // that is not a number of seconds from 0.001 to 86400.
  SystemProcessRunner();
  explicit SystemProcessRunner(std::chrono::milliseconds timeout) : m_timeout(timeout) {}
  ProcessResult run(const std::vector<std::string>& argv, const std::string& cwd = {}) override;

 private:
  std::chrono::milliseconds m_timeout;
};

// "sbatch --parsable job.sh" for messages: the words shell-quoted.
std::string command_text(const std::vector<std::string>& argv);

// The command (command_text) and, on the next line, the program's stderr, at most its first 4 KiB.
std::string command_and_stderr(const std::vector<std::string>& argv, const ProcessResult& result);

// "sbatch failed (exit code 1): " or "sbatch did not finish in time: " before command_and_stderr: the
// message of a UserError about a program that failed.
std::string failure_message(const std::vector<std::string>& argv, const ProcessResult& result);

}  // namespace ezpz::core
