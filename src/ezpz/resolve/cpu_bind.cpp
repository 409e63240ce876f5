// CPU binding lists.
#include "ezpz/resolve/cpu_bind.hpp"

#include <algorithm>
#include <vector>

#include "ezpz/resolve/rank_placement.hpp"
#include "ezpz/util/cpu_list.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {

std::optional<std::string> generate_cpu_list(const NodeShape& node, long ranks_per_node,
                                             std::optional<long> cores_per_rank) {
  if (ranks_per_node <= 0 || node.sockets <= 0) return std::nullopt;
  std::vector<std::string> groups;
  for (int socket = 0; socket < node.sockets; ++socket) {
    // The sockets take the local ranks in blocks (resolve/rank_placement.hpp), so that each rank's
    // device can be on its cores' socket.
    long ranks_per_socket = ranks_on_socket(node.sockets, ranks_per_node, socket);
    if (ranks_per_socket == 0) continue;
    std::vector<int> cores;
    for (int core = socket * node.cores_per_socket; core < (socket + 1) * node.cores_per_socket; ++core) {
      auto kept = [core](const std::vector<int>& ids) { return std::find(ids.begin(), ids.end(), core) != ids.end(); };
      if (!kept(node.reserved_cores) && !kept(node.service_cores)) cores.push_back(core);
    }
    long per_rank = cores_per_rank.value_or(static_cast<long>(cores.size()) / ranks_per_socket);
    if (per_rank <= 0 || per_rank * ranks_per_socket > static_cast<long>(cores.size())) return std::nullopt;
    for (long rank = 0; rank < ranks_per_socket; ++rank) {
      // Contiguous core ids print as ranges; a reserved core inside a block splits it with ','.
      auto begin = cores.begin() + rank * per_rank;
      groups.push_back(format_cpu_group(std::vector<int>(begin, begin + per_rank)));
    }
  }
  return "list:" + join(groups, ":");
}

std::optional<long> cpus_in_list(const std::string& binding) {
  auto groups = strip_prefix(binding, "list:");
  if (!groups) return std::nullopt;
  CpuList list = parse_cpu_list(*groups);
  if (!list.problem.empty() || list.cpus_per_group.empty()) return std::nullopt;
  return *std::min_element(list.cpus_per_group.begin(), list.cpus_per_group.end());
}

std::optional<std::string> cpu_binding(const Launcher& launcher, const NodeShape& node, long ranks_per_node) {
  auto explicit_binding = launcher.cpu_bind.find(ranks_per_node);
  if (explicit_binding != launcher.cpu_bind.end()) return explicit_binding->second;
  if (launcher.cpu_bind_default == "none" || launcher.cpu_bind_default.empty()) return std::nullopt;
  if (launcher.cpu_bind_default == "generate") return generate_cpu_list(node, ranks_per_node);
  return launcher.cpu_bind_default;
}

}  // namespace ezpz::core
