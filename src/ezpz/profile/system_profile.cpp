// Small queries on profiles.
#include "ezpz/profile/system_profile.hpp"

#include <algorithm>
#include <numeric>

namespace ezpz::core {

namespace {

constexpr std::pair<LauncherKind, const char*> k_launcher_kinds[] = {
    {LauncherKind::mpiexec, "mpiexec"}, {LauncherKind::srun, "srun"}, {LauncherKind::local, "local"}};

}  // namespace

const char* launcher_kind_name(LauncherKind kind) {
  for (const auto& [k, name] : k_launcher_kinds) {
    if (k == kind) return name;
  }
  return "?";
}

std::optional<LauncherKind> parse_launcher_kind(std::string_view name) {
  for (const auto& [kind, n] : k_launcher_kinds) {
    if (name == n) return kind;
  }
  return std::nullopt;
}

std::vector<std::string> launcher_kind_names() {
  std::vector<std::string> names;
  for (const auto& [kind, name] : k_launcher_kinds) names.emplace_back(name);
  return names;
}

std::vector<std::string> launcher_family_names() {
  return {"pals", "hydra", "openmpi", "srun", "local"};
}

Devices Devices::for_ranks_per_node(long ranks_per_node) const {
  Devices devices = *this;
  auto layout = by_ranks_per_node.find(ranks_per_node);
  if (layout == by_ranks_per_node.end()) return devices;
  devices.count = layout->second.count;
  devices.sockets = layout->second.sockets;
  devices.order.resize(static_cast<size_t>(devices.count));
  std::iota(devices.order.begin(), devices.order.end(), 0);
  return devices;
}

int NodeShape::usable_cores() const {
  int total = sockets * cores_per_socket;
  int reserved = static_cast<int>(
      std::count_if(reserved_cores.begin(), reserved_cores.end(), [&](int core) { return core >= 0 && core < total; }));
  return total - reserved;
}

std::optional<long> Queue::walltime_limit(long nodes) const {
  for (const auto& step : walltime_by_nodes) {
    if (nodes <= step.max_nodes) return step.max_walltime;
  }
  return max_walltime;
}

const std::vector<CapKind>& queue_cap_kinds() {
  // Phrases follow the sites' queue tables (ALCF "Running Jobs", OLCF Frontier user guide).
  static const std::vector<CapKind> k_cap_kinds = {
      {"jobs_per_user", "job(s) per user (running, accruing or queued)", CapOwner::user, CapJobs::live, false},
      {"queued_per_user", "job(s) queued or running per user", CapOwner::user, CapJobs::live, false},
      {"running_per_user", "job(s) running per user", CapOwner::user, CapJobs::running, false},
      {"eligible_per_user", "eligible-to-run job(s) per user; more are held", CapOwner::user, CapJobs::uncounted,
       false},
      {"nodes_across_jobs", "nodes across all jobs", CapOwner::user, CapJobs::uncounted, false},
      {"jobs_per_project", "job(s) per project (running, accruing or queued)", CapOwner::project, CapJobs::live, false},
      {"running_per_project", "job(s) running per project", CapOwner::project, CapJobs::running, false},
      // ALCF Aurora and Polaris prod: "ten (10) jobs running/accruing per-project" in each queue prod
      // routes to, and "one hundred (100) jobs queued (not accruing score) per-project".
      {"running_accruing_per_project", "job(s) running or accruing per project", CapOwner::project, CapJobs::eligible,
       false},
      {"queued_per_project", "job(s) queued (not accruing) per project", CapOwner::project, CapJobs::waiting, false},
      // OLCF Frontier: "100 jobs queued across all partitions at any time (this includes jobs in all states)".
      {"jobs_per_user_all_queues", "job(s) per user in any state, across all queues", CapOwner::user, CapJobs::live,
       true},
  };
  return k_cap_kinds;
}

const CapKind* find_cap_kind(const std::string& name) {
  for (const auto& kind : queue_cap_kinds()) {
    if (name == kind.name) return &kind;
  }
  return nullptr;
}

std::string QueueCap::describe() const {
  const CapKind* known = find_cap_kind(kind);
  if (known == nullptr) return kind + " " + std::to_string(value);
  return "at most " + std::to_string(value) + " " + known->phrase;
}

std::vector<EnvEntry> BackendEnv::for_job(long nodes, long ranks_per_node) const {
  std::vector<EnvEntry> entries;
  auto add = [&](const std::vector<std::pair<std::string, std::string>>& vars, const std::string& section) {
    for (const auto& [name, value] : vars) {
      EnvEntry entry{name, value, section};
      auto same =
          std::find_if(entries.begin(), entries.end(), [&entry](const EnvEntry& e) { return e.name == entry.name; });
      if (same != entries.end()) {
        *same = std::move(entry);
      } else {
        entries.push_back(std::move(entry));
      }
    }
  };
  add(always, "backend_env.always");
  if (nodes > 1) {
    add(multi_node, "backend_env.multi_node");
  } else {
    add(single_node, "backend_env.single_node");
  }
  auto for_ranks = by_ranks_per_node.find(ranks_per_node);
  if (for_ranks != by_ranks_per_node.end())
    add(for_ranks->second, "backend_env.by_ranks_per_node." + std::to_string(ranks_per_node));
  return entries;
}

const Queue* SystemProfile::find_queue(const std::string& queue_name) const {
  for (const auto& queue : queues) {
    if (queue.name == queue_name) return &queue;
  }
  return nullptr;
}

std::vector<std::string> SystemProfile::queue_names() const {
  std::vector<std::string> names;
  for (const auto& queue : queues) names.push_back(queue.name);
  return names;
}

}  // namespace ezpz::core
