// Retrying a failed launch inside the same allocation: the wait before each attempt, and whether an
// attempt can still finish before the allocation ends.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "ezpz/profile/catalog.hpp"
#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

struct RetryPolicy {
  long retries = 0;           // attempts after the first
  double first_delay = 10.0;  // seconds before the second attempt; each later wait doubles
  double max_delay = 300.0;   // the longest wait
};

// Seconds to wait before attempt `attempt` (2 for the first retry): first_delay x 2^(attempt - 2),
// at most max_delay; 0 for the first attempt.
double retry_delay(const RetryPolicy& policy, long attempt);

// When the allocation ends, in seconds since the epoch: EZPZ_JOB_END_TIME (set by ezpz's rendered
// scripts from the walltime they asked for and their start), else a scheduler's job_env.end_time
// (Slurm: SLURM_JOB_END_TIME). nullopt when none is set; a value that is not a whole positive number is
// ignored, and the first such one is described in `unreadable` ("EZPZ_JOB_END_TIME='soon'") when given.
std::optional<long> allocation_end(const EnvLookup& env,
                                   const JobVariables& variables = Catalog::builtin_job_variables(),
                                   std::string* unreadable = nullptr);

// Why an attempt that starts after `delay` seconds cannot finish: the last attempt took `last_seconds`,
// and from `now` (seconds since the epoch) the allocation ends at `end`. "" when it can, or when the
// end is not known. A clock that runs behind the end (now past it) always says no.
std::string cannot_finish(std::optional<long> end, double now, double delay, double last_seconds);

struct LaunchOutcome;

// Runs `attempt` until it succeeds, it was stopped by the user (a signal, a closed output), the retries
// are used up, the ranks got the signal before the allocation's end, or the next attempt could not finish before the
// allocation ends (allocation_end; the last attempt's duration is the estimate). Each attempt's end and each decision
// go to stderr as one "ezpz launch:" line. Returns the last attempt's code. Exit code 143 is never read as the
// walltime: only the allocation's end time is.
int run_attempts(const std::function<LaunchOutcome()>& attempt, const RetryPolicy& policy, const EnvLookup& env);

}  // namespace ezpz::core
