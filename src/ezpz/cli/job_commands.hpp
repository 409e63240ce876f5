// What submit, status, cancel and logs share: where records are, and how a job id finds its scheduler.
#pragma once

#include <optional>
#include <string>

#include "ezpz/cli/job_options.hpp"
#include "ezpz/submit/job_record.hpp"
#include "ezpz/submit/job_ref.hpp"
#include "ezpz/submit/process.hpp"
#include "ezpz/submit/status.hpp"

namespace ezpz::core {

// The job `job_id`: its record under `records` if there is one (then its scheduler), else the
// scheduler of `system_flag`, $EZPZ_SYSTEM or the detected system.
JobRef find_job(const Installation& installation, const std::string& records, const std::string& job_id,
                const std::string& system_flag);

// How long to wait between two status questions: $EZPZ_POLL_SECONDS when set (tests), else 2 s.
// Throws UserError for a value that is not a number of seconds from 0.01 to 3600.
double poll_seconds();

// Polls every `interval` seconds until the job is done; returns its last status.
JobStatus wait_for(const Scheduler& scheduler, const std::string& job_id, ProcessRunner& runner, double interval);

// Adds --records to a job command.
void add_records_option(CLI::App& command, std::string& records);

}  // namespace ezpz::core
