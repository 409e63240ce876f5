// status: asking the scheduler about a job and reading its answer into one vocabulary.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ezpz/profile/job_state.hpp"
#include "ezpz/profile/output_formats.hpp"
#include "ezpz/profile/scheduler.hpp"
#include "ezpz/submit/process.hpp"

namespace ezpz::core {

// `command` (a scheduler's status, cancel … argv from its YAML) with "{job_id}" replaced. Throws
// UserError when the scheduler has no such command (the `local` system has none).
std::vector<std::string> command_for_job(const std::vector<std::string>& command, const std::string& job_id,
                                         const Scheduler& scheduler, const std::string& what);

// Runs the scheduler's status command through `runner` and reads it in its `status_format`
// (profile/output_formats.hpp). A job the scheduler no longer knows is `unknown`, with the reason in
// `detail`. Throws UserError, with the command and its stderr, when the command fails, or when it
// succeeds but names no job (OpenPBS's qstat exits 0 when it cannot reach the server).
JobStatus query_status(const Scheduler& scheduler, const std::string& job_id, ProcessRunner& runner);

}  // namespace ezpz::core
