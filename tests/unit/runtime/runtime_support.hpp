// Helpers of the runtime tests: one rank's environment on a shipped system, from given variables.
#pragma once

#include <map>
#include <string>

#include "../test_support.hpp"
#include "ezpz/runtime/rank_setup.hpp"

namespace ezpz::core::test {

// The rank environment `ezpz exec` would build on `system` with exactly `variables` set and no devices.
inline RankSetup rank_setup_on(const std::string& system, std::map<std::string, std::string> variables) {
  RuntimeInputs inputs;
  inputs.profile = &builtin_catalog().system(system);
  inputs.env = table_env(std::move(variables));
  inputs.device_root = "/nonexistent";
  return rank_setup(inputs);
}

}  // namespace ezpz::core::test
