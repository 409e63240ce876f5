// ezpz's words for where a job is, which every scheduler's `states:` map into, and what each means
// for `ezpz submit --wait` (docs/jobs.md "States and exit codes").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ezpz::core {

enum class JobState {
  queued,
  held,
  running,
  ended,
  completed,
  failed,
  timeout,
  out_of_memory,
  cancelled,
  not_run,
  unknown
};

struct JobStateInfo {
  JobState state;
  std::string_view name;  // as users read it: "out-of-memory"
  bool done;              // the job will not change any more
  // What `--wait` returns: a fixed code, or nullopt for the job's own exit code (1 when unknown).
  std::optional<int> wait_exit_code;
  std::string_view meaning;  // one line for docs and `--help`
};

// Every state's row. "ended" is not a state a job is shown in: a scheduler maps its finished states
// there, and its status parser decides from the exit status which state it is.
const JobStateInfo& job_state_info(JobState state);
// "queued", "out-of-memory" …
std::string job_state_name(JobState state);
// The state called `name`, or nullopt.
std::optional<JobState> parse_job_state(std::string_view name);

// Every state's name, in the order a job passes through them.
std::vector<std::string> job_state_names();
// The names of the states a job is shown in: all but "ended".
std::vector<std::string> shown_job_state_names();

}  // namespace ezpz::core
