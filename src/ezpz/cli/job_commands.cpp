// Shared pieces of the job commands.
#include "ezpz/cli/job_commands.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>

#include "ezpz/cli/runtime_command.hpp"
#include "ezpz/profile/detect.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {

JobRef find_job(const Installation& installation, const std::string& records, const std::string& job_id,
                const std::string& system_flag) {
  return find_job(installation.catalog, records, job_id, system_flag, process_env(), host_name());
}

double poll_seconds() {
  return seconds_from_environment("EZPZ_POLL_SECONDS", 2.0, 0.01, 3600);
}

JobStatus wait_for(const Scheduler& scheduler, const std::string& job_id, ProcessRunner& runner, double interval) {
  while (true) {
    JobStatus status = query_status(scheduler, job_id, runner);
    if (status.done()) return status;
    std::this_thread::sleep_for(std::chrono::duration<double>(interval));
  }
}

void add_records_option(CLI::App& command, std::string& records) {
  command.add_option("--records", records,
                     "job records directory (default: $EZPZ_RECORDS_DIR, else $XDG_STATE_HOME/ezpz/jobs, else "
                     "~/.local/state/ezpz/jobs)");
}

}  // namespace ezpz::core
