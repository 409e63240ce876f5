// The job-state vocabulary, as a table.
#include "ezpz/profile/job_state.hpp"

#include <algorithm>
#include <iterator>

#include "ezpz/util/exit_codes.hpp"

namespace ezpz::core {
namespace {

constexpr JobStateInfo k_job_states[] = {
    {JobState::queued, "queued", false, std::nullopt, "waiting to start"},
    {JobState::held, "held", false, std::nullopt,
     "held (qsub -h, sbatch --hold, or suspended); qrls/scontrol release starts it"},
    {JobState::running, "running", false, std::nullopt, "running"},
    {JobState::ended, "ended", true, std::nullopt,
     "finished; the exit status tells which state below (schedulers' maps only)"},
    {JobState::completed, "completed", true, k_exit_ok, "ran and exited 0"},
    {JobState::failed, "failed", true, std::nullopt, "ran and exited non-zero, or was killed by a signal"},
    {JobState::timeout, "timeout", true, k_exit_job_timeout, "ended by the scheduler at its walltime"},
    {JobState::out_of_memory, "out-of-memory", true, k_exit_job_out_of_memory,
     "ended by the scheduler over its memory limit"},
    {JobState::cancelled, "cancelled", true, k_exit_job_cancelled,
     "deleted with qdel/scancel (by a user or an operator)"},
    {JobState::not_run, "not-run", true, k_exit_job_not_run,
     "ended without running: its dependency failed, or the scheduler dropped it"},
    {JobState::unknown, "unknown", true, k_exit_job_unknown,
     "the scheduler no longer knows the job (no history kept, or purged)"},
};

}  // namespace

const JobStateInfo& job_state_info(JobState state) {
  return *std::find_if(std::begin(k_job_states), std::end(k_job_states),
                       [&](const JobStateInfo& info) { return info.state == state; });
}

std::string job_state_name(JobState state) {
  return std::string(job_state_info(state).name);
}

std::optional<JobState> parse_job_state(std::string_view name) {
  for (const auto& info : k_job_states) {
    if (info.name == name) return info.state;
  }
  return std::nullopt;
}

std::vector<std::string> shown_job_state_names() {
  std::vector<std::string> names;
  for (const auto& info : k_job_states) {
    if (info.state != JobState::ended) names.emplace_back(info.name);
  }
  return names;
}

std::vector<std::string> job_state_names() {
  std::vector<std::string> names;
  for (const auto& info : k_job_states) names.emplace_back(info.name);
  return names;
}

}  // namespace ezpz::core
