// Which accelerator a rank uses: from the system profile, else detected from device nodes and vendor
// ids (no LibTorch), honouring what the launcher already bound.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ezpz/profile/system_profile.hpp"
#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

// Looks for devices under `root` ("/" normally; a fake tree in tests): /dev/nvidia<N> (CUDA),
// /dev/kfd with /sys/class/drm/renderD*/device/vendor 0x1002 (ROCm), vendor 0x8086 render nodes (XPU);
// without device nodes, a vendor visibility variable in `env` (CUDA_VISIBLE_DEVICES,
// ROCR_VISIBLE_DEVICES or HIP_VISIBLE_DEVICES, ZE_AFFINITY_MASK) names the devices.
// Returns a cpu Devices when there is none. `source` says what was found.
Devices probe_devices(const std::string& root, const EnvLookup& env, std::string* source);

struct DeviceChoice {
  std::string torch_device;                                       // "cuda:0", "xpu:0", "cpu"
  std::optional<std::pair<std::string, std::string>> visibility;  // variable to export, if any
  std::string reason;                                             // for --print and messages
};

// The device of local rank `local_rank` of `local_world_size` on a node of `sockets` sockets. Rules
// (shared/reference/systems.md, "cross-cutting rules"): a visibility variable the launcher already set
// to one device means torch index 0; otherwise the rank's slot is device_slot() (the device on its
// cores' socket where devices.sockets says where devices sit, resolve/rank_placement.hpp; else local
// rank mod count): `mask` gives each rank one device (order[slot]); `index` shows every device in
// `order` and picks the slot; `launcher` leaves visibility to the launcher. `devices` are those of
// this ranks per node (Devices::for_ranks_per_node). ROCm devices are "cuda" in torch.
DeviceChoice choose_device(const Devices& devices, int sockets, long local_rank, long local_world_size,
                           const EnvLookup& env);

}  // namespace ezpz::core
