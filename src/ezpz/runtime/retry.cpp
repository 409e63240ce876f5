// Retry schedule and end-of-allocation arithmetic for `ezpz launch --retries`.
#include "ezpz/runtime/retry.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <thread>

#include "ezpz/runtime/launch.hpp"

#include "ezpz/util/handoff_variables.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {
namespace {

// "0.2 s", "10 s": tenths below 10 s, whole seconds above.
std::string seconds_text(double seconds) {
  long tenths = std::lround(seconds * 10);
  if (tenths >= 100) return std::to_string(std::lround(seconds)) + " s";
  return std::to_string(tenths / 10) + (tenths % 10 ? "." + std::to_string(tenths % 10) : "") + " s";
}

}  // namespace

double retry_delay(const RetryPolicy& policy, long attempt) {
  if (attempt < 2) return 0;
  double delay = policy.first_delay * std::pow(2.0, static_cast<double>(std::min(attempt - 2, 62L)));
  return std::min(delay, policy.max_delay);
}

std::optional<long> allocation_end(const EnvLookup& env, const JobVariables& variables, std::string* unreadable) {
  // EZPZ_JOB_END_TIME first: ezpz's scripts set it from the walltime they asked for.
  std::vector<std::string> names = {k_env_job_end_time};
  names.insert(names.end(), variables.end_times.begin(), variables.end_times.end());
  for (const auto& name : names) {
    auto text = env(name);
    if (!text || text->empty()) continue;
    bool digits =
        text->size() <= 18 && std::all_of(text->begin(), text->end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits && std::stol(*text) > 0) return std::stol(*text);
    if (unreadable != nullptr && unreadable->empty()) *unreadable = name + "='" + printable(text->substr(0, 40)) + "'";
  }
  return std::nullopt;
}

std::string cannot_finish(std::optional<long> end, double now, double delay, double last_seconds) {
  if (!end) return "";
  double left = static_cast<double>(*end) - now;
  if (left <= 0) return "the allocation has ended";
  if (delay + last_seconds < left) return "";
  return "the last attempt took " + format_walltime(std::lround(last_seconds)) + " and the allocation ends in " +
         format_walltime(std::lround(left));
}

int run_attempts(const std::function<LaunchOutcome()>& attempt, const RetryPolicy& policy, const EnvLookup& env) {
  using Clock = std::chrono::system_clock;
  auto seconds_now = [] { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); };
  long attempts = policy.retries + 1;
  LaunchOutcome outcome;
  for (long number = 1; number <= attempts; ++number) {
    double started = seconds_now();
    outcome = attempt();
    double took = seconds_now() - started;
    if (policy.retries == 0) return outcome.code;
    std::string ended = "ezpz launch: attempt " + std::to_string(number) + " of " + std::to_string(attempts) +
                        (outcome.code == 0 ? " succeeded" : " ended: " + outcome.why) + " after " +
                        format_walltime(std::lround(took));
    if (outcome.code == 0 || outcome.stopped_by_user || number == attempts) {
      std::cerr << ended << (outcome.code != 0 && !outcome.stopped_by_user ? "; no retries left" : "") << "\n";
      return outcome.code;
    }
    if (outcome.end_signal_sent) {
      std::cerr << ended << "; not retrying: the ranks were told that the allocation is about to end\n";
      return outcome.code;
    }
    double delay = retry_delay(policy, number + 1);
    if (std::string why = cannot_finish(allocation_end(env), seconds_now(), delay, took); !why.empty()) {
      std::cerr << ended << "; not retrying: " << why << "\n";
      return outcome.code;
    }
    std::cerr << ended << "; retrying in " << seconds_text(delay) << "\n";
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
  }
  return outcome.code;
}

}  // namespace ezpz::core
