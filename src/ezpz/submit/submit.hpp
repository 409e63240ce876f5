// submit: the last step of the pipeline (load → resolve → render → submit). It keeps the exact
// script and the resolved job on disk before running qsub/sbatch, so a failure loses nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ezpz/render/render.hpp"
#include "ezpz/resolve/resolve.hpp"
#include "ezpz/submit/job_record.hpp"
#include "ezpz/submit/process.hpp"

namespace ezpz::core {

struct SubmitOptions {
  std::string records_root;  // where job records live (see records_root())
  std::string submit_dir;    // the directory the job is submitted from (its working directory)
  bool hold = false;         // submit held
  std::string now_utc;       // the time stamp recorded (passed in: submit stays testable)
};

// Writes the script and the resolved job into a new record, runs the scheduler's submit command with
// `runner`, parses the job id, and files the record under the id. Throws UserError with the exact
// command, the scheduler's stderr and the kept script's path when the submission fails, and before
// submitting anything when the record cannot be written.
JobRecord submit(const ResolvedJob& job, const Script& script, ProcessRunner& runner, const SubmitOptions& options);

// The steps of a submission, shared by rendered jobs and scripts the user wrote (submit/batch_script.hpp).

// A file kept in a job's record.
struct KeptFile {
  std::string name;  // "job.sh"
  std::string text;
  bool executable = false;
};

// Makes a new pending record directory, options.records_root/pending-TAG-<random> (mode 0700), holding
// `files` (written with write_file_atomically). Throws UserError, before anything is submitted, when it
// cannot be written.
std::string begin_record(const SubmitOptions& options, const std::string& tag, const std::vector<KeptFile>& files);

// Runs `argv` in options.submit_dir and returns the job id it printed (scheduler.job_id_pattern).
// Throws UserError with the command, what it printed and `kept_script` when it fails, hangs or prints
// no job id.
std::string run_submit_command(const Scheduler& scheduler, const std::vector<std::string>& argv, ProcessRunner& runner,
                               const SubmitOptions& options, const std::string& kept_script);

// Files `pending` as the record of record.job_id (an older record of the same id is moved aside, never
// deleted) and writes record.json; sets submit_dir, submitted_at and dir from `options`.
JobRecord file_record(JobRecord record, const std::string& pending, const SubmitOptions& options);

// Where the scheduler writes a job's output: `value` (with Slurm's %j and %x) when the job names it,
// else the scheduler's default ({name}, {job_number}); "" when neither. Relative paths are taken from
// `submit_dir`.
std::string output_path(const std::optional<std::string>& value, const std::string& default_path,
                        const std::string& name, const std::string& job_id, const std::string& submit_dir);

// "8414055" from "8414055.aurora-pbs-0001…", "42" from "42_3": the number PBS and Slurm use in
// default output file names.
std::string job_number(const std::string& job_id);

}  // namespace ezpz::core
