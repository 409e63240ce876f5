// Device families, torch device types and torch.distributed backends: the one table of what ezpz knows
// about them. Profiles, the spec, the resolver, `ezpz exec` and ezpz_torch all read it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ezpz::core {

// A node's accelerator family (a profile's node.devices.kind).
enum class DeviceKind { cpu, cuda, rocm, xpu };

// "cpu", "cuda", "rocm", "xpu".
const char* device_kind_name(DeviceKind kind);
// The family named `name`, or nullopt.
std::optional<DeviceKind> parse_device_kind(std::string_view name);
// Every family name, in table order (for messages and the profile schema).
std::vector<std::string> device_kind_names();

// The torch device type of a family: ROCm devices are "cuda" in torch.
const char* torch_device_type(DeviceKind kind);
// The torch device types a node of `kind` can serve: its own, and "cpu".
std::vector<std::string> torch_devices_of(DeviceKind kind);
// The vendor visibility variable of a family ("" for cpu).
const char* visibility_variable(DeviceKind kind);

// Every torch.distributed backend ezpz can ask for, in the order messages list them.
const std::vector<std::string>& backend_names();
// The default backend for a torch device ("cuda" or "cuda:1" → nccl, "hip" → nccl, xpu → xccl,
// anything else → gloo).
std::string default_backend(std::string_view torch_device);
// The backends that can drive a torch device type ("cuda" → nccl, gloo, mpi); empty for an unknown type.
std::vector<std::string> backends_for(std::string_view torch_device_type);

}  // namespace ezpz::core
