// `ezpz status`: the state of recorded or named jobs, with exit codes.
#include <filesystem>
#include <iostream>
#include <memory>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/job_commands.hpp"
#include "ezpz/runtime/failover.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

struct StatusCommandOptions {
  std::vector<std::string> ids;
  std::string records;
  std::string system;
  bool json = false;
};

int run_status(const StatusCommandOptions& options) {
  Installation installation = Installation::from_process();
  std::string root = records_root(options.records);
  std::vector<std::string> ids = options.ids;
  if (ids.empty()) {
    for (const auto& record : list_records(root)) ids.push_back(record.job_id);
    if (ids.empty()) throw UserError("no job ids given and no job records in " + root, "ezpz status JOBID");
  }
  SystemProcessRunner runner;
  nlohmann::json all = nlohmann::json::array();
  if (!options.json)
    std::cout << "JOB ID                    NAME                 STATE       EXIT  STARTS  SUBMITTED\n";
  for (const auto& id : ids) {
    JobRef ref = find_job(installation, root, id, options.system);
    JobStatus status = query_status(*ref.scheduler, ref.job_id, runner);
    std::string name = ref.record ? ref.record->name : "";
    std::string exit = status.exit_code ? std::to_string(*status.exit_code) : "-";
    // Spare-node failover's decisions, recorded by ezpz launch in the job's record directory.
    std::vector<nlohmann::json> decisions = read_decisions(ref.record ? ref.record->dir : record_dir(root, ref.job_id));
    if (options.json) {
      all.push_back({{"job_id", ref.job_id},
                     {"name", name},
                     {"state", job_state_name(status.state)},
                     {"done", status.done()},
                     {"exit_code", status.exit_code ? nlohmann::json(*status.exit_code) : nlohmann::json()},
                     {"starts", status.starts ? nlohmann::json(*status.starts) : nlohmann::json()},
                     {"scheduler_state", status.scheduler_state},
                     {"detail", status.detail},
                     {"record", ref.record ? ref.record->dir : ""},
                     {"failover", decisions}});
      continue;
    }
    std::string starts = status.starts ? std::to_string(*status.starts) : "-";
    std::cout << column(ref.job_id, 26) << column(name, 21) << column(job_state_name(status.state), 12)
              << column(exit, 6) << column(starts, 8) << (ref.record ? ref.record->submitted_at : "")
              << (status.detail.empty() ? "" : "  (" + status.detail + ")") << "\n";
    for (const auto& json : decisions) {
      FailoverDecision decision = FailoverDecision::from_json(json);
      // Swaps and the stop here; what else was noticed: --json.
      if (decision.action == "swap" || decision.action == "drop_spare" || decision.action == "stop") {
        std::cout << "  failover: " << decision.text() << "\n";
      }
    }
  }
  // Scheduler output may hold any bytes: invalid UTF-8 becomes U+FFFD rather than an abort.
  if (options.json) std::cout << all.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return k_exit_ok;
}

}  // namespace

void add_status_command(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<StatusCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "status", "Show the state of jobs: " + join(shown_job_state_names(), ", ") + " (docs/jobs.md)");
  command->add_option("jobs", options->ids, "job ids (default: every job in the records directory)");
  command->add_option("--system", options->system,
                      "system of jobs without a record (default: $EZPZ_SYSTEM, else detected)");
  command->add_flag("--json", options->json, "print JSON");
  add_records_option(*command, options->records);
  command->footer(
      "PBS: qstat -x -f -F json (finished jobs need server job history). Slurm: scontrol show job,\n"
      "which keeps finished jobs for MinJobAge; after that a job's state is 'unknown'.");
  command->callback([&action, options] { action = [options] { return run_status(*options); }; });
}

}  // namespace ezpz::core
