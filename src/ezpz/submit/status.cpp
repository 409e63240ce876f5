// Asking the scheduler about a job: its status command, then its accounting for a job it has forgotten.
#include "ezpz/submit/status.hpp"

#include <algorithm>

#include "ezpz/util/error.hpp"
#include "ezpz/util/option_template.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

// The scheduler's accounting, for a job its live status no longer shows.
void ask_accounting(const Scheduler& scheduler, const std::string& job_id, ProcessRunner& runner, JobStatus& status) {
  status.state = JobState::unknown;
  status.detail = "the scheduler no longer knows this job (finished and purged, no job history kept, or never existed)";
  if (scheduler.status_fallback.empty()) return;
  ProcessResult result = runner.run(command_for_job(scheduler.status_fallback, job_id, scheduler, "accounting"));
  if (result.exit_code != 0) {
    status.detail += "; " + scheduler.status_fallback[0] + ": " + trim(result.err);
    return;
  }
  if (!parse_job_status(scheduler.status_fallback_format, scheduler, result.out, status)) {
    status.state = JobState::unknown;
    status.detail = "neither the scheduler nor its accounting knows this job";
  }
}

// Whether a failed status command says that the scheduler does not know the job (any more).
bool unknown_job(const Scheduler& scheduler, const ProcessResult& result) {
  return std::any_of(scheduler.unknown_job.begin(), scheduler.unknown_job.end(), [&](const std::string& text) {
    return result.err.find(text) != std::string::npos || result.out.find(text) != std::string::npos;
  });
}

}  // namespace

std::vector<std::string> command_for_job(const std::vector<std::string>& command, const std::string& job_id,
                                         const Scheduler& scheduler, const std::string& what) {
  if (command.empty()) {
    throw UserError("scheduler '" + scheduler.name + "' has no " + what + " command",
                    "give the job's system: --system NAME or $EZPZ_SYSTEM (see 'ezpz systems list')");
  }
  std::vector<std::string> argv;
  for (const auto& word : command) argv.push_back(expand_placeholders(word, {{"job_id", job_id}}));
  return argv;
}

JobStatus query_status(const Scheduler& scheduler, const std::string& job_id, ProcessRunner& runner) {
  JobStatus status;
  status.job_id = job_id;
  std::vector<std::string> argv = command_for_job(scheduler.status, job_id, scheduler, "status");
  ProcessResult result = runner.run(argv);
  if (result.exit_code != 0) {
    if (!unknown_job(scheduler, result)) throw UserError(failure_message(argv, result));
    ask_accounting(scheduler, job_id, runner, status);
    return status;
  }
  if (!parse_job_status(scheduler.status_format, scheduler, result.out, status)) {
    throw UserError(argv[0] + " exited 0 but named no job: " + command_and_stderr(argv, result),
                    "is the " + scheduler.name + " server reachable from here?");
  }
  if (status.state == JobState::unknown && status.detail.empty()) {
    status.detail = "the scheduler's state " + quoted_cut(status.scheduler_state, 60) + " is not in schedulers/" +
                    scheduler.name + ".yaml";
  }
  return status;
}

}  // namespace ezpz::core
