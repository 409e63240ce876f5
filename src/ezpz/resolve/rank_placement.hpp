// Where the local ranks of a node run: the socket of each, its cpus and its device, by one rule.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ezpz/profile/system_profile.hpp"

namespace ezpz::core {

// A local rank's socket, and its index among the local ranks of that socket.
struct RankPlace {
  int socket = 0;
  long position = 0;
};

// The rule (docs/runtime-env.md#device): local ranks fill the sockets in order, in blocks. Socket s
// holds ranks_per_node / sockets ranks, and each of the first ranks_per_node % sockets sockets one more
// (Aurora, 3 ranks: local ranks 0 and 1 on socket 0, local rank 2 on socket 1). Generated cpu lists bind
// each rank to cores of its socket (generate_cpu_list), and a rank whose profile says where the devices
// sit uses a device of the same socket (device_slot): the cores and the device of every local rank are
// on one socket, whatever ranks_per_node is.
long ranks_on_socket(int sockets, long ranks_per_node, int socket);
RankPlace place_local_rank(int sockets, long ranks_per_node, long local_rank);

// The slot of `devices.order` that `local_rank` uses (the torch index under select: index). With
// devices.sockets, the device at the rank's position among the devices of its socket, in index order
// (wrapping when the socket has more ranks than devices; all devices when it has none); without, local
// rank mod count. `devices` are those of this ranks_per_node (Devices::for_ranks_per_node).
long device_slot(const Devices& devices, int sockets, long ranks_per_node, long local_rank);

// The sockets that logical cpus sit on, ascending, each once. A launcher's list names logical cpus: the
// core of cpu c is c mod (sockets × cores_per_socket), as Linux numbers hardware threads (Aurora: cpus 1
// and 105 share core 1). Empty when the node shape is unknown.
std::vector<int> sockets_of_cpus(const NodeShape& node, const std::vector<std::pair<long, long>>& ranges);

// One local rank of a job as the rule places it.
struct RankDevice {
  long local_rank = 0;
  long slot = 0;                     // device_slot()
  std::string device;                // "xpu:6" (select: index), "CUDA_VISIBLE_DEVICES=3" (mask), "device 2"
  std::optional<int> device_socket;  // from node.devices.sockets
  std::string cpus;                  // the rank's group of a list: binding ("53-99"); "" for other bindings
  std::vector<int> cpu_sockets;      // the sockets of those cpus

  // "local rank 1: xpu:6 (socket 1), cpus 53-99 (socket 1)"
  std::string describe() const;
  // The cpus are known, and on another socket than the device (or on several).
  bool crosses_sockets() const;
};

// Every local rank of a job with `ranks_per_node` ranks per node on `node`, bound by `binding` (the
// resolved cpu_bind: "list:…" names each rank's cpus; other forms leave them unknown).
std::vector<RankDevice> rank_devices(const NodeShape& node, long ranks_per_node, const std::string& binding);

}  // namespace ezpz::core
