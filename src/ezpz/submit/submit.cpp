// Submitting a rendered script and recording it.
#include "ezpz/submit/submit.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "ezpz/util/error.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

// An output path as the scheduler will write it: Slurm's %j/%x, or the scheduler's default name ("" = none).
std::string output_path(const Field<std::string>& spec_value, const std::string& default_path, const std::string& name,
                        const std::string& job_id, const std::string& submit_dir) {
  std::string path;
  if (spec_value) {
    path = replace_all(replace_all(spec_value->value, "%j", job_number(job_id)), "%x", name);
  } else if (!default_path.empty()) {
    path = replace_all(replace_all(default_path, "{job_number}", job_number(job_id)), "{name}", name);
  } else {
    return {};
  }
  return fs::path(path).is_absolute() ? path : (fs::path(submit_dir) / path).lexically_normal().string();
}

}  // namespace

std::string job_number(const std::string& job_id) {
  size_t end = 0;
  while (end < job_id.size() && std::isdigit(static_cast<unsigned char>(job_id[end]))) ++end;
  return end == 0 ? job_id : job_id.substr(0, end);
}

JobRecord submit(const ResolvedJob& job, const Script& script, ProcessRunner& runner, const SubmitOptions& options) {
  const Scheduler& scheduler = *job.scheduler;
  if (scheduler.submit.empty()) {
    throw UserError("system '" + job.profile->name + "' has no scheduler to submit to",
                    "run it here: ezpz render SPEC | bash");
  }
  // The script and the resolved job are on disk before anything runs: nothing is lost on failure, and
  // nothing is submitted without its record.
  std::string pending = record_dir(options.records_root, "pending-" + job.hash + "-" + std::to_string(::getpid()));
  std::string script_path = (fs::path(pending) / "job.sh").string();
  try {
    fs::create_directories(pending);
    write_file_atomically(script_path, script.text, true);
    write_file_atomically((fs::path(pending) / "job.json").string(), resolved_json(job, true).dump(2) + "\n");
  } catch (const fs::filesystem_error& error) {
    throw UserError("cannot keep the job's record in " + options.records_root + ": " + error.code().message(),
                    "nothing was submitted; choose a writable directory with --records DIR or $EZPZ_RECORDS_DIR");
  }

  std::vector<std::string> argv = scheduler.submit;
  if (options.hold) argv.insert(argv.end(), scheduler.submit_hold.begin(), scheduler.submit_hold.end());
  argv.push_back(fs::absolute(script_path).string());
  ProcessResult result = runner.run(argv, options.submit_dir);
  if (result.timed_out) {
    // It may have queued the job before it hung: say what it printed, so nobody submits twice blindly.
    std::string printed = trim(result.out);
    throw UserError(failure_message(argv, result),
                    (printed.empty() ? "the job may or may not have been submitted: look in the queue before submitting again"
                                     : "it printed '" + printable(printed.substr(0, 200)) +
                                           "': the job may have been submitted; look in the queue before submitting again") +
                        "; the script is kept at " + script_path);
  }
  if (result.exit_code != 0) throw UserError(failure_message(argv, result), "the rendered script is kept at " + script_path);
  std::smatch match;
  std::string out = trim(result.out);
  std::string first_line = out.substr(0, out.find('\n'));
  if (!std::regex_match(first_line, match, std::regex(scheduler.job_id_pattern)) || match[1].str().empty()) {
    throw UserError("cannot find a job id in what " + scheduler.submit[0] + " printed: '" + printable(out) + "'",
                    "the job may have been submitted; the script is kept at " + script_path);
  }

  JobRecord record;
  record.job_id = match[1].str();
  record.scheduler = scheduler.name;
  record.system = job.profile->name;
  record.name = job.spec.name->value;
  record.submit_dir = options.submit_dir;
  record.submit_command = argv;
  record.output = output_path(job.spec.output, scheduler.default_output, record.name, record.job_id, options.submit_dir);
  record.error = output_path(job.spec.error, scheduler.default_error, record.name, record.job_id, options.submit_dir);
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

}  // namespace ezpz::core
