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

SubmitOptions submit_options(const SubmitCommandOptions& flags) {
  SubmitOptions options;
  options.records_root = records_root(flags.records);
  options.submit_dir = std::filesystem::current_path().string();
  options.hold = flags.hold;
  options.now_utc = iso_utc(std::time(nullptr));
  return options;
}

// Prints the job id (stdout) and where its record is; with --wait, waits and returns the job's code.
int submitted(const SubmitCommandOptions& flags, const JobRecord& record, const Scheduler& scheduler,
              ProcessRunner& runner, double poll) {
  std::cout << record.job_id << std::endl;
  std::cerr << "ezpz: submitted " << record.job_id << " (" << record.system << "); record in " << record.dir << "\n";
  if (!flags.wait) return k_exit_ok;
  JobStatus status = wait_for(scheduler, record.job_id, runner, poll);
  int code = status.wait_exit_code();
  std::cerr << "ezpz: job " << record.job_id << " " << job_state_name(status.state)
            << (status.detail.empty() ? std::string() : " (" + status.detail + ")") << "; exit code " << code << "\n";
  return code;
}

// `ezpz submit job.sh`: the user's own batch script, submitted as it is.
int run_submit_script(const SubmitCommandOptions& flags) {
  const JobOptions& job = flags.job;
  std::vector<std::string> ignored = job.assignments;
  for (const auto& [key, value] : job.key_flags) {
    if (!value.empty()) ignored.push_back(key);
  }
  if (!ignored.empty() || !program_after_separator().empty()) {
    throw UserError(job.spec_path +
                    " is a batch script: it is submitted as it is, and --set, -N, -t, -q, -A and a "
                    "program after '--' do not apply to it; change the script, or write the job as a spec (ezpz init)");
  }
  Installation env = Installation::from_process();
  ScriptSubmission script;
  script.path = job.spec_path;
  script.system = chosen_system(env.catalog, job.system, process_env(), host_name()).system;
  script.after = flags.after;
  const Scheduler& scheduler = env.catalog.scheduler(env.catalog.system(script.system).scheduler);
  std::vector<std::string> prefixes;
  for (const auto& name : env.catalog.scheduler_names())
    prefixes.push_back(env.catalog.scheduler(name).directive_prefix);
  if (flags.dry_run) {
    std::cout << "ezpz: would submit " << job.spec_path << " as it is with " << join(scheduler.submit, " ")
              << " on system '" << script.system << "'" << std::endl;
    return k_exit_ok;
  }
  double poll = flags.wait ? poll_seconds() : 0;  // a bad value stops here, before anything is submitted
  SystemProcessRunner runner;
  JobRecord record = submit_script(script, scheduler, prefixes, runner, submit_options(flags));
  return submitted(flags, record, scheduler, runner, poll);
}

int run_submit(SubmitCommandOptions flags) {
  if (!flags.job.spec_path.empty() && is_batch_script(flags.job.spec_path)) return run_submit_script(flags);
  if (!flags.after.empty()) flags.job.assignments.push_back("after=[" + join(flags.after, ", ") + "]");
  Installation env = Installation::from_process();
  ResolvedJob job = flags.job.resolve_job(env.catalog);
  Script script = render(job, env.catalog, env.ezpz_bin);
  if (flags.dry_run) {
    std::cout << script.text << std::flush;
    return k_exit_ok;
  }
  double poll = flags.wait ? poll_seconds() : 0;  // a bad value stops here, before anything is submitted
  SystemProcessRunner runner;
  JobRecord record = submit(job, script, runner, submit_options(flags));
  return submitted(flags, record, *job.scheduler, runner, poll);
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
  auto flags = std::make_shared<SubmitCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "submit", "Render, keep and submit a job (qsub/sbatch), or submit a batch script as it is; print its job id");
  flags->job.add_to(*command);
  command->add_flag("--dry-run", flags->dry_run, "print the script and submit nothing (same as render)");
  command->add_flag("--hold", flags->hold, "submit the job held");
  command->add_option("--after", flags->after, "start only after JOBID completed successfully (repeatable)")
      ->allow_extra_args(false)
      ->type_name("JOBID");
  command->add_flag("--wait", flags->wait, "wait until the job ends; exit with its exit code");
  add_records_option(*command, flags->records);
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
  command->callback([&action, flags] { action = [flags] { return run_submit(*flags); }; });
}

}  // namespace ezpz::core
