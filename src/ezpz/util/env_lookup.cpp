// Environment lookups.
#include "ezpz/util/env_lookup.hpp"

#include <cstdlib>

namespace ezpz::core {

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

EnvLookup table_env(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const std::string& name) -> std::optional<std::string> {
    auto found = variables.find(name);
    if (found == variables.end()) return std::nullopt;
    return found->second;
  };
}

std::optional<std::string> setting(const EnvLookup& env, const std::string& name) {
  std::optional<std::string> value = env(name);
  if (!value || value->empty()) return std::nullopt;
  return value;
}

}  // namespace ezpz::core
