// `ezpz submit`: render, keep the script and the resolved job, submit, print the job id.
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>

#include "ezpz/cli/cli.hpp"
#include "ezpz/cli/command.hpp"
#include "ezpz/cli/job_commands.hpp"
#include "ezpz/profile/detect.hpp"
#include "ezpz/profile/job_state.hpp"
#include "ezpz/submit/batch_script.hpp"
#include "ezpz/submit/submit.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {
namespace {

struct SubmitCommandOptions {
  JobOptions job;
  std::vector<std::string> after;
  std::string records;
  bool dry_run = false;
  bool hold = false;
  bool wait = false;
};

SubmitOptions submit_options(const SubmitCommandOptions& command_options) {
  SubmitOptions options;
  options.records_root = records_root(command_options.records);
  options.submit_dir = std::filesystem::current_path().string();
  options.hold = command_options.hold;
  options.now_utc = iso_utc(std::time(nullptr));
  return options;
}

// Prints the job id (stdout) and where its record is; with --wait, waits and returns the job's code.
int submitted(const SubmitCommandOptions& command_options, const JobRecord& record, const Scheduler& scheduler,
              ProcessRunner& runner, double poll) {
  std::cout << record.job_id << std::endl;
  std::cerr << "ezpz: submitted " << record.job_id << " (" << record.system << "); record in " << record.dir << "\n";
  if (!command_options.wait) return k_exit_ok;
  JobStatus status = wait_for(scheduler, record.job_id, runner, poll);
  int code = status.wait_exit_code();
  std::cerr << "ezpz: job " << record.job_id << " " << job_state_name(status.state)
            << (status.detail.empty() ? std::string() : " (" + status.detail + ")") << "; exit code " << code << "\n";
  return code;
}

// `ezpz submit job.sh`: the user's own batch script, submitted as it is.
int run_submit_script(const SubmitCommandOptions& command_options) {
  const JobOptions& job = command_options.job;
  std::vector<std::string> ignored = job.assignments;
  for (const auto& [key, value] : job.key_flags) {
    if (!value.empty()) ignored.push_back(key);
  }
  if (!ignored.empty() || !program_after_separator().empty()) {
    throw UserError(job.spec_path +
                    " is a batch script: it is submitted as it is, and --set, -N, -t, -q, -A and a "
                    "program after '--' do not apply to it; change the script, or write the job as a spec (ezpz init)");
  }
  Installation installation = Installation::from_process();
  ScriptSubmission script;
  script.path = job.spec_path;
  script.system = chosen_system(installation.catalog, job.system, process_env(), host_name()).system;
  script.after = command_options.after;
  const Scheduler& scheduler = installation.catalog.scheduler(installation.catalog.system(script.system).scheduler);
  std::vector<std::string> prefixes;
  for (const auto& name : installation.catalog.scheduler_names())
    prefixes.push_back(installation.catalog.scheduler(name).directive_prefix);
  if (command_options.dry_run) {
    read_batch_script(script.path);
    std::cout << "ezpz: would submit " << job.spec_path << " as it is with " << join(scheduler.submit, " ")
              << " on system '" << script.system << "'" << std::endl;
    return k_exit_ok;
  }
  double poll = command_options.wait ? poll_seconds() : 0;  // a bad value stops here, before anything is submitted
  SystemProcessRunner runner;
  JobRecord record = submit_script(script, scheduler, prefixes, runner, submit_options(command_options));
  return submitted(command_options, record, scheduler, runner, poll);
}

int run_submit(SubmitCommandOptions command_options) {
  if (!command_options.job.spec_path.empty() && is_batch_script(command_options.job.spec_path))
    return run_submit_script(command_options);
  if (!command_options.after.empty())
    command_options.job.assignments.push_back("after=[" + join(command_options.after, ", ") + "]");
  Installation installation = Installation::from_process();
  ResolvedJob job = command_options.job.resolve_job(installation.catalog);
  Script script = render(job, installation.catalog, installation.ezpz_bin);
  if (command_options.dry_run) {
    std::cout << script.text << std::flush;
    return k_exit_ok;
  }
  double poll = command_options.wait ? poll_seconds() : 0;  // a bad value stops here, before anything is submitted
  SystemProcessRunner runner;
  JobRecord record = submit(job, script, runner, submit_options(command_options));
  return submitted(command_options, record, *job.scheduler, runner, poll);
}

// "124 timeout, 137 out-of-memory, …": the fixed --wait codes of the job-state table.
std::string wait_codes_text() {
  std::vector<std::string> codes;
  for (const auto& name : job_state_names()) {
    const JobStateInfo& state = job_state_info(*parse_job_state(name));
    if (state.wait_exit_code && *state.wait_exit_code != k_exit_ok) {
      codes.push_back(std::to_string(*state.wait_exit_code) + " " + name);
    }
  }
  return join(codes, ", ");
}

}  // namespace

void add_submit_command(CLI::App& app, CommandAction& action) {
  auto command_options = std::make_shared<SubmitCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "submit", "Render, keep and submit a job (qsub/sbatch), or submit a batch script as it is; print its job id");
  command_options->job.add_to(*command);
  command->add_flag("--dry-run", command_options->dry_run, "print the script and submit nothing (same as render)");
  command->add_flag("--hold", command_options->hold, "submit the job held");
  command->add_option("--after", command_options->after, "start only after JOBID completed successfully (repeatable)")
      ->allow_extra_args(false)
      ->type_name("JOBID");
  command->add_flag("--wait", command_options->wait, "wait until the job ends; exit with its exit code");
  add_records_option(*command, command_options->records);
  command->footer(
      "A file whose first line is '#!' is a batch script: it is submitted unchanged on the system\n"
      "(--system, else detected), its directives give the record its job name and output paths, and\n"
      "--hold and --after are passed to qsub/sbatch.\n"
      "Only the job id goes to stdout. The script and the resolved job are kept in\n"
      "~/.local/state/ezpz/jobs/<job id>/ (or --records, $EZPZ_RECORDS_DIR, $XDG_STATE_HOME/ezpz/jobs)\n"
      "before anything is submitted, also when submission fails; status, logs and cancel find them from\n"
      "any directory.\n"
      "--wait exits with the job's own exit code, or for a job that did not end by itself:\n" +
      wait_codes_text() + " (docs/jobs.md).");
  command->callback(
      [&action, command_options] { action = [command_options] { return run_submit(*command_options); }; });
}

}  // namespace ezpz::core
