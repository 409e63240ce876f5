// How many times a requeued job has been restarted, as the job itself can tell: `supervise.requeue`
// caps the restarts, and `ezpz launch --max-restarts` refuses to run the program once more.
#pragma once

#include <optional>
#include <string>

#include "ezpz/profile/scheduler.hpp"
#include "ezpz/submit/process.hpp"
#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

struct Restarts {
  std::optional<long> count;  // nullopt: nothing could tell
  std::string source;         // "SLURM_RESTART_COUNT", "qstat run_count", or why it is unknown
};

// The scheduler's job variable `job_env.restart_count` (Slurm: SLURM_RESTART_COUNT) when it names one;
// otherwise (PBS has none) the scheduler's status of the job `job_env.job_id` names: its starts - 1.
// Never throws: a status command that fails gives an unknown count with the reason in `source`.
Restarts job_restarts(const Scheduler& scheduler, const EnvLookup& env, ProcessRunner& runner);

}  // namespace ezpz::core
