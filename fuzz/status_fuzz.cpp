// Scheduler status output: the input's first byte picks the scheduler (even: pbs, `qstat -F json`;
// odd: slurm, `scontrol show job` then `sacct`) and whether its first command failed; the rest, split at
// lines "%%%", is what each command it runs prints. A status is always one of ezpz's states.
// Seeds: fuzz/corpus/status.
#include <deque>

#include "ezpz/profile/job_state.hpp"
#include "ezpz/submit/status.hpp"
#include "fuzz_support.hpp"

using namespace ezpz::core;

namespace {

// Answers each run with the next piece of the input.
class ScriptedRunner : public ezpz::ProcessRunner {
 public:
  std::deque<ezpz::ProcessResult> answers;
  ezpz::ProcessResult run(const std::vector<std::string>&, const std::string&) override {
    if (answers.empty()) return ezpz::ProcessResult{1, "", "no more answers\n"};
    ezpz::ProcessResult next = answers.front();
    answers.pop_front();
    return next;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  uint8_t choice = data[0];
  std::string_view rest = fuzz::as_text(data + 1, size - 1);
  ScriptedRunner runner;
  const std::string_view separator = "\n%%%\n";
  for (size_t start = 0; start <= rest.size();) {
    size_t end = std::min(rest.find(separator, start), rest.size());
    bool first = runner.answers.empty();
    runner.answers.push_back(ezpz::ProcessResult{first && (choice & 2) ? 1 : 0,
                                                 std::string(rest.substr(start, end - start)),
                                                 first && (choice & 2) ? "Unknown Job Id\n" : ""});
    start = end + separator.size();
  }
  const Scheduler& scheduler = fuzz::builtin_catalog().scheduler(choice & 1 ? "slurm" : "pbs");
  fuzz::accepted([&] {
    JobStatus status = query_status(scheduler, "42", runner);
    if (status.state == JobState::ended)
      fuzz::property_failed("query_status gave state '" + job_state_name(status.state) + "'");
    (void)status.wait_exit_code();
  });
  return 0;
}
