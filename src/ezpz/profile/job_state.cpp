// The job-state vocabulary, as a table.
#include "ezpz/profile/job_state.hpp"

#include <algorithm>
#include <iterator>

#include "ezpz/util/exit_codes.hpp"

namespace ezpz::core {
namespace {

constexpr JobState k_job_states[] = {
    {"queued", false, std::nullopt, "waiting to start"},
    {"held", false, std::nullopt, "held (qsub -h, sbatch --hold, or suspended); qrls/scontrol release starts it"},
    {"running", false, std::nullopt, "running"},
    {"ended", true, std::nullopt, "finished; the exit status tells which state below (schedulers' maps only)"},
    {"completed", true, k_exit_ok, "ran and exited 0"},
    {"failed", true, std::nullopt, "ran and exited non-zero, or was killed by a signal"},
    {"timeout", true, k_exit_job_timeout, "ended by the scheduler at its walltime"},
    {"out-of-memory", true, k_exit_job_out_of_memory, "ended by the scheduler over its memory limit"},
    {"cancelled", true, k_exit_job_cancelled, "deleted with qdel/scancel (by a user or an operator)"},
    {"not-run", true, k_exit_job_not_run, "ended without running: its dependency failed, or the scheduler dropped it"},
    {"unknown", true, k_exit_job_unknown, "the scheduler no longer knows the job (no history kept, or purged)"},
};

}  // namespace

const JobState* find_job_state(std::string_view name) {
  auto found = std::find_if(std::begin(k_job_states), std::end(k_job_states),
                            [&](const JobState& state) { return state.name == name; });
  return found == std::end(k_job_states) ? nullptr : found;
}

std::vector<std::string> job_state_names() {
  std::vector<std::string> names;
  for (const auto& state : k_job_states) names.emplace_back(state.name);
  return names;
}

}  // namespace ezpz::core
