// Device detection and per-rank selection.
#include "ezpz/runtime/device.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string_view>

#include "ezpz/resolve/rank_placement.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/regex.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

// The tables here hold plain C strings so that they are constants, not objects built (and destroyed) at
// every start of ezpz, whatever the command.

// PCI vendor ids of render nodes (the kernel's /sys/class/drm/renderD*/device/vendor).
const std::pair<const char*, DeviceKind> k_vendor_kind[] = {
    {"0x10de", DeviceKind::cuda}, {"0x1002", DeviceKind::rocm}, {"0x8086", DeviceKind::xpu}};
// Intel render nodes that are data-center GPUs (PCI ids, pci.ids: 0x0bd* Data Center GPU Max,
// "Ponte Vecchio"; 0x56c* Data Center GPU Flex). Integrated graphics must not turn a laptop into XPU.
const char* const k_intel_gpu_prefixes[] = {"0x0bd", "0x56c"};

// The device ids a visibility variable lists ("0,2", "GPU-uuid,…"); an empty id (",,,") is an error
// naming the variable: the ranks would share or miss devices without a word.
std::vector<std::string> visible_ids(const std::string& variable, const std::string& value) {
  std::vector<std::string> ids;
  for (auto& item : split(trim(value), ',')) {
    if (trim(item).empty()) {
      throw UserError(variable + "='" + printable(value) + "' lists an empty device id",
                      "unset it, or list ids separated by commas such as 0,1");
    }
    ids.push_back(trim(item));
  }
  return ids;
}

// Vendor visibility variables that name devices where no device node can be seen (containers).
const std::pair<const char*, DeviceKind> k_vendor_variables[] = {{"CUDA_VISIBLE_DEVICES", DeviceKind::cuda},
                                                                 {"ROCR_VISIBLE_DEVICES", DeviceKind::rocm},
                                                                 {"HIP_VISIBLE_DEVICES", DeviceKind::rocm},
                                                                 {"ZE_AFFINITY_MASK", DeviceKind::xpu}};

std::string read_first_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return trim(line);
}

}  // namespace

Devices probe_devices(const std::string& root, const EnvLookup& env, std::string* source) {
  Devices devices;
  devices.count = 1;
  std::error_code error;
  int nvidia = 0;
  static const Regex k_nvidia = compile_regex("nvidia[0-9]+", {}, "the NVIDIA device name");
  for (const auto& entry : fs::directory_iterator(fs::path(root) / "dev", error)) {
    if (k_nvidia.full_match_groups(entry.path().filename().string())) ++nvidia;
  }
  std::map<DeviceKind, int> render_nodes;
  for (const auto& entry : fs::directory_iterator(fs::path(root) / "sys/class/drm", error)) {
    std::string name = entry.path().filename().string();
    if (!starts_with(name, "renderD")) continue;
    std::string vendor = read_first_line(entry.path() / "device" / "vendor");
    std::string device = read_first_line(entry.path() / "device" / "device");
    bool intel_gpu = std::any_of(std::begin(k_intel_gpu_prefixes), std::end(k_intel_gpu_prefixes),
                                 [&](const char* prefix) { return starts_with(device, prefix); });
    for (const auto& [id, kind] : k_vendor_kind) {
      if (vendor == id && (kind != DeviceKind::xpu || intel_gpu)) ++render_nodes[kind];
    }
  }
  bool kfd = fs::exists(fs::path(root) / "dev" / "kfd", error);
  if (nvidia > 0) {
    devices.kind = DeviceKind::cuda;
    devices.count = nvidia;
    *source = std::to_string(nvidia) + " /dev/nvidia* device(s)";
  } else if (kfd && render_nodes[DeviceKind::rocm] > 0) {
    devices.kind = DeviceKind::rocm;
    devices.count = render_nodes[DeviceKind::rocm];
    *source = std::to_string(devices.count) + " AMD render node(s) and /dev/kfd";
  } else if (render_nodes[DeviceKind::xpu] > 0) {
    devices.kind = DeviceKind::xpu;
    devices.count = render_nodes[DeviceKind::xpu];
    *source = std::to_string(devices.count) + " Intel render node(s)";
  } else {
    *source = "no accelerator device nodes";
    for (const auto& [variable, kind] : k_vendor_variables) {
      auto value = env(variable);
      if (!value || trim(*value).empty() || *value == "-1" || *value == "NoDevFiles") continue;
      devices.kind = kind;
      devices.count = static_cast<int>(visible_ids(variable, *value).size());
      devices.visibility = variable;  // choose within what it names (HIP_VISIBLE_DEVICES stays HIP's)
      *source = std::string(variable) + "=" + *value;
      break;
    }
  }
  if (devices.visibility.empty()) devices.visibility = visibility_variable(devices.kind);
  devices.order.resize(static_cast<size_t>(devices.count));
  std::iota(devices.order.begin(), devices.order.end(), 0);
  devices.select = "mask";
  return devices;
}

DeviceChoice choose_device(const Devices& devices, int sockets, long local_rank, long local_world_size,
                           const EnvLookup& env) {
  DeviceChoice choice;
  std::string type = torch_device_type(devices.kind);
  if (devices.kind == DeviceKind::cpu) {
    choice.torch_device = "cpu";
    choice.reason = "no accelerators";
    return choice;
  }
  auto at = [&](long index) { return type + ":" + std::to_string(index); };
  std::string variable = devices.visibility.empty() ? visibility_variable(devices.kind) : devices.visibility;
  std::vector<std::string> visible;
  if (auto set = env(variable); set && !trim(*set).empty()) visible = visible_ids(variable, *set);
  if (visible.size() == 1) {
    choice.torch_device = at(0);
    choice.reason = variable + "=" + visible[0] + " set by the launcher: one device visible";
    return choice;
  }
  if (!visible.empty()) {  // several visible already: choose among them, keep their ids
    size_t slot = static_cast<size_t>(local_rank) % visible.size();
    if (devices.select == "mask") {
      choice.visibility = std::make_pair(variable, visible[slot]);
      choice.torch_device = at(0);
    } else {
      choice.torch_device = at(static_cast<long>(slot));
    }
    choice.reason = "local rank " + std::to_string(local_rank) + " of the " + std::to_string(visible.size()) +
                    " devices the launcher left visible";
    return choice;
  }
  size_t slot = static_cast<size_t>(device_slot(devices, sockets, local_world_size, local_rank));
  // "local rank 1" or, where the devices' sockets are known, "local rank 1 (socket 1)".
  std::string who = "local rank " + std::to_string(local_rank);
  if (!devices.sockets.empty()) {
    who += " (socket " + std::to_string(place_local_rank(sockets, local_world_size, local_rank).socket) + ")";
  }
  std::vector<std::string> order;
  for (int device : devices.order) order.push_back(std::to_string(device));
  if (devices.select == "mask") {
    choice.visibility = std::make_pair(variable, order[slot]);
    choice.torch_device = at(0);
    choice.reason = who + " sees only device " + order[slot];
  } else if (devices.select == "index") {
    // The variable is set only to reorder the devices (Perlmutter 3,2,1,0). In the natural order it
    // stays unset: every device is visible anyway, and on Aurora a ZE_AFFINITY_MASK inside the
    // frameworks module makes PyTorch warn (ALCF Aurora "Running Jobs", gpu_tile_compact.sh caution).
    bool natural = true;  // the order is 0, 1, 2, …: index i is device i without the variable
    for (size_t i = 0; i < devices.order.size(); ++i) natural = natural && devices.order[i] == static_cast<int>(i);
    if (!natural) choice.visibility = std::make_pair(variable, join(order, ","));
    choice.torch_device = at(static_cast<long>(slot));
    choice.reason = "every rank sees " + (natural ? "all devices" : "devices " + join(order, ",")) + "; " + who +
                    " uses index " + std::to_string(slot);
  } else {
    choice.torch_device = at(static_cast<long>(slot));
    choice.reason = "the launcher binds devices; " + who + " uses index " + std::to_string(slot);
  }
  return choice;
}

}  // namespace ezpz::core
