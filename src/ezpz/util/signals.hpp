// Signal names as users write them (USR2, SIGUSR2, 12) and the signals ezpz lets a job ask for.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ezpz::core {

// The signals a job may ask for before its walltime ends and that `ezpz kill --signal` sends, by their
// names without "SIG", in the order help texts list them.
const std::vector<std::string>& signal_names();

// The number of `name` (one of signal_names(), with or without "SIG", any case, or its number);
// nullopt for anything else.
std::optional<int> signal_number(std::string_view name);

// "" when `text` names one of signal_names(), else why not: the check of every --signal option.
std::string signal_problem(std::string_view text);

// "USR2" for SIGUSR2; "signal N" for a number that has no name here.
std::string signal_name(int number);

}  // namespace ezpz::core
