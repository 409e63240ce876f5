// status: asking the scheduler about a job and reading its answer into one vocabulary.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ezpz/profile/job_state.hpp"
#include "ezpz/profile/scheduler.hpp"
#include "ezpz/submit/process.hpp"

namespace ezpz::core {

struct JobStatus {
  std::string job_id;
  JobState state = JobState::unknown;  // never JobState::ended
  std::optional<int> exit_code;   // the job's own exit code (128 + N when signal N killed it)
  std::string scheduler_state;    // as the scheduler said it ("PENDING", "F" …)
  std::string detail;             // why the state is what it is, when not obvious
  std::optional<long> starts;     // how many times it has started (requeued jobs start again); unknown: nullopt

  // The job will not change any more.
  bool done() const;
  // What `ezpz submit --wait` exits with: the job's own code, or the state's (docs/jobs.md).
  int wait_exit_code() const;
};

// `command` (a scheduler's status, cancel … argv from its YAML) with "{job_id}" replaced. Throws
// UserError when the scheduler has no such command (the `local` system has none).
std::vector<std::string> command_for_job(const std::vector<std::string>& command, const std::string& job_id,
                                         const Scheduler& scheduler, const std::string& what);

// Runs the scheduler's status command through `runner` and parses it with the parser its
// `status_format` names. A job the scheduler no longer knows is `unknown`, with the reason in
// `detail`. Throws UserError, with the command and its stderr, when the command fails, or when it
// succeeds but names no job (OpenPBS's qstat exits 0 when it cannot reach the server).
JobStatus query_status(const Scheduler& scheduler, const std::string& job_id, ProcessRunner& runner);

}  // namespace ezpz::core
