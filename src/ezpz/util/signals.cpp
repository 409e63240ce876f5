#include "ezpz/util/signals.hpp"

#include <csignal>

#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

struct NamedSignal {
  const char* name;
  int number;
};

// USR1 and USR2 first: what checkpointing code listens for (NCCL's own handler uses USR1).
const NamedSignal k_signals[] = {
    {"USR2", SIGUSR2}, {"USR1", SIGUSR1}, {"TERM", SIGTERM}, {"INT", SIGINT},
    {"HUP", SIGHUP},   {"QUIT", SIGQUIT}, {"ALRM", SIGALRM}, {"KILL", SIGKILL},
};

}  // namespace

const std::vector<std::string>& signal_names() {
  static const std::vector<std::string> k_names = [] {
    std::vector<std::string> names;
    for (const auto& entry : k_signals) names.emplace_back(entry.name);
    return names;
  }();
  return k_names;
}

std::optional<int> signal_number(std::string_view name) {
  std::string upper = to_upper(name);
  std::string_view bare = upper;
  if (auto rest = strip_prefix(bare, "SIG")) bare = *rest;
  for (const auto& entry : k_signals) {
    if (bare == entry.name || bare == std::to_string(entry.number)) return entry.number;
  }
  return std::nullopt;
}

std::string signal_problem(std::string_view text) {
  return signal_number(text) ? std::string() : "not one of " + join(signal_names(), ", ");
}

std::string signal_name(int number) {
  for (const auto& entry : k_signals) {
    if (entry.number == number) return entry.name;
  }
  return "signal " + std::to_string(number);
}

}  // namespace ezpz::core
