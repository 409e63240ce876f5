// The environment contract of ezpz::torch::init() (read_environment), table-driven; no LibTorch.
#include "ezpz/torch/env.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "ezpz/util/devices.hpp"

namespace ezpz::torch {
namespace {

using Vars = std::map<std::string, std::string>;

EnvLookup lookup_in(const Vars& vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

Vars valid() {
  return {{"RANK", "3"},         {"WORLD_SIZE", "8"},      {"LOCAL_RANK", "3"},     {"LOCAL_WORLD_SIZE", "4"},
          {"MASTER_ADDR", "n0"}, {"MASTER_PORT", "29500"}, {"EZPZ_NODE_NAME", "n0"}};
}

Vars with(Vars vars, const Vars& changes) {
  for (const auto& [name, value] : changes) {
    if (value == "<unset>") {
      vars.erase(name);
    } else {
      vars[name] = value;
    }
  }
  return vars;
}

TEST(TorchEnvironment, ReadsTheContract) {
  const auto env = read_environment(lookup_in(with(valid(), {{"NODE_RANK", "0"}})));
  EXPECT_EQ(env.rank, 3);
  EXPECT_EQ(env.world_size, 8);
  EXPECT_EQ(env.local_rank, 3);
  EXPECT_EQ(env.local_world_size, 4);
  EXPECT_EQ(env.node_rank, 0);
  EXPECT_EQ(env.master_addr, "n0");
  EXPECT_EQ(env.master_port, 29500);
  EXPECT_EQ(env.device, "cpu");
  EXPECT_EQ(env.backend, "gloo");
  EXPECT_TRUE(env.backend_defaulted);
  EXPECT_EQ(env.node_name, "n0");
}

TEST(TorchEnvironment, OptionalValues) {
  auto env = read_environment(lookup_in(valid()));
  EXPECT_FALSE(env.node_rank.has_value());
  env = read_environment(lookup_in(with(valid(), {{"TORCH_DEVICE", "xpu:2"}, {"TORCH_BACKEND", "gloo"}})));
  EXPECT_EQ(env.device, "xpu:2");
  EXPECT_EQ(env.backend, "gloo");
  EXPECT_FALSE(env.backend_defaulted);
  // Set but empty counts as unset.
  env = read_environment(lookup_in(with(valid(), {{"TORCH_DEVICE", ""}, {"TORCH_BACKEND", ""}, {"NODE_RANK", ""}})));
  EXPECT_EQ(env.device, "cpu");
  EXPECT_EQ(env.backend, "gloo");
  EXPECT_FALSE(env.node_rank.has_value());
}

TEST(TorchEnvironment, DefaultBackendFollowsTheDevice) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"cpu", "gloo"}, {"cuda", "nccl"},   {"cuda:3", "nccl"}, {"hip:0", "nccl"},
      {"xpu", "xccl"}, {"xpu:11", "xccl"}, {"mps", "gloo"},    {"meta", "gloo"}};
  for (const auto& [device, backend] : cases) {
    EXPECT_EQ(core::default_backend(device), backend) << device;
    const auto env = read_environment(lookup_in(with(valid(), {{"TORCH_DEVICE", device}})));
    EXPECT_EQ(env.backend, backend) << device;
  }
}

TEST(TorchEnvironment, NodeNameIsEzpzsOne) {
  // The same precedence as yeet's %n and ezpz kill's marks (util/node_name.hpp): EZPZ_NODE_NAME first.
  EXPECT_EQ(read_environment(lookup_in(with(valid(), {{"SLURMD_NODENAME", "nid001"}, {"EZPZ_NODE_NAME", "other"}})))
                .node_name,
            "other");
  EXPECT_EQ(read_environment(lookup_in(with(valid(), {{"SLURMD_NODENAME", "nid001"}, {"EZPZ_NODE_NAME", "<unset>"}})))
                .node_name,
            "nid001");
}

struct BadCase {
  const char* name;
  Vars changes;
  std::vector<std::string> problems;  // exactly these, in this order
};

TEST(TorchEnvironment, EveryProblemNamesTheVariableValueAndExpectation) {
  const std::vector<BadCase> cases = {
      {"missing master addr",
       {{"MASTER_ADDR", "<unset>"}},
       {"MASTER_ADDR is not set; expected the host name or address where rank 0 runs (e.g. 127.0.0.1)"}},
      {"empty master addr",
       {{"MASTER_ADDR", ""}},
       {"MASTER_ADDR is not set; expected the host name or address where rank 0 runs (e.g. 127.0.0.1)"}},
      {"master addr with a space",
       {{"MASTER_ADDR", "n0 n1"}},
       {"MASTER_ADDR='n0 n1' is not a host name or address; expected e.g. 'x1000c0s0b0n0' or '10.1.2.3'"}},
      {"everything missing",
       {{"RANK", "<unset>"},
        {"WORLD_SIZE", "<unset>"},
        {"LOCAL_RANK", "<unset>"},
        {"LOCAL_WORLD_SIZE", "<unset>"},
        {"MASTER_ADDR", "<unset>"},
        {"MASTER_PORT", "<unset>"}},
       {"RANK is not set; expected this rank's number, a whole number >= 0",
        "WORLD_SIZE is not set; expected the number of ranks, a whole number >= 1",
        "LOCAL_RANK is not set; expected this rank's number on its node, a whole number >= 0",
        "LOCAL_WORLD_SIZE is not set; expected the number of ranks on this node, a whole number >= 1",
        "MASTER_ADDR is not set; expected the host name or address where rank 0 runs (e.g. 127.0.0.1)",
        "MASTER_PORT is not set; expected a TCP port, 1 ... 65535"}},
      {"not numbers",
       {{"RANK", "one"}, {"WORLD_SIZE", "8 "}, {"MASTER_PORT", "0x10"}},
       {"RANK='one' is not a whole number; expected this rank's number, a whole number >= 0",
        "WORLD_SIZE='8 ' is not a whole number; expected the number of ranks, a whole number >= 1",
        "MASTER_PORT='0x10' is not a whole number; expected a TCP port, 1 ... 65535"}},
      {"out of range on their own",
       {{"RANK", "-1"}, {"WORLD_SIZE", "0"}, {"MASTER_PORT", "65536"}, {"NODE_RANK", "-2"}},
       {"RANK='-1' is out of range; expected this rank's number, a whole number >= 0",
        "WORLD_SIZE='0' is out of range; expected the number of ranks, a whole number >= 1",
        "NODE_RANK='-2' is out of range; expected the index of this node, a whole number >= 0",
        "MASTER_PORT='65536' is out of range; expected a TCP port, 1 ... 65535"}},
      {"overflow",
       {{"RANK", "99999999999999999999"}},
       {"RANK='99999999999999999999' is not a whole number; expected this rank's number, a whole number >= 0"}},
      {"rank beyond world size", {{"RANK", "8"}}, {"RANK=8 is out of range; expected 0 ... WORLD_SIZE-1 = 7"}},
      {"local world larger than world",
       {{"LOCAL_WORLD_SIZE", "16"}},
       {"LOCAL_WORLD_SIZE=16 is larger than WORLD_SIZE=8; expected at most WORLD_SIZE ranks on one node"}},
      {"local rank beyond local world",
       {{"LOCAL_RANK", "4"}, {"RANK", "7"}},
       {"LOCAL_RANK=4 is out of range; expected 0 ... LOCAL_WORLD_SIZE-1 = 3"}},
      {"local rank above rank",
       {{"LOCAL_RANK", "2"}, {"RANK", "1"}},
       {"LOCAL_RANK=2 is larger than RANK=1; expected LOCAL_RANK <= RANK"}},
      {"unknown backend",
       {{"TORCH_BACKEND", "NCCL"}},
       {"TORCH_BACKEND='NCCL' is not a backend ezpz knows; expected 'nccl', 'xccl', 'gloo' or 'mpi'"}},
  };
  for (const auto& c : cases) {
    try {
      read_environment(lookup_in(with(valid(), c.changes)));
      ADD_FAILURE() << c.name << ": no error";
    } catch (const EnvironmentError& error) {
      EXPECT_EQ(error.problems(), c.problems) << c.name;
      const std::string what = error.what();
      EXPECT_EQ(what.rfind("ezpz torch: the distributed environment is not usable:\n", 0), 0u) << what;
      EXPECT_NE(what.find("hint: start the ranks with `ezpz launch"), std::string::npos) << what;
      for (const auto& problem : c.problems) EXPECT_NE(what.find("\n  " + problem + "\n"), std::string::npos) << what;
    }
  }
}

TEST(TorchEnvironment, TorchrunAgentStore) {
  auto env = read_environment(lookup_in(valid()));
  EXPECT_FALSE(env.agent_store);
  EXPECT_EQ(env.restart_count, 0);
  env = read_environment(
      lookup_in(with(valid(), {{"TORCHELASTIC_USE_AGENT_STORE", "True"}, {"TORCHELASTIC_RESTART_COUNT", "2"}})));
  EXPECT_TRUE(env.agent_store);
  EXPECT_EQ(env.restart_count, 2);
  // As in PyTorch, only "True" means the agent hosts the store.
  EXPECT_FALSE(read_environment(lookup_in(with(valid(), {{"TORCHELASTIC_USE_AGENT_STORE", "False"}}))).agent_store);
  EXPECT_FALSE(read_environment(lookup_in(with(valid(), {{"TORCHELASTIC_USE_AGENT_STORE", "1"}}))).agent_store);
  EXPECT_THROW(read_environment(lookup_in(with(valid(), {{"TORCHELASTIC_RESTART_COUNT", "x"}}))), EnvironmentError);
}

TEST(TorchEnvironment, AllKnownBackendsAreAccepted) {
  for (const auto& backend : core::backend_names()) {
    EXPECT_EQ(read_environment(lookup_in(with(valid(), {{"TORCH_BACKEND", backend}}))).backend, backend);
  }
}

}  // namespace
}  // namespace ezpz::torch
