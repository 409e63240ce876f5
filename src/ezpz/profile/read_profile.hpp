// Typed reading of profile and scheduler documents (already merged along `extends:`).
#pragma once

#include "ezpz/profile/scheduler.hpp"
#include "ezpz/profile/system_profile.hpp"
#include "ezpz/util/yaml_node.hpp"

namespace ezpz::core {

SystemProfile read_system_profile(const YamlNode& root, const std::string& name, Diagnostics& diagnostics);
Scheduler read_scheduler(const YamlNode& root, const std::string& name, Diagnostics& diagnostics);

}  // namespace ezpz::core
