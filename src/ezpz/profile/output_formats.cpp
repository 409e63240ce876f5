// Every output format ezpz reads, in one table: a scheduler's YAML picks rows by name.
#include "ezpz/profile/output_formats.hpp"

#include <algorithm>
#include <iterator>

#include "ezpz/profile/output_parsers.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

using namespace output_parsers;

struct OutputFormat {
  const char* name;
  bool (*job_status)(const Scheduler&, const std::string&, JobStatus&);  // nullptr: reads no job
  NodeStates (*node_states)(const std::string&);                         // nullptr: reads no nodes
  JobNodes (*job_nodes)(const std::string&);                             // nullptr: reads no job's nodes
  JobList (*job_list)(const Scheduler&, const std::string&);             // nullptr: reads no list of jobs
};

// A new format is a row here (and its parser): the schedulers' YAML files can name it at once.
constexpr OutputFormat k_formats[] = {
    // qstat -x -f -F json (a job), pbsnodes -F json (nodes), qstat -f -F json (a job's exec_host; every job).
    {"pbs-json", pbs_json_status, pbs_json_nodes, pbs_json_job_nodes, pbs_json_job_list},
    // scontrol -o show job / show node: KEY=VALUE words.
    {"slurm-scontrol", slurm_scontrol_status, slurm_scontrol_nodes, slurm_scontrol_job_nodes, nullptr},
    // sacct -n -P -X -o State,ExitCode.
    {"slurm-sacct", slurm_sacct_status, nullptr, nullptr, nullptr},
    // Blank-separated columns, named by the scheduler's `status_columns` (one line: a job's status) or
    // `job_list.columns` (a line per job: squeue --format).
    {"columns", columns_status, nullptr, nullptr, columns_job_list},
};

const OutputFormat* find_format(const std::string& name) {
  auto found = std::find_if(std::begin(k_formats), std::end(k_formats),
                            [&](const OutputFormat& format) { return format.name == name; });
  return found == std::end(k_formats) ? nullptr : found;
}

bool reads(const OutputFormat& format, OutputKind kind) {
  switch (kind) {
    case OutputKind::job_status:
      return format.job_status != nullptr;
    case OutputKind::node_states:
      return format.node_states != nullptr;
    case OutputKind::job_nodes:
      return format.job_nodes != nullptr;
    case OutputKind::job_list:
      return format.job_list != nullptr;
  }
  return false;
}

}  // namespace

namespace output_parsers {

JobState mapped_state(const Scheduler& scheduler, const std::string& state) {
  auto found = scheduler.states.find(state);
  return found == scheduler.states.end() ? JobState::unknown : found->second;
}

bool same_job(std::string_view asked, std::string_view named) {
  asked = asked.substr(0, asked.find(';'));
  if (asked.empty()) return true;
  return named.substr(0, asked.size()) == asked && (named.size() == asked.size() || named[asked.size()] == '.');
}

bool about_another_job(const std::string& named, JobStatus& status) {
  status.state = JobState::unknown;
  status.scheduler_state.clear();
  status.detail = "the scheduler answered about another job (" + quoted_cut(named, 40) + "), not this one";
  return true;
}

}  // namespace output_parsers

bool JobStatus::done() const {
  return job_state_info(state).done;
}

int JobStatus::wait_exit_code() const {
  const JobStateInfo& known = job_state_info(state);
  if (known.wait_exit_code) return *known.wait_exit_code;
  if (exit_code && *exit_code != 0) return *exit_code;
  return 1;  // failed, and the scheduler did not say with which code
}

std::vector<std::string> output_format_names(OutputKind kind) {
  std::vector<std::string> names;
  for (const auto& format : k_formats) {
    if (reads(format, kind)) names.emplace_back(format.name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool parse_job_status(const std::string& format, const Scheduler& scheduler, const std::string& out,
                      JobStatus& status) {
  const OutputFormat* found = find_format(format);
  return found != nullptr && found->job_status != nullptr && found->job_status(scheduler, out, status);
}

NodeStates parse_node_states(const std::string& format, const std::string& out) {
  const OutputFormat* found = find_format(format);
  return found != nullptr && found->node_states != nullptr ? found->node_states(out) : NodeStates{};
}

JobNodes parse_job_nodes(const std::string& format, const std::string& out) {
  const OutputFormat* found = find_format(format);
  return found != nullptr && found->job_nodes != nullptr ? found->job_nodes(out) : std::nullopt;
}

JobList parse_job_list(const std::string& format, const Scheduler& scheduler, const std::string& out) {
  const OutputFormat* found = find_format(format);
  return found != nullptr && found->job_list != nullptr ? found->job_list(scheduler, out) : std::nullopt;
}

}  // namespace ezpz::core
