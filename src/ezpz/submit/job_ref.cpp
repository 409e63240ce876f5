// Finding a job's scheduler, and cancelling it.
#include "ezpz/submit/job_ref.hpp"

#include <algorithm>
#include <cctype>

#include "ezpz/profile/detect.hpp"
#include "ezpz/submit/status.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/limits.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {

std::string job_id_problem(std::string_view id) {
  auto id_character = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("._[];+-").find(c) != std::string_view::npos;
  };
  if (id.empty()) return "it is empty";
  if (id.size() > k_max_job_id_length) {
    return "it is " + std::to_string(id.size()) + " characters long, over " + std::to_string(k_max_job_id_length);
  }
  if (std::isalnum(static_cast<unsigned char>(id.front())) == 0) return "it does not start with a letter or digit";
  if (!std::all_of(id.begin(), id.end(), id_character))
    return "it has characters other than letters, digits and ._[];+-";
  return "";
}

JobRef find_job(const Catalog& catalog, const std::string& records_root, const std::string& job_id,
                const std::string& system, const EnvLookup& env, const std::string& hostname) {
  if (std::string problem = job_id_problem(job_id); !problem.empty()) {
    throw UserError("'" + printable(job_id, 60) + "' is not a job id: " + problem,
                    "give the id the scheduler printed (42, 42.server, 42_3)");
  }
  JobRef ref;
  ref.job_id = job_id;
  ref.record = find_record(records_root, job_id);
  if (ref.record) {
    ref.job_id = ref.record->job_id;
    ref.scheduler = &catalog.scheduler(ref.record->scheduler);
  } else {
    ref.scheduler = &catalog.scheduler(catalog.system(runtime_system(catalog, system, env, hostname)).scheduler);
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
