// What schedulers print about jobs and nodes, read into ezpz's vocabulary: one table of output formats
// (profile/output_formats.cpp). A scheduler's YAML names a format for each of its commands
// (status_format, status_fallback_format, node_state.format); a new format is one row of that table.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ezpz/profile/job_state.hpp"
#include "ezpz/profile/scheduler.hpp"

namespace ezpz::core {

struct JobStatus {
  std::string job_id;
  JobState state = JobState::unknown;  // never JobState::ended
  std::optional<int> exit_code;        // the job's own exit code (128 + N when signal N killed it)
  std::string scheduler_state;         // as the scheduler said it ("PENDING", "F" …)
  std::string detail;                  // why the state is what it is, when not obvious
  std::optional<long> starts;          // how many times it has started (requeued jobs start again); unknown: nullopt

  // The job will not change any more.
  bool done() const;
  // What `ezpz submit --wait` exits with: the job's own code, or the state's (docs/jobs.md).
  int wait_exit_code() const;
};

// Each node of an answer about nodes: its name and its states, upper case ("DOWN", "NOT_RESPONDING";
// Slurm's "DOWN*+DRAIN" is DOWN, NOT_RESPONDING, DRAIN). A node without a state (PBS: "Unknown node")
// is left out; an answer that cannot be read gives none.
using NodeStates = std::vector<std::pair<std::string, std::vector<std::string>>>;
// The nodes of a job (Slurm's NodeList, PBS's exec_host); nullopt when the answer does not say.
using JobNodes = std::optional<std::vector<std::string>>;

// One job of the scheduler's list of jobs (job_list.command): whose, in which queue, in which state.
struct ListedJob {
  std::string job_id;
  std::string user;     // the owner's user name (PBS's Job_Owner without "@host")
  std::string account;  // the project it is charged to; "" when none
  std::string queue;    // where the scheduler shows it now (PBS: the execution queue a routing queue chose)
  JobState state = JobState::unknown;
};
// nullopt when the answer cannot be read; an empty list when the scheduler holds no job.
using JobList = std::optional<std::vector<ListedJob>>;

// What a format can read.
enum class OutputKind { job_status, node_states, job_nodes, job_list };

// The formats that read `kind`, sorted: the choices a scheduler's YAML has.
std::vector<std::string> output_format_names(OutputKind kind);

// Reads a status command's output in `format` into `status`, with the scheduler's `states:` map (and,
// for columns, its `status_columns`); false when the output names no job or no format has that name.
bool parse_job_status(const std::string& format, const Scheduler& scheduler, const std::string& out, JobStatus& status);
// Reads the answer of node_state.command in `format`.
NodeStates parse_node_states(const std::string& format, const std::string& out);
// Reads the answer of node_state.job_nodes in `format`.
JobNodes parse_job_nodes(const std::string& format, const std::string& out);
// Reads the answer of job_list.command in `format`, with the scheduler's `states:` map (and, for
// columns, its job_list.columns).
JobList parse_job_list(const std::string& format, const Scheduler& scheduler, const std::string& out);

}  // namespace ezpz::core
