// Merging named templates; what schedulers tell their jobs.
#include "ezpz/profile/scheduler.hpp"

#include <algorithm>

namespace ezpz::core {

void merge_templates(NamedTemplates& base, const NamedTemplates& overlay) {
  for (const auto& item : overlay) {
    const auto& [name, value] = item;
    auto existing =
        std::find_if(base.begin(), base.end(), [&](const auto& entry) { return entry.first == item.first; });
    if (existing == base.end()) {
      if (value) base.emplace_back(name, value);
    } else if (value) {
      existing->second = value;
    } else {
      base.erase(existing);
    }
  }
}

bool Scheduler::has_directive(std::string_view name) const {
  return std::any_of(directives.begin(), directives.end(),
                     [&](const auto& directive) { return directive.first == name && directive.second; });
}

std::string Scheduler::job_variable(std::string_view key) const {
  auto found = job_env.find(std::string(key));
  return found == job_env.end() || found->second.empty() ? std::string() : found->second.front();
}

std::string Scheduler::job_variable(std::string_view key, const EnvLookup& env) const {
  auto found = job_env.find(std::string(key));
  if (found != job_env.end()) {
    for (const auto& variable : found->second) {
      if (auto value = env(variable); value && !value->empty()) return variable;
    }
  }
  return job_variable(key);
}

const std::vector<std::string>& job_env_keys() {
  static const std::vector<std::string> keys = {"end_time", "job_id",        "nodefile",
                                                "nodelist", "restart_count", "submit_dir"};
  return keys;
}

JobVariables job_variables(const std::vector<const Scheduler*>& schedulers) {
  JobVariables variables;
  for (const Scheduler* scheduler : schedulers) {
    auto add = [&](const std::string& key, auto&& each) {
      auto found = scheduler->job_env.find(key);
      if (found == scheduler->job_env.end()) return;
      for (const auto& variable : found->second) each(variable);
    };
    add("nodefile", [&](const std::string& v) { variables.hosts.push_back({v, true}); });
    add("nodelist", [&](const std::string& v) { variables.hosts.push_back({v, false}); });
    add("job_id", [&](const std::string& v) { variables.job_ids.push_back(v); });
    add("end_time", [&](const std::string& v) { variables.end_times.push_back(v); });
  }
  return variables;
}

}  // namespace ezpz::core
