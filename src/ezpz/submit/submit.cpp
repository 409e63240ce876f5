// Submitting a rendered script and recording it.
#include "ezpz/submit/submit.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "ezpz/submit/job_ref.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/limits.hpp"
#include "ezpz/util/option_template.hpp"
#include "ezpz/util/regex.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace fs = std::filesystem;

std::string job_number(const std::string& job_id) {
  size_t end = 0;
  while (end < job_id.size() && std::isdigit(static_cast<unsigned char>(job_id[end]))) ++end;
  return end == 0 ? job_id : job_id.substr(0, end);
}

std::string begin_record(const SubmitOptions& options, const std::string& tag, const std::vector<KeptFile>& files) {
  // mkdtemp: a new directory (mode 0700: the script holds the spec's env:) under a name no one can
  // guess, where a records directory others can write could hold a link planted at a predictable one.
  std::string pending = record_dir(options.records_root, "pending-" + tag + "-XXXXXX");
  std::error_code error;
  fs::create_directories(options.records_root, error);
  if (error || ::mkdtemp(pending.data()) == nullptr) {
    throw UserError("cannot keep the job's record in " + options.records_root + ": " +
                        (error ? error : std::error_code(errno, std::generic_category())).message(),
                    "nothing was submitted; choose a writable directory with --records DIR or $EZPZ_RECORDS_DIR");
  }
  for (const auto& file : files) {
    write_file_atomically((fs::path(pending) / file.name).string(), file.text, file.executable);
  }
  return pending;
}

std::string run_submit_command(const Scheduler& scheduler, const std::vector<std::string>& argv, ProcessRunner& runner,
                               const SubmitOptions& options, const std::string& kept_script) {
  ProcessResult result = runner.run(argv, options.submit_dir);
  if (result.timed_out) {
    // It may have queued the job before it hung: say what it printed, so nobody submits twice blindly.
    std::string printed = trim(result.out);
    throw UserError(
        failure_message(argv, result),
        (printed.empty() ? "the job may or may not have been submitted: look in the queue before submitting again"
                         : "it printed '" + printable(printed.substr(0, 200)) +
                               "': the job may have been submitted; look in the queue before submitting again") +
            "; the script is kept at " + kept_script);
  }
  if (result.exit_code != 0) throw UserError(failure_message(argv, result), "the script is kept at " + kept_script);
  std::string out = trim(result.out);
  std::string first_line = out.substr(0, out.find('\n'));
  std::string hint =
      "the job may have been submitted: look in the queue before submitting again; the script is kept at " +
      kept_script;
  if (first_line.size() > k_max_job_id_length) {
    throw UserError("cannot find a job id in what " + argv[0] + " printed: its first line, " + quoted_cut(first_line) +
                        ", is longer than any job id (at most " + std::to_string(k_max_job_id_length) + " bytes)",
                    hint);
  }
  auto match = compile_regex(scheduler.job_id_pattern, SourceLoc{scheduler.source}, "job_id_pattern")
                   .full_match_groups(first_line);
  if (!match || match->size() < 2 || !(*match)[1] || (*match)[1]->empty()) {
    throw UserError("cannot find a job id in what " + argv[0] + " printed: " + quoted_cut(out, 1000), hint);
  }
  // A profile's pattern may take more than a job id: it must not become an option of qdel or a path.
  std::string id = *(*match)[1];
  if (std::string problem = job_id_problem(id); !problem.empty()) {
    throw UserError(quoted_cut(id, 60) + ", what " + argv[0] + " printed as the job id, is not a job id: " + problem,
                    hint);
  }
  return id;
}

JobRecord file_record(JobRecord record, const std::string& pending, const SubmitOptions& options) {
  record.submit_dir = options.submit_dir;
  record.submitted_at = options.now_utc;
  record.dir = record_dir(options.records_root, record.job_id);
  std::error_code error;
  if (fs::exists(record.dir, error)) {
    // A record with the same id from an earlier server or cluster: kept aside, never deleted.
    std::string stamp = options.now_utc;
    std::replace(stamp.begin(), stamp.end(), ':', '-');
    fs::rename(record.dir, record.dir + ".before-" + stamp + "-" + std::to_string(::getpid()), error);
  }
  fs::rename(pending, record.dir, error);
  if (error) record.dir = pending;
  write_file_atomically((fs::path(record.dir) / "record.json").string(), record.to_json().dump(2) + "\n");
  return record;
}

std::string output_path(const std::optional<std::string>& value, const std::string& default_path,
                        const std::string& name, const std::string& job_id, const std::string& submit_dir) {
  std::string path;
  if (value) {
    path = replace_all(replace_all(*value, "%j", job_number(job_id)), "%x", name);
  } else if (!default_path.empty()) {
    path = expand_placeholders(default_path, {{"job_number", job_number(job_id)}, {"name", name}});
  } else {
    return {};
  }
  return fs::path(path).is_absolute() ? path : (fs::path(submit_dir) / path).lexically_normal().string();
}

JobRecord submit(const ResolvedJob& job, const Script& script, ProcessRunner& runner, const SubmitOptions& options) {
  const Scheduler& scheduler = *job.scheduler;
  if (scheduler.submit.empty()) {
    throw UserError("system '" + job.profile->name + "' has no scheduler to submit to",
                    "run it here: ezpz render SPEC | bash");
  }
  // The script and the resolved job are on disk before anything runs: nothing is lost on failure, and
  // nothing is submitted without its record.
  std::string pending = begin_record(
      options, job.hash, {{"job.sh", script.text, true}, {"job.json", resolved_json(job, true).dump(2) + "\n"}});
  std::string script_path = (fs::path(pending) / "job.sh").string();
  std::vector<std::string> argv = scheduler.submit;
  if (options.hold && scheduler.submit_hold.empty()) {
    throw UserError("scheduler '" + scheduler.name + "' cannot hold a job: its file has no submit_hold",
                    "submit without --hold, or add submit_hold to schedulers/" + scheduler.name + ".yaml");
  }
  if (options.hold) argv.insert(argv.end(), scheduler.submit_hold.begin(), scheduler.submit_hold.end());
  argv.push_back(fs::absolute(script_path).string());

  JobRecord record;
  record.job_id = run_submit_command(scheduler, argv, runner, options, script_path);
  record.scheduler = scheduler.name;
  record.system = job.profile->name;
  record.name = job.spec.name->value;
  record.submit_command = argv;
  auto value = [](const Field<std::string>& field) { return field ? std::optional(field->value) : std::nullopt; };
  record.output =
      output_path(value(job.spec.output), scheduler.default_output, record.name, record.job_id, options.submit_dir);
  record.error =
      output_path(value(job.spec.error), scheduler.default_error, record.name, record.job_id, options.submit_dir);
  return file_record(record, pending, options);
}

}  // namespace ezpz::core
