// Finding a job's scheduler, and cancelling it.
#include "ezpz/submit/job_ref.hpp"

#include "ezpz/profile/detect.hpp"
#include "ezpz/submit/status.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {

JobRef find_job(const Catalog& catalog, const std::string& records_root, const std::string& job_id,
                const std::string& system, const EnvLookup& env, const std::string& hostname) {
  if (std::string problem = job_id_problem(job_id); !problem.empty()) {
    throw UserError(quoted_cut(job_id, 60) + " is not a job id: " + problem,
                    "give the id the scheduler printed (42, 42.server, 42_3)");
  }
  JobRef ref;
  ref.job_id = job_id;
  ref.record = find_record(records_root, job_id);
  if (ref.record) {
    ref.job_id = ref.record->job_id;
    ref.scheduler = &catalog.scheduler(ref.record->scheduler);
  } else {
    ref.scheduler = &catalog.scheduler(catalog.system(chosen_system(catalog, system, env, hostname).system).scheduler);
  }
  return ref;
}

std::string cancel_job(const JobRef& job, ProcessRunner& runner) {
  std::vector<std::string> argv = command_for_job(job.scheduler->cancel, job.job_id, *job.scheduler, "cancel");
  ProcessResult result = runner.run(argv);
  if (result.exit_code != 0) throw UserError(failure_message(argv, result));
  return trim(result.err);
}

}  // namespace ezpz::core
