// Parsers of scheduler status output, one per `status_format`, in a table.
#include "ezpz/submit/status.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>

#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz {
namespace {

std::string mapped(const Scheduler& scheduler, const std::string& state) {
  auto found = scheduler.states.find(state);
  return found == scheduler.states.end() ? "unknown" : found->second;
}

// qstat -x -f -F json: {"Jobs": {"ID": {"job_state": "F", "Exit_status": 0, …}}}. A finished job's
// Exit_status: 0 completed; above 256 killed by signal (status - 256), 271 = SIGTERM from qdel.
void parse_pbs_json(const Scheduler& scheduler, const std::string& out, JobStatus& status) {
  auto json = nlohmann::json::parse(out, nullptr, false);
  if (json.is_discarded() || !json.contains("Jobs") || json["Jobs"].empty()) {
    status.state = "unknown";
    status.detail = "qstat printed no job";
    return;
  }
  const auto& job = json["Jobs"].begin().value();
  status.scheduler_state = job.value("job_state", "");
  status.state = mapped(scheduler, status.scheduler_state);
  if (status.state != "finished") return;
  if (!job.contains("Exit_status")) {
    // Substate 91: deleted before it ran (qdel of a queued or held job), so no exit status.
    if (job.value("substate", 0) == 91) status.state = "cancelled";
    return;
  }
  int code = job["Exit_status"].get<int>();
  status.exit_code = code;
  if (code == 0) {
    status.state = "completed";
  } else if (code > 256) {
    int signal = code - 256;
    status.state = signal == 15 || signal == 9 ? "cancelled" : "failed";
    status.exit_code = 128 + signal;
  } else {
    status.state = "failed";
  }
}

// scontrol -o show job ID: one line of KEY=VALUE words; JobState=COMPLETED ExitCode=0:0 (code:signal).
void parse_slurm_scontrol(const Scheduler& scheduler, const std::string& out, JobStatus& status) {
  std::map<std::string, std::string> fields;
  for (const auto& word : split_words(trim(out))) {
    auto equals = word.find('=');
    if (equals != std::string::npos) fields[word.substr(0, equals)] = word.substr(equals + 1);
  }
  status.scheduler_state = fields["JobState"];
  status.state = mapped(scheduler, status.scheduler_state);
  auto code = fields.find("ExitCode");
  if (code != fields.end() && (status.state == "completed" || status.state == "failed" || status.state == "cancelled")) {
    auto colon = code->second.find(':');
    try {
      int exit = std::stoi(code->second.substr(0, colon));
      int signal = colon == std::string::npos ? 0 : std::stoi(code->second.substr(colon + 1));
      status.exit_code = signal != 0 ? 128 + signal : exit;
    } catch (const std::exception&) {
    }
  }
  if (fields.count("Reason") && fields["Reason"] != "None") status.detail = fields["Reason"];
}

// sacct -n -P -X -o State,ExitCode: "COMPLETED|0:0" (the State may carry " by UID": "CANCELLED by 0").
void parse_slurm_sacct(const Scheduler& scheduler, const std::string& out, JobStatus& status) {
  std::string line = trim(out).substr(0, trim(out).find('\n'));
  auto bar = line.find('|');
  if (line.empty() || bar == std::string::npos) {
    status.state = "unknown";
    status.detail = "neither slurmctld nor accounting knows this job";
    return;
  }
  std::string state = line.substr(0, bar);
  state = state.substr(0, state.find(' '));
  parse_slurm_scontrol(scheduler, "JobState=" + state + " ExitCode=" + line.substr(bar + 1), status);
}

using Parser = std::function<void(const Scheduler&, const std::string&, JobStatus&)>;
const std::map<std::string, Parser> k_parsers = {
    {"pbs-json", parse_pbs_json},
    {"slurm-scontrol", parse_slurm_scontrol},
    {"slurm-sacct", parse_slurm_sacct},
};

// The scheduler's accounting, for a job its live status no longer shows.
void ask_accounting(const Scheduler& scheduler, const std::string& job_id, ProcessRunner& runner, JobStatus& status) {
  status.state = "unknown";
  status.detail = "the scheduler no longer knows this job (finished and purged, or never existed)";
  auto parser = k_parsers.find(scheduler.status_fallback_format);
  if (scheduler.status_fallback.empty() || parser == k_parsers.end()) return;
  ProcessResult result = runner.run(command_for_job(scheduler.status_fallback, job_id));
  if (result.exit_code != 0) {
    status.detail += "; " + scheduler.status_fallback[0] + ": " + trim(result.err);
    return;
  }
  parser->second(scheduler, result.out, status);
}

// What schedulers print for an id they do not know (any more).
const char* const k_unknown_job[] = {"Unknown Job Id", "Invalid job id specified"};

}  // namespace

std::vector<std::string> command_for_job(const std::vector<std::string>& command, const std::string& job_id) {
  std::vector<std::string> argv;
  for (const auto& word : command) argv.push_back(word == "{job_id}" ? job_id : word);
  return argv;
}

bool JobStatus::done() const {
  return state == "completed" || state == "failed" || state == "cancelled" || state == "finished" || state == "unknown";
}

JobStatus query_status(const Scheduler& scheduler, const std::string& job_id, ProcessRunner& runner) {
  JobStatus status;
  status.job_id = job_id;
  auto parser = k_parsers.find(scheduler.status_format);
  if (scheduler.status.empty() || parser == k_parsers.end()) {
    throw UserError("scheduler '" + scheduler.name + "' has no status command");
  }
  std::vector<std::string> argv = command_for_job(scheduler.status, job_id);
  ProcessResult result = runner.run(argv);
  if (result.exit_code != 0) {
    for (const char* text : k_unknown_job) {
      if (result.err.find(text) != std::string::npos || result.out.find(text) != std::string::npos) {
        ask_accounting(scheduler, job_id, runner, status);
        return status;
      }
    }
    throw UserError(argv[0] + " failed (exit code " + std::to_string(result.exit_code) + "): " + command_text(argv) +
                    (trim(result.err).empty() ? std::string() : "\n" + trim(result.err)));
  }
  parser->second(scheduler, result.out, status);
  return status;
}

}  // namespace ezpz
