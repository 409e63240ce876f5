#include "ezpz/util/signals.hpp"

#include <csignal>

#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

struct NamedSignal {
  const char* name;
  int number;
  bool catchable;  // a process can handle it (signal(7): not KILL, not STOP)
};

// USR1 and USR2 first: what checkpointing code listens for (NCCL's own handler uses USR1).
const NamedSignal k_signals[] = {
    {"USR2", SIGUSR2, true}, {"USR1", SIGUSR1, true}, {"TERM", SIGTERM, true}, {"INT", SIGINT, true},
    {"HUP", SIGHUP, true},   {"QUIT", SIGQUIT, true}, {"ALRM", SIGALRM, true}, {"KILL", SIGKILL, false},
};

bool serves(const NamedSignal& signal, SignalUse use) {
  return signal.catchable || use == SignalUse::kill;
}

const NamedSignal* find_signal(std::string_view name) {
  std::string upper = to_upper(name);
  std::string_view bare = upper;
  if (auto rest = strip_prefix(bare, "SIG")) bare = *rest;
  for (const auto& entry : k_signals) {
    if (bare == entry.name || bare == std::to_string(entry.number)) return &entry;
  }
  return nullptr;
}

}  // namespace

const std::vector<std::string>& signal_names(SignalUse use) {
  auto names_for = [](SignalUse wanted) {
    std::vector<std::string> names;
    for (const auto& entry : k_signals) {
      if (serves(entry, wanted)) names.emplace_back(entry.name);
    }
    return names;
  };
  static const std::vector<std::string> k_warning = names_for(SignalUse::warning);
  static const std::vector<std::string> k_kill = names_for(SignalUse::kill);
  return use == SignalUse::warning ? k_warning : k_kill;
}

std::optional<int> signal_number(std::string_view name, SignalUse use) {
  const NamedSignal* found = find_signal(name);
  return found != nullptr && serves(*found, use) ? std::optional<int>(found->number) : std::nullopt;
}

std::string signal_problem(std::string_view text, SignalUse use) {
  const NamedSignal* found = find_signal(text);
  if (found != nullptr && !serves(*found, use)) {
    return std::string(found->name) + " cannot be caught, so the ranks would end with no checkpoint; one of " +
           join(signal_names(use), ", ");
  }
  return found != nullptr ? std::string() : "not one of " + join(signal_names(use), ", ");
}

std::string signal_name(int number) {
  for (const auto& entry : k_signals) {
    if (entry.number == number) return entry.name;
  }
  return "signal " + std::to_string(number);
}

}  // namespace ezpz::core
