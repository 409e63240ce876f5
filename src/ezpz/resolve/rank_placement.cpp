// Rank placement: sockets, cpus and devices of a node's local ranks.
#include "ezpz/resolve/rank_placement.hpp"

#include <algorithm>
#include <set>

#include "ezpz/util/cpu_list.hpp"
#include "ezpz/util/devices.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {

long ranks_on_socket(int sockets, long ranks_per_node, int socket) {
  if (sockets <= 0 || ranks_per_node <= 0 || socket < 0 || socket >= sockets) return 0;
  return ranks_per_node / sockets + (socket < ranks_per_node % sockets ? 1 : 0);
}

RankPlace place_local_rank(int sockets, long ranks_per_node, long local_rank) {
  RankPlace place;
  if (sockets <= 1 || ranks_per_node <= 0) {
    place.position = local_rank;
    return place;
  }
  long rank = local_rank % ranks_per_node;  // more local ranks than planned wrap around
  for (int socket = 0; socket < sockets; ++socket) {
    long here = ranks_on_socket(sockets, ranks_per_node, socket);
    if (rank < here) return RankPlace{socket, rank};
    rank -= here;
  }
  return place;  // not reached: the blocks add up to ranks_per_node
}

long device_slot(const Devices& devices, int sockets, long ranks_per_node, long local_rank) {
  long count = std::max(1L, static_cast<long>(devices.order.empty() ? devices.count : devices.order.size()));
  if (devices.sockets.empty() || local_rank < 0) return std::max(0L, local_rank) % count;
  RankPlace place = place_local_rank(sockets, ranks_per_node, local_rank);
  std::vector<long> here;
  for (size_t slot = 0; slot < devices.sockets.size() && static_cast<long>(slot) < count; ++slot) {
    if (devices.sockets[slot] == place.socket) here.push_back(static_cast<long>(slot));
  }
  if (here.empty()) return local_rank % count;  // a socket without devices: any device will do
  return here[static_cast<size_t>(place.position) % here.size()];
}

std::vector<int> sockets_of_cpus(const NodeShape& node, const std::vector<std::pair<long, long>>& ranges) {
  long cores = static_cast<long>(node.sockets) * node.cores_per_socket;
  if (cores <= 0) return {};
  std::set<int> sockets;
  for (auto [first, last] : ranges) {
    // A range longer than the node's cpus touches every socket; shorter ones are walked id by id.
    if (last - first + 1 >= cores * node.threads_per_core) {
      for (int socket = 0; socket < node.sockets; ++socket) sockets.insert(socket);
      break;
    }
    for (long cpu = first; cpu <= last; ++cpu) sockets.insert(static_cast<int>((cpu % cores) / node.cores_per_socket));
  }
  return {sockets.begin(), sockets.end()};
}

std::string RankDevice::describe() const {
  auto on = [](const std::vector<int>& sockets) {
    std::vector<std::string> names;
    for (int socket : sockets) names.push_back(std::to_string(socket));
    return std::string(sockets.size() == 1 ? "socket " : "sockets ") + join(names, ",");
  };
  std::string text = "local rank " + std::to_string(local_rank) + ": " + device;
  if (device_socket) text += " (" + on({*device_socket}) + ")";
  if (!cpus.empty()) text += ", cpus " + cpus + (cpu_sockets.empty() ? std::string() : " (" + on(cpu_sockets) + ")");
  return text;
}

bool RankDevice::crosses_sockets() const {
  if (!device_socket || cpu_sockets.empty()) return false;
  return cpu_sockets.size() != 1 || cpu_sockets.front() != *device_socket;
}

std::vector<RankDevice> rank_devices(const NodeShape& node, long ranks_per_node, const std::string& binding) {
  std::vector<RankDevice> ranks;
  if (node.devices.kind == DeviceKind::cpu || ranks_per_node <= 0) return ranks;
  Devices devices = node.devices.for_ranks_per_node(ranks_per_node);
  CpuList list;
  if (auto groups = strip_prefix(binding, "list:")) list = parse_cpu_list(*groups);
  if (!list.problem.empty()) list = CpuList{};
  std::string visibility = devices.visibility.empty() ? visibility_variable(devices.kind) : devices.visibility;
  for (long rank = 0; rank < ranks_per_node; ++rank) {
    RankDevice out;
    out.local_rank = rank;
    out.slot = device_slot(devices, node.sockets, ranks_per_node, rank);
    int physical = out.slot < static_cast<long>(devices.order.size()) ? devices.order[static_cast<size_t>(out.slot)]
                                                                      : static_cast<int>(out.slot);
    if (devices.select == "index") {
      out.device = std::string(torch_device_type(devices.kind)) + ":" + std::to_string(out.slot);
    } else if (devices.select == "mask") {
      out.device = visibility + "=" + std::to_string(physical);
    } else {
      out.device = "device " + std::to_string(out.slot);
    }
    if (out.slot < static_cast<long>(devices.sockets.size())) out.device_socket = devices.sockets[out.slot];
    // A list with fewer groups than ranks says nothing of the others' cpus.
    if (static_cast<size_t>(rank) < list.groups.size()) {
      out.cpus = list.groups[static_cast<size_t>(rank)];
      out.cpu_sockets = sockets_of_cpus(node, list.ranges[static_cast<size_t>(rank)]);
    }
    ranks.push_back(std::move(out));
  }
  return ranks;
}

}  // namespace ezpz::core
