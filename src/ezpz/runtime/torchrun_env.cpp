// The variables torchrun's agent gives each worker, from what every rank knows on its own.
#include "ezpz/runtime/torchrun_env.hpp"

#include <algorithm>

namespace ezpz::core {
namespace {

constexpr const char* k_run_id = "TORCHELASTIC_RUN_ID";
constexpr const char* k_restart_count = "TORCHELASTIC_RESTART_COUNT";
constexpr const char* k_max_restarts = "TORCHELASTIC_MAX_RESTARTS";

// A count `ezpz launch` set for the attempt, or 0.
std::string count_from(const EnvLookup& env, const char* name) {
  auto value = env(name);
  bool digits = value && !value->empty() && value->size() <= 9 &&
                std::all_of(value->begin(), value->end(), [](char c) { return c >= '0' && c <= '9'; });
  return digits ? std::to_string(std::stol(*value)) : "0";
}

// torchrun's variables beyond RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE and MASTER_*, in the order
// of local_elastic_agent.py's worker_env. One worker group per node (group rank = node rank) and one
// role, torchrun's default "default" (so the role's ranks are the global ones).
struct TorchrunVariable {
  const char* name;
  std::string (*value)(const TorchrunFacts& facts, const EnvLookup& env);
};
const TorchrunVariable k_torchrun_variables[] = {
    {"GROUP_RANK", [](const TorchrunFacts& f, const EnvLookup&) { return std::to_string(f.rank.node_rank); }},
    {"GROUP_WORLD_SIZE", [](const TorchrunFacts& f, const EnvLookup&) { return std::to_string(f.nodes); }},
    {"ROLE_RANK", [](const TorchrunFacts& f, const EnvLookup&) { return std::to_string(f.rank.rank); }},
    {"ROLE_WORLD_SIZE", [](const TorchrunFacts& f, const EnvLookup&) { return std::to_string(f.rank.world_size); }},
    {"ROLE_NAME", [](const TorchrunFacts&, const EnvLookup&) { return std::string("default"); }},
    {k_restart_count, [](const TorchrunFacts&, const EnvLookup& env) { return count_from(env, k_restart_count); }},
    {k_max_restarts, [](const TorchrunFacts&, const EnvLookup& env) { return count_from(env, k_max_restarts); }},
    {k_run_id, [](const TorchrunFacts& f, const EnvLookup&) { return torchrun_run_id(f); }},
    // "True" only where torchrun's agent hosts the TCP store (its static rendezvous); here rank 0 does,
    // as init_process_group's env:// expects without it (torch/distributed/rendezvous.py).
    {"TORCHELASTIC_USE_AGENT_STORE", [](const TorchrunFacts&, const EnvLookup&) { return std::string("False"); }},
};

bool exported(const std::vector<std::pair<std::string, std::string>>& exports, const std::string& name) {
  return std::any_of(exports.begin(), exports.end(), [&](const auto& entry) { return entry.first == name; });
}

}  // namespace

std::string torchrun_run_id(const TorchrunFacts& facts) {
  return !facts.job_id.empty() ? facts.job_id : facts.master_addr + ":" + facts.master_port;
}

void add_torchrun_exports(std::vector<std::pair<std::string, std::string>>& exports, const TorchrunFacts& facts,
                          const EnvLookup& env) {
  bool under_torchrun = facts.rank.launcher == "torchrun" && env(k_run_id).has_value();
  if (!under_torchrun) {
    for (const auto& variable : k_torchrun_variables) exports.emplace_back(variable.name, variable.value(facts, env));
  }
  // torchrun/run.py: "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default,
  // to avoid your system being overloaded" when nproc_per_node > 1 and the variable is not set at all.
  if (facts.rank.local_world_size > 1 && !env("OMP_NUM_THREADS") && !exported(exports, "OMP_NUM_THREADS")) {
    exports.emplace_back("OMP_NUM_THREADS", "1");
  }
}

std::vector<std::string> torchrun_agent_variables() {
  std::vector<std::string> names;
  for (const auto& variable : k_torchrun_variables) names.emplace_back(variable.name);
  return names;
}

std::vector<std::pair<std::string, std::string>> torchrun_restart_variables(long attempt, long max_restarts) {
  return {{k_restart_count, std::to_string(attempt)}, {k_max_restarts, std::to_string(max_restarts)}};
}

}  // namespace ezpz::core
