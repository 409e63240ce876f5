// ezpz/jobs.hpp: submitting a rendered job, and following it: status and cancel. Every scheduler
// command runs through the caller's ProcessRunner.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ezpz/catalog.hpp"
#include "ezpz/job.hpp"
#include "ezpz/process.hpp"

namespace ezpz {

struct SubmitOptions {
  // Where job records live: "" = $EZPZ_RECORDS_DIR, else $XDG_STATE_HOME/ezpz/jobs, else
  // ~/.local/state/ezpz/jobs (as the ezpz command).
  std::string records_dir;
  std::string submit_dir;  // the job's working directory; "" = the current directory
  bool hold = false;       // submit the job held
};

// A submitted job.
struct Submission {
  std::string job_id;      // as the scheduler printed it ("8414055.aurora-pbs-0001…", "42")
  std::string record_dir;  // the job's record: the exact script, the resolved job, later its decisions
  std::string script;      // the path of the submitted script (inside record_dir)
};

// Keeps the script and the resolved job in a new record, then runs the scheduler's submit command
// through `runner` and reads the job id. Throws Error before anything is submitted when the record
// cannot be written, and, when the submission fails, with the exact command and the scheduler's stderr
// (the record is kept: nothing is lost).
Submission submit(const Job& job, const Script& script, ProcessRunner& runner, const SubmitOptions& options = {});

// A job's state in one vocabulary for every scheduler.
struct JobStatus {
  std::string job_id;
  std::string state;             // queued | held | running | completed | failed | timeout | out-of-memory |
                                 // cancelled | not-run | unknown (docs/jobs.md, "States and exit codes")
  bool done = false;             // the state will not change any more
  std::optional<int> exit_code;  // the job's own exit code once it ended (128 + N when signal N killed it)
  std::string scheduler_state;   // as the scheduler said it ("PENDING", "F" …)
  std::string detail;            // why the state is what it is, when not obvious
};

// Which job a status or cancel call means, and where to find its scheduler.
struct JobQuery {
  std::string job_id;
  std::string records_dir;  // as SubmitOptions::records_dir; a job with a record there uses its scheduler
  // For a job without a record: the system whose scheduler to ask ("" = $EZPZ_SYSTEM, else detection).
  std::string system;
};

// Asks the job's scheduler. A job the scheduler no longer knows is `unknown`, with the reason in
// `detail`. Throws Error with the command and its stderr when the scheduler's command fails, and when
// no system can be found for a job without a record.
JobStatus status(const Catalog& catalog, const JobQuery& query, ProcessRunner& runner);

// Cancels the job (qdel, scancel). Returns what the scheduler printed on stderr, if anything. Throws
// Error as status() does.
std::string cancel(const Catalog& catalog, const JobQuery& query, ProcessRunner& runner);

}  // namespace ezpz
