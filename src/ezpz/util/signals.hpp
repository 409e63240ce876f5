// Signal names as users write them (USR2, SIGUSR2, 12) and the signals ezpz lets a job ask for.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ezpz::core {

// What a signal is for. The signal before the walltime ends (supervise.signal, `launch --signal`) warns
// the ranks, so it must be one they can catch: KILL would end them all with no checkpoint. `ezpz kill
// --signal` may also end ranks outright.
enum class SignalUse { warning, kill };

// The signals for `use`, by their names without "SIG", in the order help texts list them.
const std::vector<std::string>& signal_names(SignalUse use);

// The number of `name` (one of signal_names(use), with or without "SIG", any case, or its number);
// nullopt for anything else.
std::optional<int> signal_number(std::string_view name, SignalUse use);

// "" when `text` names one of signal_names(use), else why not: the check of every --signal option.
std::string signal_problem(std::string_view text, SignalUse use);

// "USR2" for SIGUSR2; "signal N" for a number that has no name here.
std::string signal_name(int number);

}  // namespace ezpz::core
