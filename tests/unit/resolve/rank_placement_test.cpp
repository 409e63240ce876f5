// Rank placement: every local rank's device on the socket of its cores, for every ranks-per-node.
#include "ezpz/resolve/rank_placement.hpp"

#include <gtest/gtest.h>

#include <set>

#include "../test_support.hpp"
#include "ezpz/runtime/device.hpp"
#include "ezpz/util/cpu_list.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

// The Aurora facts, written here apart from the profile so the test checks it (ALCF Aurora "Running
// Jobs", user guides 2026-08-19): `numactl -H` lists cpus 0-51 and 104-155 on node 0, 52-103 and
// 156-207 on node 1; "each [socket] with 1 CPU and 3 PVC GPUs", the node figure puts GPUs 0-2 on socket
// 0 and GPUs 3-5 on socket 1, so tiles 0-5 (FLAT) are socket 0's and 6-11 socket 1's.
int aurora_cpu_socket(long cpu) {
  return (cpu >= 52 && cpu <= 103) || (cpu >= 156 && cpu <= 207) ? 1 : 0;
}
int aurora_device_socket(long device, long ranks_per_node) {
  // 6 ranks per node run with ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE: the devices are the 6 GPUs.
  return ranks_per_node == 6 ? (device >= 3 ? 1 : 0) : (device >= 6 ? 1 : 0);
}

// The sockets of one rank's group of a "list:" binding, read with the facts above.
std::set<int> cpu_sockets(const std::string& binding, long local_rank) {
  auto groups = split(binding.substr(std::string("list:").size()), ':');
  std::set<int> sockets;
  for (const auto& range : split(groups.at(static_cast<size_t>(local_rank)), ',')) {
    auto dash = range.find('-');
    long first = std::stol(range.substr(0, dash));
    long last = dash == std::string::npos ? first : std::stol(range.substr(dash + 1));
    for (long cpu = first; cpu <= last; ++cpu) sockets.insert(aurora_cpu_socket(cpu));
  }
  return sockets;
}

// The warnings about sockets (a debug job also gets the queue's caps).
std::string socket_warnings(const ResolvedJob& job) {
  std::string out;
  for (const auto& warning : job.warnings) {
    if (warning.message.find("socket") != std::string::npos) out += warning.message + "\n";
  }
  return out;
}

// What a rank of `system` gets from `ezpz exec`: the resolved binding, and the device the runtime's
// rule (choose_device) picks for it.
class EveryRanksPerNode : public ::testing::TestWithParam<std::tuple<const char*, long>> {};

TEST_P(EveryRanksPerNode, PutsEachRanksDeviceOnItsCoresSocket) {
  auto [system, ranks_per_node] = GetParam();
  std::string spec = std::string("system: ") + system + "\naccount: A\nrun: [x]\n";
  ResolvedJob job = test::resolve_layers({spec, {}, {"ranks_per_node=" + std::to_string(ranks_per_node)}, ""});
  const std::string& binding = job.spec.cpu_bind->value;
  ASSERT_TRUE(starts_with(binding, "list:")) << binding;
  ASSERT_EQ(parse_cpu_list(binding.substr(5)).cpus_per_group.size(), static_cast<size_t>(ranks_per_node)) << binding;
  EXPECT_EQ(socket_warnings(job), "");

  const SystemProfile& profile = test::builtin_catalog().system(system);
  Devices devices = profile.node.devices.for_ranks_per_node(ranks_per_node);
  std::set<std::string> used;
  for (long rank = 0; rank < ranks_per_node; ++rank) {
    DeviceChoice choice = choose_device(devices, profile.node.sockets, rank, ranks_per_node, table_env({}));
    ASSERT_TRUE(starts_with(choice.torch_device, "xpu:")) << choice.torch_device;
    long device = std::stol(choice.torch_device.substr(4));
    std::set<int> cores_on = cpu_sockets(binding, rank);
    ASSERT_EQ(cores_on.size(), 1u) << "local rank " << rank << " of " << ranks_per_node
                                   << " spans sockets: " << binding;
    EXPECT_EQ(*cores_on.begin(), aurora_device_socket(device, ranks_per_node))
        << "local rank " << rank << " of " << ranks_per_node << ": " << choice.torch_device << ", " << binding;
    EXPECT_TRUE(used.insert(choice.torch_device).second) << choice.torch_device << " twice";
    // The script and `ezpz resolve --explain` show the same device the runtime picks.
    ASSERT_EQ(job.rank_devices.size(), static_cast<size_t>(ranks_per_node));
    EXPECT_EQ(job.rank_devices[static_cast<size_t>(rank)].device, choice.torch_device);
  }
}

INSTANTIATE_TEST_SUITE_P(AuroraAndSunspot, EveryRanksPerNode,
                         ::testing::Combine(::testing::Values("aurora", "sunspot"),
                                            ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)));

TEST(RankDevices, AuroraTwoAndFourRanksTakeTheFirstTilesOfEachSocket) {
  auto job = [](long ranks) {
    return test::resolve_layers(
        {"system: aurora\naccount: A\nrun: [x]\n", {}, {"ranks_per_node=" + std::to_string(ranks)}, ""});
  };
  ResolvedJob two = job(2);
  EXPECT_EQ(two.spec.cpu_bind->value, "list:1-47:53-99");
  ASSERT_EQ(two.rank_devices.size(), 2u);
  EXPECT_EQ(two.rank_devices[0].describe(), "local rank 0: xpu:0 (socket 0), cpus 1-47 (socket 0)");
  EXPECT_EQ(two.rank_devices[1].describe(), "local rank 1: xpu:6 (socket 1), cpus 53-99 (socket 1)");
  ResolvedJob four = job(4);
  std::vector<std::string> devices;
  for (const auto& rank : four.rank_devices) devices.push_back(rank.device);
  EXPECT_EQ(devices, (std::vector<std::string>{"xpu:0", "xpu:1", "xpu:6", "xpu:7"}));
  // Three ranks: two on socket 0, one on socket 1.
  ResolvedJob three = job(3);
  EXPECT_EQ(three.spec.cpu_bind->value, "list:1-23:24-46:53-99");
  EXPECT_EQ(three.rank_devices[2].device, "xpu:6");
}

TEST(RankDevices, ExplainListsThemWhereTheProfileSaysWhereDevicesSit) {
  ResolvedJob aurora = test::resolve_layers({"system: aurora\naccount: A\nrun: [x]\n", {}, {"ranks_per_node=2"}, ""});
  bool listed = false;
  for (const auto& value : explain(aurora)) {
    if (value.key != "rank_devices") continue;
    listed = true;
    EXPECT_EQ(value.value.size(), 2u);
    EXPECT_EQ(value.value[1], "local rank 1: xpu:6 (socket 1), cpus 53-99 (socket 1)");
  }
  EXPECT_TRUE(listed);
  ResolvedJob polaris = test::resolve_layers({"system: polaris\naccount: A\nrun: [x]\n", {}, {}, ""});
  EXPECT_TRUE(polaris.rank_devices.empty()) << "no node.devices.sockets: nothing to pair";
  for (const auto& value : explain(polaris)) EXPECT_NE(value.key, "rank_devices");
}

TEST(RankDevices, AUsersListThatCrossesSocketsIsAWarning) {
  // Rank 1 on socket 0's cores, while its device (tile 6) is on socket 1.
  ResolvedJob job = test::resolve_layers(
      {"system: aurora\naccount: A\nrun: [x]\nranks_per_node: 2\ncpu_bind: 'list:1-8:9-16'\n", {}, {}, ""});
  EXPECT_EQ(socket_warnings(job),
            "cpu_bind puts 1 local rank(s) on another socket than their device: "
            "local rank 1: xpu:6 (socket 1), cpus 9-16 (socket 0)\n");
  // Hyperthreads count by their core: 105 is core 1 (socket 0), 157 is core 53 (socket 1).
  ResolvedJob threads = test::resolve_layers(
      {"system: aurora\naccount: A\nrun: [x]\nranks_per_node: 2\ncpu_bind: 'list:105:157'\n", {}, {}, ""});
  EXPECT_EQ(socket_warnings(threads), "");
  ASSERT_EQ(threads.rank_devices.size(), 2u);
  EXPECT_EQ(threads.rank_devices[1].cpu_sockets, (std::vector<int>{1}));
}

TEST(PlaceLocalRank, FillsSocketsInBlocks) {
  std::vector<std::pair<int, long>> places;
  for (long rank = 0; rank < 5; ++rank) {
    RankPlace place = place_local_rank(2, 5, rank);
    places.emplace_back(place.socket, place.position);
  }
  EXPECT_EQ(places, (std::vector<std::pair<int, long>>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}}));
  EXPECT_EQ(ranks_on_socket(2, 5, 0), 3);
  EXPECT_EQ(ranks_on_socket(2, 5, 1), 2);
  EXPECT_EQ(ranks_on_socket(2, 1, 1), 0);
  EXPECT_EQ(place_local_rank(1, 4, 3).socket, 0);
  EXPECT_EQ(place_local_rank(1, 4, 3).position, 3);
}

TEST(DeviceSlot, TakesTheRanksSocketsDevicesOrItsLocalRankWithoutSockets) {
  Devices devices;
  devices.kind = DeviceKind::cuda;
  devices.count = 4;
  devices.order = {0, 1, 2, 3};
  EXPECT_EQ(device_slot(devices, 2, 2, 1), 1) << "no sockets stated: local rank mod count";
  EXPECT_EQ(device_slot(devices, 2, 6, 5), 1);
  devices.sockets = {1, 1, 0, 0};  // a node that numbers socket 1's devices first
  EXPECT_EQ(device_slot(devices, 2, 2, 0), 2);
  EXPECT_EQ(device_slot(devices, 2, 2, 1), 0);
  EXPECT_EQ(device_slot(devices, 2, 8, 3), 3) << "more ranks on a socket than devices: they wrap";
  devices.sockets = {0, 0, 0, 0};  // socket 1 has none: any device
  EXPECT_EQ(device_slot(devices, 2, 2, 1), 1);
}

TEST(SocketsOfCpus, CountsHardwareThreadsByTheirCore) {
  NodeShape node;
  node.sockets = 2;
  node.cores_per_socket = 52;
  node.threads_per_core = 2;
  EXPECT_EQ(sockets_of_cpus(node, {{1, 8}}), (std::vector<int>{0}));
  EXPECT_EQ(sockets_of_cpus(node, {{156, 160}}), (std::vector<int>{1}));
  EXPECT_EQ(sockets_of_cpus(node, {{48, 53}}), (std::vector<int>{0, 1}));
  EXPECT_EQ(sockets_of_cpus(node, {{0, 999999}}), (std::vector<int>{0, 1}));
  EXPECT_TRUE(sockets_of_cpus(NodeShape{}, {{1, 2}}).empty()) << "unknown shape";
}

}  // namespace
}  // namespace ezpz::core
