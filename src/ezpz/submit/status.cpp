// Parsers of scheduler status output, one per `status_format`, in a table.
#include "ezpz/submit/status.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>

#include "ezpz/profile/job_state.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

JobState mapped(const Scheduler& scheduler, const std::string& state) {
  auto found = scheduler.states.find(state);
  return found == scheduler.states.end() ? JobState::unknown : found->second;
}

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
struct PbsField {
  const char* key;
  bool (nlohmann::json::*is)() const noexcept;
  const char* type;
};
const PbsField k_pbs_fields[] = {
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
  for (const auto& field : k_pbs_fields) {
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

// qstat -x -f -F json: {"Jobs": {"ID": {"job_state": "F", "substate": 92, "Exit_status": 0, …}}}.
bool parse_pbs_json(const Scheduler& scheduler, const std::string& out, JobStatus& status) {
  auto json = nlohmann::json::parse(out, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return false;
  auto jobs = json.find("Jobs");
  if (jobs == json.end() || !jobs->is_object() || jobs->empty()) return false;
  const auto& job = jobs->begin().value();
  if (std::string problem = pbs_job_problem(job); !problem.empty()) {
    status.state = JobState::unknown;
    status.detail = "cannot read the scheduler's answer: " + problem;
    return true;
  }
  status.scheduler_state = job.value("job_state", "");
  status.state = mapped(scheduler, status.scheduler_state);
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

// A status number of Slurm's ExitCode ("code:signal"): 0 to 255, else nullopt.
std::optional<int> slurm_code(std::string_view text) {
  if (text.empty() || text.size() > 3 || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  int value = std::stoi(std::string(text));
  return value <= 255 ? std::optional<int>(value) : std::nullopt;
}

// A Slurm job from its KEY=VALUE fields (scontrol's words, or sacct's columns by their scontrol names).
using SlurmFields = std::map<std::string, std::string>;
bool slurm_status(const Scheduler& scheduler, const SlurmFields& fields, JobStatus& status) {
  auto job_state = fields.find("JobState");
  if (job_state == fields.end()) return false;
  status.scheduler_state = job_state->second;
  status.state = mapped(scheduler, status.scheduler_state);
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

// scontrol -o show job ID: one line of KEY=VALUE words; JobState=COMPLETED ExitCode=0:0 (code:signal).
bool parse_slurm_scontrol(const Scheduler& scheduler, const std::string& out, JobStatus& status) {
  SlurmFields fields;
  for (const auto& word : split_words(trim(out))) {
    auto equals = word.find('=');
    if (equals != std::string::npos) fields[word.substr(0, equals)] = word.substr(equals + 1);
  }
  return slurm_status(scheduler, fields, status);
}

// sacct -n -P -X -o State,ExitCode: "COMPLETED|0:0" (the State may carry " by UID": "CANCELLED by 0").
bool parse_slurm_sacct(const Scheduler& scheduler, const std::string& out, JobStatus& status) {
  std::string text = trim(out);
  std::string line = text.substr(0, text.find('\n'));
  auto bar = line.find('|');
  if (line.empty() || bar == std::string::npos) return false;
  std::string state = line.substr(0, bar);
  std::string code = line.substr(bar + 1);
  return slurm_status(scheduler, {{"JobState", state.substr(0, state.find(' '))}, {"ExitCode", code.substr(0, code.find('|'))}},
                      status);
}

// Reads a status command's output into `status`; false when the output names no job.
using Parser = std::function<bool(const Scheduler&, const std::string&, JobStatus&)>;
const std::map<std::string, Parser> k_parsers = {
    {"pbs-json", parse_pbs_json},
    {"slurm-scontrol", parse_slurm_scontrol},
    {"slurm-sacct", parse_slurm_sacct},
};

// The scheduler's accounting, for a job its live status no longer shows.
void ask_accounting(const Scheduler& scheduler, const std::string& job_id, ProcessRunner& runner, JobStatus& status) {
  status.state = JobState::unknown;
  status.detail = "the scheduler no longer knows this job (finished and purged, no job history kept, or never existed)";
  auto parser = k_parsers.find(scheduler.status_fallback_format);
  if (scheduler.status_fallback.empty() || parser == k_parsers.end()) return;
  ProcessResult result = runner.run(command_for_job(scheduler.status_fallback, job_id, scheduler, "accounting"));
  if (result.exit_code != 0) {
    status.detail += "; " + scheduler.status_fallback[0] + ": " + trim(result.err);
    return;
  }
  if (!parser->second(scheduler, result.out, status)) {
    status.state = JobState::unknown;
    status.detail = "neither the scheduler nor its accounting knows this job";
  }
}

// What schedulers print for an id they do not know (any more).
const char* const k_unknown_job[] = {"Unknown Job Id", "Invalid job id specified"};

}  // namespace

std::vector<std::string> command_for_job(const std::vector<std::string>& command, const std::string& job_id,
                                         const Scheduler& scheduler, const std::string& what) {
  if (command.empty()) {
    throw UserError("scheduler '" + scheduler.name + "' has no " + what + " command",
                    "give the job's system: --system NAME or $EZPZ_SYSTEM (see 'ezpz systems list')");
  }
  std::vector<std::string> argv;
  for (const auto& word : command) argv.push_back(word == "{job_id}" ? job_id : word);
  return argv;
}

bool JobStatus::done() const {
  return job_state_info(state).done;
}

int JobStatus::wait_exit_code() const {
  const JobStateInfo& known = job_state_info(state);
  if (known.wait_exit_code) return *known.wait_exit_code;
  if (exit_code && *exit_code != 0) return *exit_code;
  return 1;  // failed, and the scheduler did not say with which code
}

JobStatus query_status(const Scheduler& scheduler, const std::string& job_id, ProcessRunner& runner) {
  JobStatus status;
  status.job_id = job_id;
  auto parser = k_parsers.find(scheduler.status_format);
  std::vector<std::string> argv = command_for_job(scheduler.status, job_id, scheduler, "status");
  if (parser == k_parsers.end()) throw UserError("scheduler '" + scheduler.name + "' has no status parser");
  ProcessResult result = runner.run(argv);
  if (result.exit_code != 0) {
    for (const char* text : k_unknown_job) {
      if (result.err.find(text) != std::string::npos || result.out.find(text) != std::string::npos) {
        ask_accounting(scheduler, job_id, runner, status);
        return status;
      }
    }
    throw UserError(failure_message(argv, result));
  }
  if (!parser->second(scheduler, result.out, status)) {
    throw UserError(argv[0] + " exited 0 but named no job: " + command_and_stderr(argv, result),
                    "is the " + scheduler.name + " server reachable from here?");
  }
  if (status.state == JobState::unknown && status.detail.empty()) {
    std::string shown = status.scheduler_state.substr(0, 60) + (status.scheduler_state.size() > 60 ? "..." : "");
    status.detail = "the scheduler's state '" + printable(shown) + "' is not in schedulers/" + scheduler.name + ".yaml";
  }
  return status;
}

}  // namespace ezpz::core
