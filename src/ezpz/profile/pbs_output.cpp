// PBS output: qstat -F json (a job) and pbsnodes -F json (nodes).
#include "ezpz/profile/output_parsers.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "ezpz/util/text.hpp"

namespace ezpz::core::output_parsers {
namespace {

// PBS's own codes for a job its MoM ended or could not start (OpenPBS src/include/job.h, JOB_EXEC_*);
// a job that ran has its shell's status, or 256 + N when signal N killed the shell.
struct PbsExecCode {
  int code;
  JobState state;
  const char* detail;
};
constexpr PbsExecCode k_pbs_exec_codes[] = {
    {-29, JobState::timeout, "PBS ended the job at its walltime (Exit_status -29, JOB_EXEC_KILL_WALLTIME)"},
    {-28, JobState::timeout, "PBS ended the job over its cput limit (Exit_status -28, JOB_EXEC_KILL_CPUT)"},
    {-27, JobState::out_of_memory, "PBS ended the job over its mem limit (Exit_status -27, JOB_EXEC_KILL_MEM)"},
    {-26, JobState::out_of_memory, "PBS ended the job over its vmem limit (Exit_status -26, JOB_EXEC_KILL_VMEM)"},
    {-25, JobState::failed, "PBS ended the job over its ncpus limit (Exit_status -25, JOB_EXEC_KILL_NCPUS_SUM)"},
    {-24, JobState::failed, "PBS ended the job over its ncpus limit (Exit_status -24, JOB_EXEC_KILL_NCPUS_BURST)"},
};
// Substate of a job ended by a delete request (qdel), JOB_SUBSTATE_TERMINATED in OpenPBS src/include/job.h.
constexpr int k_pbs_substate_terminated = 91;

// The fields of a qstat job that ezpz reads, and the JSON type each must have when present.
struct PbsAttribute {
  const char* key;
  bool (nlohmann::json::*is)() const noexcept;
  const char* type;
};
const PbsAttribute k_pbs_attributes[] = {
    {"job_state", &nlohmann::json::is_string, "a string"},
    {"comment", &nlohmann::json::is_string, "a string"},
    {"substate", &nlohmann::json::is_number_integer, "an integer"},
    {"Exit_status", &nlohmann::json::is_number_integer, "an integer"},
    {"run_count", &nlohmann::json::is_number_integer, "an integer"},
};

bool fits_int(const nlohmann::json& number) {
  if (number.is_number_unsigned()) return number.get<std::uint64_t>() <= std::numeric_limits<int>::max();
  std::int64_t value = number.get<std::int64_t>();
  return value >= std::numeric_limits<int>::min() && value <= std::numeric_limits<int>::max();
}

// What keeps ezpz from reading `job`, or "": a job that is no object, a field of another type than
// expected, a number out of range. Whatever else a newer qstat adds is not looked at.
std::string pbs_job_problem(const nlohmann::json& job) {
  if (!job.is_object()) return std::string("the job is a JSON ") + job.type_name() + ", not an object";
  for (const auto& field : k_pbs_attributes) {
    auto found = job.find(field.key);
    if (found == job.end()) continue;
    bool typed = ((*found).*field.is)();
    if (typed && (!found->is_number_integer() || fits_int(*found))) continue;
    // A scalar as written, an array or object by its kind: dump() recurses, and qstat's nesting is not ours.
    std::string shown = found->is_primitive() ? found->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                                              : std::string("an ") + found->type_name();
    if (shown.size() > 40) shown = shown.substr(0, 40) + "...";
    return "'" + std::string(field.key) + "' is " + printable(shown) + ", expected " + field.type +
           (typed ? " that fits an int" : "");
  }
  return "";
}

}  // namespace

// qstat -x -f -F json: {"Jobs": {"ID": {"job_state": "F", "substate": 92, "Exit_status": 0, …}}}.
bool pbs_json_status(const Scheduler& scheduler, const std::string& out, JobStatus& status) {
  auto json = nlohmann::json::parse(out, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return false;
  auto jobs = json.find("Jobs");
  if (jobs == json.end() || !jobs->is_object() || jobs->empty()) return false;
  auto asked = jobs->begin();
  while (asked != jobs->end() && !same_job(status.job_id, asked.key())) ++asked;
  if (asked == jobs->end()) return about_another_job(jobs->begin().key(), status);
  const auto& job = asked.value();
  if (std::string problem = pbs_job_problem(job); !problem.empty()) {
    status.state = JobState::unknown;
    status.detail = "cannot read the scheduler's answer: " + problem;
    return true;
  }
  status.scheduler_state = job.value("job_state", "");
  status.state = mapped_state(scheduler, status.scheduler_state);
  // run_count: each start (pbs_job_attributes(7B)); absent until the job first runs.
  if (auto runs = job.find("run_count"); runs != job.end()) status.starts = runs->get<int>();
  if (status.state != JobState::ended) return true;
  std::string comment = job.value("comment", "");
  bool deleted = job.value("substate", 0) == k_pbs_substate_terminated;
  if (!job.contains("Exit_status")) {
    // Deleted while queued or held (qdel: substate 91), or aborted by the server without running, e.g.
    // because an afterok parent failed (job_abt in OpenPBS src/server/req_register.c: no Exit_status).
    status.state = deleted ? JobState::cancelled : JobState::not_run;
    status.detail = comment.empty() ? "PBS ended the job before it ran (no Exit_status)" : comment;
    return true;
  }
  int code = job["Exit_status"].get<int>();
  if (code < 0) {
    status.state = JobState::not_run;
    status.detail = "PBS could not run the job (Exit_status " + std::to_string(code) + ")";
    for (const auto& known : k_pbs_exec_codes) {
      if (known.code == code) status.state = known.state, status.detail = known.detail;
    }
    return true;
  }
  status.exit_code = code > 256 ? 128 + (code - 256) : code;
  status.state = deleted ? JobState::cancelled : code == 0 ? JobState::completed : JobState::failed;
  if (deleted && !comment.empty()) status.detail = comment;
  return true;
}

// pbsnodes -F json: {"nodes": {"x1": {"state": "down,offline", …}, "x9": {"x9": "Unknown node "}}}.
NodeStates pbs_json_nodes(const std::string& out) {
  NodeStates nodes;
  auto json = nlohmann::json::parse(out, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return nodes;
  auto list = json.find("nodes");
  if (list == json.end() || !list->is_object()) return nodes;
  for (const auto& [name, node] : list->items()) {
    if (!node.is_object()) continue;
    auto state = node.find("state");
    if (state == node.end() || !state->is_string()) continue;
    std::vector<std::string> states;
    for (const auto& part : split(state->get<std::string>(), ',')) {
      if (!part.empty()) states.push_back(to_upper(part));
    }
    nodes.emplace_back(name, states);
  }
  return nodes;
}

// qstat -f -F json: {"Jobs": {"ID": {"exec_host": "x1/0*2+x2/0*2", …}}}.
JobNodes pbs_json_job_nodes(const std::string& out) {
  auto json = nlohmann::json::parse(out, nullptr, false);
  if (json.is_discarded() || !json.is_object() || !json.contains("Jobs") || !json["Jobs"].is_object() ||
      json["Jobs"].empty()) {
    return std::nullopt;
  }
  const auto& job = json["Jobs"].begin().value();
  if (!job.is_object() || !job.contains("exec_host") || !job["exec_host"].is_string()) return std::nullopt;
  std::vector<std::string> nodes;
  for (const auto& chunk : split(job["exec_host"].get<std::string>(), '+')) {
    std::string node = chunk.substr(0, chunk.find('/'));
    if (!node.empty() && std::find(nodes.begin(), nodes.end(), node) == nodes.end()) nodes.push_back(node);
  }
  return nodes.empty() ? std::nullopt : JobNodes(nodes);
}

namespace {

std::string string_field(const nlohmann::json& job, const char* key) {
  auto found = job.find(key);
  return found != job.end() && found->is_string() ? found->get<std::string>() : std::string();
}

}  // namespace

// qstat -f -F json -t: {"Jobs": {"12.server": {"Job_Owner": "me@login1", "Account_Name": "P", "queue":
// "small", "job_state": "Q", …}, …}}; no "Jobs" when the server holds none. With -t an array job is
// listed as its parent ("13[].server", state B) and each subjob ("13[1].server"): the subjobs are the
// jobs a queue's limits count (ALCF "Limits on job arrays"), so a parent counts only when none of its
// subjobs is listed.
JobList pbs_json_job_list(const Scheduler& scheduler, const std::string& out) {
  auto json = nlohmann::json::parse(out, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return std::nullopt;
  std::vector<ListedJob> listed;
  auto jobs = json.find("Jobs");
  if (jobs == json.end()) return listed;
  if (!jobs->is_object()) return std::nullopt;
  auto has_subjobs = [&](const std::string& parent) {
    std::string prefix = parent.substr(0, parent.find("[]") + 1);  // "13["
    return std::any_of(jobs->items().begin(), jobs->items().end(),
                       [&](const auto& item) { return item.key() != parent && starts_with(item.key(), prefix); });
  };
  for (const auto& [id, job] : jobs->items()) {
    if (!job.is_object()) continue;
    if (id.find("[]") != std::string::npos && has_subjobs(id)) continue;
    ListedJob entry;
    entry.job_id = id;
    std::string owner = string_field(job, "Job_Owner");
    entry.user = owner.substr(0, owner.find('@'));
    entry.account = string_field(job, "Account_Name");
    entry.queue = string_field(job, "queue");
    entry.state = mapped_state(scheduler, string_field(job, "job_state"));
    listed.push_back(std::move(entry));
  }
  return listed;
}

}  // namespace ezpz::core::output_parsers
