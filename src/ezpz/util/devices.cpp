// The device and backend table.
#include "ezpz/util/devices.hpp"

#include <algorithm>

namespace ezpz::core {
namespace {

struct KindRow {
  DeviceKind kind;
  const char* name;
  const char* torch_type;
  const char* visibility;
};

// Visibility variables: shared/reference/systems.md (CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES,
// ZE_AFFINITY_MASK).
constexpr KindRow k_kinds[] = {
    {DeviceKind::cpu, "cpu", "cpu", ""},
    {DeviceKind::cuda, "cuda", "cuda", "CUDA_VISIBLE_DEVICES"},
    {DeviceKind::rocm, "rocm", "cuda", "ROCR_VISIBLE_DEVICES"},
    {DeviceKind::xpu, "xpu", "xpu", "ZE_AFFINITY_MASK"},
};

struct BackendRow {
  const char* torch_type;  // the device type a backend is the default for
  const char* default_backend;
  const char* others[2];  // what else can drive it
};

// nccl drives CUDA (and ROCm through RCCL, which torch calls nccl); xccl (oneCCL) drives XPU; gloo and
// mpi drive anything, including CPU tensors. "hip" is how some torch builds name ROCm devices.
constexpr BackendRow k_backends[] = {
    {"cuda", "nccl", {"gloo", "mpi"}},
    {"hip", "nccl", {"gloo", "mpi"}},
    {"xpu", "xccl", {"gloo", "mpi"}},
    {"cpu", "gloo", {"mpi", nullptr}},
};

const KindRow& row(DeviceKind kind) {
  return *std::find_if(std::begin(k_kinds), std::end(k_kinds), [kind](const KindRow& r) { return r.kind == kind; });
}

const BackendRow* backend_row(std::string_view torch_device) {
  std::string_view type = torch_device.substr(0, torch_device.find(':'));
  for (const auto& r : k_backends) {
    if (type == r.torch_type) return &r;
  }
  return nullptr;
}

}  // namespace

const char* device_kind_name(DeviceKind kind) {
  return row(kind).name;
}

std::optional<DeviceKind> parse_device_kind(std::string_view name) {
  for (const auto& r : k_kinds) {
    if (name == r.name) return r.kind;
  }
  return std::nullopt;
}

std::vector<std::string> device_kind_names() {
  std::vector<std::string> names;
  for (const auto& r : k_kinds) names.emplace_back(r.name);
  return names;
}

const char* torch_device_type(DeviceKind kind) {
  return row(kind).torch_type;
}

std::vector<std::string> torch_devices_of(DeviceKind kind) {
  std::vector<std::string> devices = {torch_device_type(kind)};
  if (kind != DeviceKind::cpu) devices.emplace_back("cpu");
  return devices;
}

const char* visibility_variable(DeviceKind kind) {
  return row(kind).visibility;
}

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> k_names = {"nccl", "xccl", "gloo", "mpi"};
  return k_names;
}

std::string default_backend(std::string_view torch_device) {
  const BackendRow* r = backend_row(torch_device);
  return r ? r->default_backend : "gloo";
}

std::vector<std::string> backends_for(std::string_view torch_device_type) {
  const BackendRow* r = backend_row(torch_device_type);
  if (r == nullptr || torch_device_type.find(':') != std::string_view::npos) return {};
  std::vector<std::string> names = {r->default_backend};
  for (const char* other : r->others) {
    if (other != nullptr) names.emplace_back(other);
  }
  return names;
}

}  // namespace ezpz::core
