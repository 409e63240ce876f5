#include "ezpz/runtime/restarts.hpp"

#include "ezpz/submit/status.hpp"
#include "ezpz/util/error.hpp"

namespace ezpz::core {

Restarts job_restarts(const Scheduler& scheduler, const EnvLookup& env, ProcessRunner& runner) {
  if (std::string name = scheduler.job_variable("restart_count", env); !name.empty()) {
    auto value = env(name);
    // Slurm sets it only once the job has been requeued: unset is 0.
    if (!value || value->empty()) return {0, name + " (unset)"};
    if (value->size() < 7 && value->find_first_not_of("0123456789") == std::string::npos) {
      return {std::stol(*value), name};
    }
    return {std::nullopt, name + "='" + *value + "' is not a count"};
  }
  std::string id_name = scheduler.job_variable("job_id", env);
  auto job_id = id_name.empty() ? std::nullopt : env(id_name);
  if (!job_id || job_id->empty()) return {std::nullopt, "no job id (" + (id_name.empty() ? "none" : id_name) + ")"};
  try {
    JobStatus status = query_status(scheduler, *job_id, runner);
    if (!status.starts) return {std::nullopt, "the scheduler's status of " + *job_id + " has no start count"};
    return {std::max(0L, *status.starts - 1), "the scheduler's start count of " + *job_id};
  } catch (const UserError& error) {
    return {std::nullopt, std::string("the status of ") + *job_id + ": " + error.what()};
  }
}

}  // namespace ezpz::core
