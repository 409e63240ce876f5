// `ezpz submit`: render, keep the script and the resolved job, submit, print the job id.
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/job_commands.hpp"
#include "ezpz/submit/submit.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz {
namespace {

struct SubmitFlags {
  JobOptions job;
  std::vector<std::string> after;
  std::string records;
  bool dry_run = false;
  bool hold = false;
  bool wait = false;
};

std::string now_utc() {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

int run_submit(SubmitFlags flags) {
  if (!flags.after.empty()) flags.job.assignments.push_back("after=[" + join(flags.after, ", ") + "]");
  Environment env = Environment::from_process();
  ResolvedJob job = flags.job.resolve_job(env.catalog);
  Script script = render(job, env.catalog, env.ezpz_bin);
  if (flags.dry_run) {
    std::cout << script.text << std::flush;
    return k_exit_ok;
  }
  namespace fs = std::filesystem;
  std::string spec_dir = flags.job.spec_path == "-" ? "." : fs::absolute(flags.job.spec_path).parent_path().string();
  SubmitOptions options;
  options.records_root = records_root(flags.records, spec_dir);
  options.submit_dir = fs::current_path().string();
  options.hold = flags.hold;
  options.now_utc = now_utc();
  SystemProcessRunner runner;
  JobRecord record = submit(job, script, runner, options);
  std::cout << record.job_id << std::endl;
  std::cerr << "ezpz: submitted " << record.job_id << " (" << job.profile->name << "); record in " << record.dir << "\n";
  if (!flags.wait) return k_exit_ok;
  JobStatus status = wait_for(*job.scheduler, record.job_id, runner);
  std::cerr << "ezpz: job " << record.job_id << " " << status.state
            << (status.exit_code ? " (exit code " + std::to_string(*status.exit_code) + ")" : std::string()) << "\n";
  return exit_code_of(status);
}

}  // namespace

void add_submit_command(CLI::App& app, CommandAction& action) {
  auto flags = std::make_shared<SubmitFlags>();
  CLI::App* command = app.add_subcommand("submit", "Render, keep and submit a job (qsub/sbatch); print its job id");
  flags->job.add_to(*command);
  command->add_flag("--dry-run", flags->dry_run, "print the script and submit nothing (same as render)");
  command->add_flag("--hold", flags->hold, "submit the job held");
  command->add_option("--after", flags->after, "start only after JOBID completed successfully (repeatable)")
      ->type_name("JOBID");
  command->add_flag("--wait", flags->wait, "wait until the job ends; exit with its exit code");
  add_records_option(*command, flags->records);
  command->footer("Only the job id goes to stdout. The script and the resolved job are kept in\n"
                  "<spec dir>/.ezpz/jobs/<job id>/ (or --records, $EZPZ_RECORDS_DIR), also when submission fails.");
  command->callback([&action, flags] { action = [flags] { return run_submit(*flags); }; });
}

}  // namespace ezpz
