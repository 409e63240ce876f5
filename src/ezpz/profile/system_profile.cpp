// Small queries on profiles.
#include "ezpz/profile/system_profile.hpp"

#include <algorithm>

namespace ezpz {

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

}  // namespace ezpz
