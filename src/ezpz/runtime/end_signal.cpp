#include "ezpz/runtime/end_signal.hpp"

#include "ezpz/runtime/retry.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/handoff_variables.hpp"
#include "ezpz/util/signals.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {

std::optional<EndSignal> end_signal(const EnvLookup& env) {
  auto before_text = env(k_env_signal_before);
  if (!before_text || before_text->empty()) return std::nullopt;
  EndSignal result;
  if (before_text->find_first_not_of("0123456789") != std::string::npos || before_text->size() > 9 ||
      (result.before = std::stol(*before_text)) <= 0) {
    throw UserError("EZPZ_SIGNAL_BEFORE='" + printable(*before_text) + "' is not a number of seconds above 0");
  }
  auto name = env(k_env_end_signal);
  std::string signal = name && !name->empty() ? *name : "USR2";
  if (std::string problem = signal_problem(signal, SignalUse::warning); !problem.empty()) {
    throw UserError("EZPZ_END_SIGNAL='" + printable(signal) + "' is not a signal ezpz warns ranks with: " + problem);
  }
  result.signal = *signal_number(signal, SignalUse::warning);
  std::string unreadable;
  auto end = allocation_end(env, Catalog::builtin_job_variables(), &unreadable);
  if (!end && !unreadable.empty()) {
    throw UserError(unreadable + " is not a time: expected whole seconds since the epoch",
                    "rendered scripts export EZPZ_JOB_END_TIME=$(( $(date +%s) + WALLTIME_SECONDS ))");
  }
  if (!end) {
    throw UserError("EZPZ_SIGNAL_BEFORE is set, but nothing says when the allocation ends",
                    "rendered scripts export EZPZ_JOB_END_TIME; elsewhere export it (seconds since the epoch), "
                    "e.g. EZPZ_JOB_END_TIME=$(( $(date +%s) + 3600 ))");
  }
  result.due = *end - result.before;
  return result;
}

std::vector<std::pair<std::string, std::string>> end_signal_env(const std::string& signal, long before,
                                                                long allocation_end) {
  return {{k_env_job_end_time, std::to_string(allocation_end)},
          {k_env_end_signal, signal},
          {k_env_signal_before, std::to_string(before)}};
}

}  // namespace ezpz::core
