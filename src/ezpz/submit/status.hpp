// status: asking the scheduler about a job and reading its answer into one vocabulary.
#pragma once

#include <optional>
#include <string>

#include "ezpz/profile/scheduler.hpp"
#include "ezpz/submit/process.hpp"

namespace ezpz {

struct JobStatus {
  std::string job_id;
  // queued | held | running | completed | failed | cancelled | finished (exit unknown) | unknown
  std::string state;
  std::optional<int> exit_code;
  std::string scheduler_state;  // as the scheduler said it ("PENDING", "F" …)
  std::string detail;           // why the state is what it is, when not obvious

  bool done() const;
};

// `command` (a scheduler's status, cancel … argv from its YAML) with "{job_id}" replaced.
std::vector<std::string> command_for_job(const std::vector<std::string>& command, const std::string& job_id);

// Runs the scheduler's status command through `runner` and parses it with the parser its
// `status_format` names. A job the scheduler no longer knows is `unknown`, with the reason in
// `detail`; a scheduler command that cannot run at all throws UserError with its stderr.
JobStatus query_status(const Scheduler& scheduler, const std::string& job_id, ProcessRunner& runner);

}  // namespace ezpz
