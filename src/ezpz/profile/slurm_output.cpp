// Slurm output: scontrol -o show job / node and sacct -P.
#include "ezpz/profile/output_parsers.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "ezpz/util/error.hpp"
#include "ezpz/util/hostlist.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core::output_parsers {
namespace {

// A status number of Slurm's ExitCode ("code:signal"): 0 to 255, else nullopt.
std::optional<int> slurm_code(std::string_view text) {
  if (text.empty() || text.size() > 3 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  int value = std::stoi(std::string(text));
  return value <= 255 ? std::optional<int>(value) : std::nullopt;
}

// A Slurm job from its KEY=VALUE fields (scontrol's words, or sacct's columns by their scontrol names).
using SlurmKeyValues = std::map<std::string, std::string>;
bool slurm_status(const Scheduler& scheduler, const SlurmKeyValues& fields, JobStatus& status) {
  auto job_state = fields.find("JobState");
  if (job_state == fields.end()) return false;
  status.scheduler_state = job_state->second;
  status.state = mapped_state(scheduler, status.scheduler_state);
  if (status.scheduler_state.empty()) status.detail = "the scheduler gave an empty JobState";
  auto reason_field = fields.find("Reason");
  std::string reason = reason_field != fields.end() && reason_field->second != "None" ? reason_field->second : "";
  if (!reason.empty()) status.detail = reason;
  const auto& never = scheduler.never_starts;
  const auto& held = scheduler.held_reasons;
  if (status.state == JobState::queued && std::find(never.begin(), never.end(), reason) != never.end()) {
    status.state = JobState::not_run;
    status.detail = reason + ": Slurm will never start it (scancel it)";
  } else if (status.state == JobState::queued && std::find(held.begin(), held.end(), reason) != held.end()) {
    status.state = JobState::held;
  }
  const JobStateInfo& state = job_state_info(status.state);
  // Restarts=N counts the requeues (scontrol(1)); the current run counts when it started.
  if (auto restarts = fields.find("Restarts"); restarts != fields.end() && !restarts->second.empty() &&
                                               restarts->second.size() < 6 &&
                                               restarts->second.find_first_not_of("0123456789") == std::string::npos) {
    // A job that ended ran, unless it never did (not-run) or was cancelled before it started.
    auto run_time = fields.find("RunTime");
    bool ran = run_time != fields.end() && run_time->second != "00:00:00";
    bool started = status.state == JobState::running ||
                   (state.done && status.state != JobState::not_run && (status.state != JobState::cancelled || ran));
    status.starts = std::stol(restarts->second) + (started ? 1 : 0);
  }
  auto code = fields.find("ExitCode");
  if (code != fields.end() && state.done && status.state != JobState::not_run) {
    // "code:signal"; anything else (a newer format, garbage) leaves the exit code unknown.
    std::string_view text = code->second;
    size_t colon = text.find(':');
    auto exit = slurm_code(text.substr(0, colon));
    auto signal = colon == std::string_view::npos ? std::optional<int>(0) : slurm_code(text.substr(colon + 1));
    if (exit && signal) status.exit_code = *signal != 0 ? 128 + *signal : *exit;
  }
  return true;
}

}  // namespace

// scontrol -o show job ID: a line of KEY=VALUE words per job; JobState=COMPLETED ExitCode=0:0
// (code:signal). The line of the job asked about: its JobId, or an array task's ArrayJobId_ArrayTaskId
// (scontrol(1)); an answer about other jobs only is not this job's. Lines without a JobId are read
// together, as one job.
bool slurm_scontrol_status(const Scheduler& scheduler, const std::string& out, JobStatus& status) {
  SlurmKeyValues anonymous;
  std::string first_named;
  for (const auto& line : split(out, '\n')) {
    SlurmKeyValues fields;
    for (const auto& word : split_words(line)) {
      auto equals = word.find('=');
      if (equals != std::string::npos) fields[word.substr(0, equals)] = word.substr(equals + 1);
    }
    auto id = fields.find("JobId");
    if (id == fields.end()) {
      fields.merge(anonymous);
      anonymous = std::move(fields);
      continue;
    }
    std::string task = fields["ArrayJobId"] + "_" + fields["ArrayTaskId"];
    if (same_job(status.job_id, id->second) || same_job(status.job_id, task)) {
      return slurm_status(scheduler, fields, status);
    }
    if (first_named.empty()) first_named = id->second;
  }
  if (!first_named.empty()) return about_another_job(first_named, status);
  return slurm_status(scheduler, anonymous, status);
}

// sacct -n -P -X -o State,ExitCode: "COMPLETED|0:0" (the State may carry " by UID": "CANCELLED by 0").
bool slurm_sacct_status(const Scheduler& scheduler, const std::string& out, JobStatus& status) {
  std::string text = trim(out);
  std::string line = text.substr(0, text.find('\n'));
  auto bar = line.find('|');
  if (line.empty() || bar == std::string::npos) return false;
  std::string state = line.substr(0, bar);
  std::string code = line.substr(bar + 1);
  return slurm_status(scheduler,
                      {{"JobState", state.substr(0, state.find(' '))}, {"ExitCode", code.substr(0, code.find('|'))}},
                      status);
}

// scontrol -o show node: one line per node, "NodeName=n1 … State=IDLE+DRAIN …". A '*' after the base
// state means the node is not responding (sinfo(1), NODE STATE CODES).
NodeStates slurm_scontrol_nodes(const std::string& out) {
  NodeStates nodes;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::string name, state;
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      if (auto rest = strip_prefix(word, "NodeName=")) name = *rest;
      if (auto rest = strip_prefix(word, "State=")) state = *rest;
    }
    if (name.empty() || state.empty()) continue;
    std::vector<std::string> states;
    for (std::string part : split(state, '+')) {
      if (!part.empty() && part.back() == '*') {
        part.pop_back();
        states.push_back("NOT_RESPONDING");
      }
      if (!part.empty()) states.push_back(to_upper(part));
    }
    nodes.emplace_back(name, states);
  }
  return nodes;
}

// scontrol -o show job: "… NodeList=n[1,3] …" (Slurm host list syntax).
JobNodes slurm_scontrol_job_nodes(const std::string& out) {
  for (const auto& word : split_words(out)) {
    auto list = strip_prefix(word, "NodeList=");
    if (!list || list->empty() || *list == "(null)") continue;
    try {
      return expand_hostlist(*list, "NodeList");
    } catch (const UserError&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace ezpz::core::output_parsers
