// How the runtime reads its process environment: through a lookup function, so tests pass tables.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace ezpz {

// getenv-like: the value of a variable, or nullopt when unset. Empty values count as set.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// The real process environment.
EnvLookup process_env();

// A fixed table (tests, simulated sites).
EnvLookup table_env(std::map<std::string, std::string> variables);

}  // namespace ezpz
