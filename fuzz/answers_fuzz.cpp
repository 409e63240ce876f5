// What schedulers and the environment answer, read by the parsers that match patterns on it: the input's
// first byte picks the reader, the rest is the answer (inputs up to run.sh's 64 KiB, so the 50,000-digit
// job id and the 30,000-digit PBS_O_HOST that crashed std::regex are within reach).
//   0, 1  what sbatch (slurm) or qsub (pbs) printed: job_id_pattern through run_submit_command
//   2..5  node states and job nodes, in slurm-scontrol and pbs-json (the failover's scheduler evidence)
//   6     detection: lines NAME=VALUE are the environment, a line without '=' the hostname
// Seeds: fuzz/corpus/answers.
#include <map>

#include "ezpz/profile/detect.hpp"
#include "ezpz/profile/output_formats.hpp"
#include "ezpz/submit/submit.hpp"
#include "ezpz/util/limits.hpp"
#include "ezpz/util/text.hpp"
#include "fuzz_support.hpp"

using namespace ezpz::core;

namespace {

class OneAnswer : public ezpz::ProcessRunner {
 public:
  explicit OneAnswer(std::string out) : m_out(std::move(out)) {}
  ezpz::ProcessResult run(const std::vector<std::string>&, const std::string&) override {
    return ezpz::ProcessResult{0, m_out, ""};
  }

 private:
  std::string m_out;
};

void submit_answer(const std::string& scheduler_name, std::string_view answer) {
  const Scheduler& scheduler = fuzz::builtin_catalog().scheduler(scheduler_name);
  OneAnswer runner{std::string(answer)};
  fuzz::accepted([&] {
    std::string id = run_submit_command(scheduler, {scheduler.submit.at(0)}, runner, {}, "/kept/job.sh");
    if (id.empty() || id.size() > k_max_job_id_length) {
      fuzz::property_failed("a job id of " + std::to_string(id.size()) + " bytes");
    }
    if (answer.find(id) == std::string_view::npos) fuzz::property_failed("a job id that is not in the answer");
  });
}

void detection(std::string_view text) {
  std::map<std::string, std::string> variables;
  std::string hostname;
  for (const auto& line : split(text, '\n')) {
    auto equals = line.find('=');
    if (equals == std::string::npos) {
      hostname = line;
    } else {
      variables[line.substr(0, equals)] = line.substr(equals + 1);
    }
  }
  auto detection = detect_system(fuzz::builtin_catalog(), DetectInput{table_env(variables), hostname});
  // A shown value is cut to 100 bytes (4 bytes each when escaped); the rest is a name and a pattern.
  if (detection && detection->reason.size() > 1000) {
    fuzz::property_failed("a detection reason of " + std::to_string(detection->reason.size()) + " bytes");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string answer(fuzz::as_text(data + 1, size - 1));
  switch (data[0] % 7) {
    case 0:
      submit_answer("slurm", answer);
      break;
    case 1:
      submit_answer("pbs", answer);
      break;
    case 2:
      (void)parse_node_states("slurm-scontrol", answer);
      break;
    case 3:
      (void)parse_node_states("pbs-json", answer);
      break;
    case 4:
      (void)parse_job_nodes("slurm-scontrol", answer);
      break;
    case 5:
      (void)parse_job_nodes("pbs-json", answer);
      break;
    default:
      detection(answer);
      break;
  }
  return 0;
}
