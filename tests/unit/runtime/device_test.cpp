// Device rules per system, and detection from a fake /dev and /sys.
#include "ezpz/runtime/device.hpp"

#include <gtest/gtest.h>

#include "ezpz/util/error.hpp"

#include <filesystem>
#include <fstream>

#include "../test_support.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

struct Case {
  const char* system;
  long local_rank;
  long local_world_size;
  std::map<std::string, std::string> env;
  const char* torch_device;
  const char* variable;  // "" when nothing is exported
  const char* value;
};

void PrintTo(const Case& c, std::ostream* out) {
  *out << c.system << " local rank " << c.local_rank << " of " << c.local_world_size;
}

class ChooseDevice : public ::testing::TestWithParam<Case> {};

TEST_P(ChooseDevice, FollowsTheSiteRules) {
  const Case& c = GetParam();
  const SystemProfile& profile = test::builtin_catalog().system(c.system);
  Devices devices = profile.node.devices.for_ranks_per_node(c.local_world_size);
  DeviceChoice choice =
      choose_device(devices, profile.node.sockets, c.local_rank, c.local_world_size, table_env(c.env));
  EXPECT_EQ(choice.torch_device, c.torch_device);
  if (std::string(c.variable).empty()) {
    EXPECT_FALSE(choice.visibility);
  } else {
    ASSERT_TRUE(choice.visibility);
    EXPECT_EQ(choice.visibility->first, c.variable);
    EXPECT_EQ(choice.visibility->second, c.value);
  }
  EXPECT_FALSE(choice.reason.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Systems, ChooseDevice,
    ::testing::Values(
        // Aurora FLAT mode: every rank sees all 12 tiles and uses its local rank, as ALCF's PyTorch DDP
        // example does; no per-rank ZE_AFFINITY_MASK (PyTorch warns about one inside frameworks).
        Case{"aurora", 0, 12, {}, "xpu:0", "", ""}, Case{"aurora", 11, 12, {}, "xpu:11", "", ""},
        Case{"sunspot", 5, 12, {}, "xpu:5", "", ""},
        // Fewer ranks: the tile of the rank's socket (tiles 6-11 are socket 1's), not tile i for rank i.
        Case{"aurora", 1, 2, {}, "xpu:6", "", ""}, Case{"sunspot", 2, 4, {}, "xpu:6", "", ""},
        // 6 ranks: whole GPUs (COMPOSITE), GPU i for local rank i.
        Case{"aurora", 4, 6, {}, "xpu:4", "", ""},
        // Polaris: GPU order is reversed relative to NUMA: local rank r uses GPU 3 - r.
        Case{"polaris", 0, 4, {}, "cuda:0", "CUDA_VISIBLE_DEVICES", "3"},
        Case{"polaris", 3, 4, {}, "cuda:0", "CUDA_VISIBLE_DEVICES", "0"},
        // Perlmutter: every rank sees all four (CUDA IPC), reversed, and picks by local rank.
        Case{"perlmutter", 1, 4, {}, "cuda:1", "CUDA_VISIBLE_DEVICES", "3,2,1,0"},
        // Frontier: srun --gpu-bind=closest leaves one GPU visible: index 0, nothing exported.
        Case{"frontier", 5, 8, {{"ROCR_VISIBLE_DEVICES", "5"}}, "cuda:0", "", ""},
        // Frontier without launcher binding: pick by local rank among all eight.
        Case{"frontier", 5, 8, {}, "cuda:5", "", ""},
        // A launcher that left several devices visible: choose among those, keeping their ids.
        Case{"polaris", 1, 4, {{"CUDA_VISIBLE_DEVICES", "2,3"}}, "cuda:0", "CUDA_VISIBLE_DEVICES", "3"},
        Case{"slurm", 0, 1, {}, "cpu", "", ""}));

// select: index leaves the variable unset only when the order is 0, 1, 2, … : an ascending order with
// gaps (a site that hides a broken GPU) must still be exported, or index 1 would be device 1, not 2.
TEST(ChooseDevice, AnIndexOrderWithGapsIsExported) {
  Devices devices;
  devices.kind = DeviceKind::cuda;
  devices.count = 2;
  devices.visibility = "CUDA_VISIBLE_DEVICES";
  devices.select = "index";
  devices.order = {0, 2};
  DeviceChoice choice = choose_device(devices, 1, 1, 2, table_env({}));
  ASSERT_TRUE(choice.visibility);
  EXPECT_EQ(choice.visibility->second, "0,2");
  EXPECT_EQ(choice.torch_device, "cuda:1");
  devices.order = {0, 1};
  EXPECT_FALSE(choose_device(devices, 1, 1, 2, table_env({})).visibility) << "the natural order needs no variable";
}

fs::path fake_node(const std::string& name) {
  fs::path root = fs::temp_directory_path() / ("ezpz-node-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "dev");
  fs::create_directories(root / "sys/class/drm");
  return root;
}

void render_node(const fs::path& root, int index, const std::string& vendor, const std::string& device_id = "0x0000") {
  fs::path device = root / "sys/class/drm" / ("renderD" + std::to_string(128 + index)) / "device";
  fs::create_directories(device);
  std::ofstream(device / "vendor") << vendor << "\n";
  std::ofstream(device / "device") << device_id << "\n";
}

TEST(ProbeDevices, FindsNvidiaAmdIntelOrNothing) {
  std::string source;
  fs::path nvidia = fake_node("nvidia");
  for (int i = 0; i < 4; ++i) std::ofstream(nvidia / "dev" / ("nvidia" + std::to_string(i)));
  std::ofstream(nvidia / "dev" / "nvidiactl");
  Devices found = probe_devices(nvidia.string(), table_env({}), &source);
  EXPECT_EQ(found.kind, DeviceKind::cuda);
  EXPECT_EQ(found.count, 4);
  EXPECT_EQ(found.visibility, "CUDA_VISIBLE_DEVICES");

  fs::path amd = fake_node("amd");
  std::ofstream(amd / "dev" / "kfd");
  for (int i = 0; i < 8; ++i) render_node(amd, i, "0x1002");
  found = probe_devices(amd.string(), table_env({}), &source);
  EXPECT_EQ(found.kind, DeviceKind::rocm);
  EXPECT_EQ(found.count, 8);
  EXPECT_EQ(found.visibility, "ROCR_VISIBLE_DEVICES");

  fs::path intel = fake_node("intel");
  for (int i = 0; i < 6; ++i) render_node(intel, i, "0x8086", "0x0bd5");  // Data Center GPU Max 1550
  render_node(intel, 7, "0x8086", "0x46a6");                              // integrated graphics: not an XPU
  render_node(intel, 6, "0x1a03");  // a BMC's display controller is no accelerator
  found = probe_devices(intel.string(), table_env({}), &source);
  EXPECT_EQ(found.kind, DeviceKind::xpu);
  EXPECT_EQ(found.count, 6);

  fs::path empty = fake_node("empty");
  found = probe_devices(empty.string(), table_env({}), &source);
  EXPECT_EQ(found.kind, DeviceKind::cpu);
  EXPECT_EQ(source, "no accelerator device nodes");
  // In a container without device nodes, the vendor's visibility variable still tells.
  found = probe_devices(empty.string(), table_env({{"CUDA_VISIBLE_DEVICES", "0,1"}}), &source);
  EXPECT_EQ(found.kind, DeviceKind::cuda);
  EXPECT_EQ(found.count, 2);
  EXPECT_EQ(probe_devices(empty.string(), table_env({{"CUDA_VISIBLE_DEVICES", "-1"}}), &source).kind, DeviceKind::cpu);
  EXPECT_THROW(probe_devices(empty.string(), table_env({{"CUDA_VISIBLE_DEVICES", ",,,"}}), &source), UserError)
      << "',,,' counted as 4 devices";
  found = probe_devices(empty.string(), table_env({{"HIP_VISIBLE_DEVICES", "3"}}), &source);
  EXPECT_EQ(found.kind, DeviceKind::rocm);
  EXPECT_EQ(found.visibility, "HIP_VISIBLE_DEVICES") << "choose within the variable that named the devices";
  for (const auto& root : {nvidia, amd, intel, empty}) fs::remove_all(root);
}

}  // namespace
}  // namespace ezpz::core
