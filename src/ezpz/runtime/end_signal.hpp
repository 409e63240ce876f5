// The signal before the allocation ends (docs/runtime-env.md, "The signal before the walltime"): what
// a rank's environment asks for, and when it is due. Every rank's `ezpz exec` sends it to its own
// program, so it reaches every rank on every node whatever the launcher forwards.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

// EZPZ_END_SIGNAL (a name of signal_names(), default USR2) and EZPZ_SIGNAL_BEFORE (seconds) say which
// signal and how long before the end; the end is allocation_end() (runtime/retry.hpp).
struct EndSignal {
  int signal = 0;
  long before = 0;  // seconds
  long due = 0;     // seconds since the epoch: the allocation's end minus `before`
};

// The end signal the environment asks for; nullopt when EZPZ_SIGNAL_BEFORE is unset or empty.
// Throws UserError when it is malformed, names an unknown signal, or the allocation's end is unknown.
std::optional<EndSignal> end_signal(const EnvLookup& env);

// The variables that ask for it, as `ezpz launch --signal-before` exports them for its ranks.
std::vector<std::pair<std::string, std::string>> end_signal_env(const std::string& signal, long before,
                                                                long allocation_end);

}  // namespace ezpz::core
