// The one way ezpz reads environment variables: through a lookup function, so tests pass tables.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace ezpz::core {

// getenv-like: the value of a variable, or nullopt when unset. An empty value is a value here
// (CUDA_VISIBLE_DEVICES="" means "no device"); a setting that an empty value cannot mean anything
// for is read with `setting` instead.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// The real process environment.
EnvLookup process_env();

// A fixed table (tests, simulated sites, the public API's environment maps).
EnvLookup table_env(std::map<std::string, std::string> variables);

// The value of a setting (EZPZ_NODES, TORCH_BACKEND …): nullopt when unset or empty, so that
// `VAR= command` switches a setting off the way shells and schedulers write it.
std::optional<std::string> setting(const EnvLookup& env, const std::string& name);

}  // namespace ezpz::core
