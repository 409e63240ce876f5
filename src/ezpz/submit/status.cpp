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
  if (status.state != "finished" || !job.contains("Exit_status")) return;
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

using Parser = std::function<void(const Scheduler&, const std::string&, JobStatus&)>;
const std::map<std::string, Parser> k_parsers = {
    {"pbs-json", parse_pbs_json},
    {"slurm-scontrol", parse_slurm_scontrol},
};

// What schedulers print for an id they do not know (any more).
const char* const k_unknown_job[] = {"Unknown Job Id", "Invalid job id specified"};

}  // namespace

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
  std::vector<std::string> argv;
  for (const auto& word : scheduler.status) argv.push_back(word == "{job_id}" ? job_id : word);
  ProcessResult result = runner.run(argv);
  if (result.exit_code != 0) {
    for (const char* text : k_unknown_job) {
      if (result.err.find(text) != std::string::npos || result.out.find(text) != std::string::npos) {
        status.state = "unknown";
        status.detail = "the scheduler no longer knows this job (finished and purged, or never existed)";
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
