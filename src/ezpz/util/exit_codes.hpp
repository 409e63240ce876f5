// Exit codes of the ezpz command, in one place (documented in README.md and docs/jobs.md, and in the man
// pages' EXIT STATUS through the tables at the end).
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

// What each code means, for `ezpz man`'s EXIT STATUS sections: every command, then the codes of
// `ezpz submit --wait` and of `ezpz launch` (and the commands that exit with their program's status).
struct ExitCodeMeaning {
  int code;
  const char* meaning;
};

inline constexpr ExitCodeMeaning k_exit_code_meanings[] = {
    {k_exit_ok, "success"},
    {k_exit_user_error,
     "a problem with the spec, a profile or a command (the message says which, with file:line:col, the source "
     "line and a hint)"},
    {k_exit_usage, "bad command-line usage"},
    {k_exit_system_error,
     "the operating system refused: a file or directory that cannot be read or written, a process, memory"},
    {k_exit_internal_error, "a bug in ezpz (an unforeseen exception: please report it)"},
};

inline constexpr ExitCodeMeaning k_job_exit_code_meanings[] = {
    {k_exit_job_unknown, "ezpz cannot tell how the job ended (the scheduler kept no history)"},
    {k_exit_job_not_run, "the job never ran: its dependency failed, or the scheduler dropped it"},
    {k_exit_job_timeout, "the scheduler ended the job at its walltime"},
    {k_exit_job_out_of_memory, "the scheduler ended the job over its memory limit"},
    {k_exit_job_cancelled, "the job was cancelled (qdel/scancel, by a user or an operator)"},
};

inline constexpr ExitCodeMeaning k_launch_exit_code_meanings[] = {
    {k_exit_idle_timeout, "--timeout: no rank wrote a byte for that long, and the launch was ended"},
};

}  // namespace ezpz::core
