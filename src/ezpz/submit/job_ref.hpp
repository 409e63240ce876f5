// A job named by its id: its record, if ezpz submitted it, and the scheduler to ask about it.
#pragma once

#include <optional>
#include <string>

#include "ezpz/profile/catalog.hpp"
#include "ezpz/submit/job_record.hpp"
#include "ezpz/submit/process.hpp"
#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

struct JobRef {
  std::string job_id;
  std::optional<JobRecord> record;
  const Scheduler* scheduler = nullptr;  // points into the catalog
};

// The job `job_id`: its record under `records_root` if there is one (then the record's scheduler),
// else the scheduler of chosen_system(catalog, system, env, hostname). Throws UserError when `job_id`
// is not a job's id (job_id_problem) or when neither gives a system.
JobRef find_job(const Catalog& catalog, const std::string& records_root, const std::string& job_id,
                const std::string& system, const EnvLookup& env, const std::string& hostname);

// Runs the scheduler's cancel command (qdel, scancel) for `job`; returns what it printed on stderr.
// Throws UserError with the command and its stderr when it fails, or when the scheduler has none.
std::string cancel_job(const JobRef& job, ProcessRunner& runner);

}  // namespace ezpz::core
