// Exit codes of the ezpz command, in one place (documented in README.md and docs/jobs.md).
#pragma once

namespace ezpz::core {

enum ExitCode : int {
  k_exit_ok = 0,
  k_exit_user_error = 1,       // bad spec, unknown system, failed scheduler command …
  k_exit_usage = 2,            // bad command line
  k_exit_system_error = 3,     // the operating system refused: a file or directory, a process, memory
  k_exit_internal_error = 70,  // a bug in ezpz (an exception nobody foresaw; 70 is sysexits' EX_SOFTWARE)
};

// What `ezpz submit --wait` returns for a job that ended without an exit code of its own, or was ended
// by the scheduler. A job that ran and exited returns its own code (128 + N when signal N killed it).
enum JobExitCode : int {
  k_exit_job_unknown = 122,        // ezpz cannot tell how the job ended (the scheduler kept no history)
  k_exit_job_not_run = 123,        // the job never ran: its dependency failed, or the scheduler dropped it
  k_exit_job_timeout = 124,        // the scheduler ended it at its walltime (as timeout(1) exits 124)
  k_exit_job_out_of_memory = 137,  // the scheduler ended it over its memory limit (128 + SIGKILL)
  k_exit_job_cancelled = 143,      // qdel/scancel, by a user or an operator (128 + SIGTERM)
};

// What `ezpz launch` returns when it ended the launch itself (otherwise: the failing rank's code).
enum LaunchExitCode : int {
  k_exit_idle_timeout = 124,  // --timeout: no rank wrote a byte for that long (as timeout(1) exits 124)
};

}  // namespace ezpz::core
