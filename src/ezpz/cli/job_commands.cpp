// Shared pieces of the job commands.
#include "ezpz/cli/job_commands.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>

#include "ezpz/cli/runtime_command.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz {

JobRef find_job(const Environment& env, const std::string& records, const std::string& job_id,
                const std::string& system_flag) {
  JobRef ref;
  ref.job_id = job_id;
  ref.record = find_record(records, job_id);
  if (ref.record) {
    ref.job_id = ref.record->job_id;
    ref.scheduler = &env.catalog.scheduler(ref.record->scheduler);
  } else {
    ref.scheduler = &env.catalog.scheduler(env.catalog.system(runtime_system(env, system_flag)).scheduler);
  }
  return ref;
}

double poll_seconds() {
  double interval = 2.0;
  if (const char* text = std::getenv("EZPZ_POLL_SECONDS"); text != nullptr && *text != '\0') {
    char* end = nullptr;
    interval = std::strtod(text, &end);
    // atof("abc") is 0: --wait would ask the scheduler in a tight loop.
    if (*end != '\0' || !(interval >= 0.01 && interval <= 3600)) {
      throw UserError("EZPZ_POLL_SECONDS='" + printable(text) + "' is not a number of seconds from 0.01 to 3600");
    }
  }
  return interval;
}

JobStatus wait_for(const Scheduler& scheduler, const std::string& job_id, ProcessRunner& runner, double interval) {
  while (true) {
    JobStatus status = query_status(scheduler, job_id, runner);
    if (status.done()) return status;
    std::this_thread::sleep_for(std::chrono::duration<double>(interval));
  }
}

void add_records_option(CLI::App& command, std::string& records) {
  command.add_option("--records", records, "job records directory (default: $EZPZ_RECORDS_DIR, else $XDG_STATE_HOME/ezpz/jobs, else ~/.local/state/ezpz/jobs)");
}

}  // namespace ezpz
