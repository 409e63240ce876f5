// A batch script the user wrote (`ezpz submit job.sh`): submitted as it is, never rewritten, with the
// same job record as a rendered job, so status, logs, cancel and --wait work for it too.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ezpz/profile/scheduler.hpp"
#include "ezpz/submit/job_record.hpp"
#include "ezpz/submit/process.hpp"
#include "ezpz/submit/submit.hpp"

namespace ezpz::core {

// Whether the file at `path` is a batch script rather than a job spec: its first line is a "#!" line.
// False when it cannot be read (loading it as a spec then reports why).
bool is_batch_script(const std::string& path);

// The text of the batch script at `path`, as the scheduler takes it: a regular file of at most
// k_max_script_bytes without CR LF line ends or NUL bytes. Throws UserError naming the file, or the
// line and column of the first CR LF or NUL.
std::string read_batch_script(const std::string& path);

// What the script's directives say that the record needs. Like qsub and sbatch, only the directive
// lines before the first command are read; the last value of an option wins.
struct ScriptDirectives {
  std::optional<std::string> name;    // the scheduler's job-name option ("-N", "--job-name")
  std::optional<std::string> output;  // its output option ("-o", "--output")
  std::optional<std::string> error;   // its error option ("-e", "--error")
  std::string joined;                 // "output" or "error" when a directive joins both streams there (-j oe)
  std::vector<std::string> prefixes;  // every directive prefix found ("#SBATCH"), for the scheduler check
};

// Reads `text`'s directives with `scheduler`'s prefix and option table. `other_prefixes` are the other
// schedulers' prefixes, recorded in `prefixes` when lines start with them.
ScriptDirectives read_script_directives(const std::string& text, const Scheduler& scheduler,
                                        const std::vector<std::string>& other_prefixes);

struct ScriptSubmission {
  std::string path;                // the script, as given
  std::string system;              // the system it is submitted on (for the record)
  std::vector<std::string> after;  // job ids it must wait for (the scheduler's `after` directive, as options)
};

// Keeps a copy of the script in a new record, submits the script itself (its own file name is the
// default job name) with the scheduler's submit command, and files the record under the job id.
// Throws UserError when the script cannot be read, carries another scheduler's directives, or when the
// submission fails (with the command and the scheduler's stderr).
JobRecord submit_script(const ScriptSubmission& script, const Scheduler& scheduler,
                        const std::vector<std::string>& other_prefixes, ProcessRunner& runner,
                        const SubmitOptions& options);

}  // namespace ezpz::core
