// torchrun's variables in what `ezpz exec` exports: values as torchrun's agent gives them, the same on
// every rank where torchrun's are, and torchrun's own left alone under torchrun.
#include "ezpz/runtime/torchrun_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "runtime_support.hpp"

namespace ezpz::core {
namespace {

using Exports = std::vector<std::pair<std::string, std::string>>;

std::map<std::string, std::string> exports_on(const std::string& system, std::map<std::string, std::string> env) {
  RankSetup setup = test::rank_setup_on(system, std::move(env));
  return {setup.exports.begin(), setup.exports.end()};
}

// Rank `rank` of a 2-node Slurm step with 2 tasks per node.
std::map<std::string, std::string> slurm_rank(long rank) {
  return exports_on("slurm", {{"SLURM_JOB_ID", "4242"},
                              {"SLURM_STEP_ID", "0"},
                              {"SLURM_PROCID", std::to_string(rank)},
                              {"SLURM_NTASKS", "4"},
                              {"SLURM_LOCALID", std::to_string(rank % 2)},
                              {"SLURM_NODEID", std::to_string(rank / 2)},
                              {"SLURM_STEP_TASKS_PER_NODE", "2(x2)"},
                              {"SLURM_STEP_NODELIST", "n[1-2]"}});
}

TEST(TorchrunEnv, EveryAgentVariableOnASlurmRank) {
  auto env = slurm_rank(3);
  EXPECT_EQ(env["GROUP_RANK"], "1") << "one worker group per node: the node's index";
  EXPECT_EQ(env["GROUP_WORLD_SIZE"], "2");
  EXPECT_EQ(env["ROLE_RANK"], "3");
  EXPECT_EQ(env["ROLE_WORLD_SIZE"], "4");
  EXPECT_EQ(env["ROLE_NAME"], "default");
  EXPECT_EQ(env["LOCAL_WORLD_SIZE"], "2");
  EXPECT_EQ(env["TORCHELASTIC_RUN_ID"], "4242") << "torchrun's documented --rdzv_id=$JOB_ID";
  EXPECT_EQ(env["TORCHELASTIC_RESTART_COUNT"], "0");
  EXPECT_EQ(env["TORCHELASTIC_MAX_RESTARTS"], "0");
  EXPECT_EQ(env["TORCHELASTIC_USE_AGENT_STORE"], "False") << "rank 0 hosts the store, no agent does";
  EXPECT_EQ(env["OMP_NUM_THREADS"], "1") << "torchrun's default for more than one rank per node";
}

TEST(TorchrunEnv, SameValuesOnEveryRankWhereTorchrunsAre) {
  for (const char* name : {"GROUP_WORLD_SIZE", "ROLE_WORLD_SIZE", "ROLE_NAME", "TORCHELASTIC_RUN_ID",
                           "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_USE_AGENT_STORE"}) {
    std::string first = slurm_rank(0)[name];
    EXPECT_FALSE(first.empty()) << name;
    for (long rank = 1; rank < 4; ++rank) EXPECT_EQ(slurm_rank(rank)[name], first) << name << " on rank " << rank;
  }
  for (long rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(slurm_rank(rank)["ROLE_RANK"], std::to_string(rank));
    EXPECT_EQ(slurm_rank(rank)["GROUP_RANK"], std::to_string(rank / 2));
  }
}

TEST(TorchrunEnv, RunIdOutsideAJobIsTheRendezvous) {
  // Two MPICH ranks on this machine, no job: every rank derives 127.0.0.1 and the default port.
  for (const char* rank : {"0", "1"}) {
    auto env = exports_on("local",
                          {{"PMI_RANK", rank}, {"PMI_SIZE", "2"}, {"MPI_LOCALRANKID", rank}, {"MPI_LOCALNRANKS", "2"}});
    EXPECT_EQ(env["TORCHELASTIC_RUN_ID"], env["MASTER_ADDR"] + ":" + env["MASTER_PORT"]);
    EXPECT_EQ(env["TORCHELASTIC_RUN_ID"], "127.0.0.1:29500");
  }
  // Local ranks of `ezpz launch`: the port it chose for this launch.
  auto env = exports_on("local", {{"RANK", "1"},
                                  {"WORLD_SIZE", "2"},
                                  {"LOCAL_RANK", "1"},
                                  {"LOCAL_WORLD_SIZE", "2"},
                                  {"MASTER_ADDR", "127.0.0.1"},
                                  {"MASTER_PORT", "41234"}});
  EXPECT_EQ(env["TORCHELASTIC_RUN_ID"], "127.0.0.1:41234");
  EXPECT_EQ(env["GROUP_RANK"], "0");
}

TEST(TorchrunEnv, OmpNumThreadsOnlyForSeveralLocalRanksAndNeverOverTheUsers) {
  auto alone = exports_on("local", {});
  EXPECT_EQ(alone.count("OMP_NUM_THREADS"), 0u) << "torchrun sets it only for nproc_per_node > 1";
  EXPECT_EQ(alone["TORCHELASTIC_RUN_ID"], "127.0.0.1:29500") << "a lone process still gets the contract";
  auto users = exports_on(
      "local",
      {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}, {"LOCAL_WORLD_SIZE", "2"}, {"OMP_NUM_THREADS", "8"}});
  EXPECT_EQ(users.count("OMP_NUM_THREADS"), 0u) << "the user's value stays";
  auto empty = exports_on(
      "local",
      {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}, {"LOCAL_WORLD_SIZE", "2"}, {"OMP_NUM_THREADS", ""}});
  EXPECT_EQ(empty.count("OMP_NUM_THREADS"), 0u) << "set but empty is set, as for torchrun ('in os.environ')";
  // Two nodes of one rank each: one local rank, so no OMP_NUM_THREADS.
  auto spread = exports_on(
      "local",
      {{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}, {"LOCAL_WORLD_SIZE", "1"}, {"MASTER_ADDR", "h0"}});
  EXPECT_EQ(spread.count("OMP_NUM_THREADS"), 0u);
  EXPECT_EQ(spread["GROUP_RANK"], "1");
  EXPECT_EQ(spread["GROUP_WORLD_SIZE"], "2");
}

TEST(TorchrunEnv, RestartCountsOfTheAttemptThatEzpzLaunchSet) {
  auto env = exports_on("local", {{"TORCHELASTIC_RESTART_COUNT", "2"}, {"TORCHELASTIC_MAX_RESTARTS", "3"}});
  EXPECT_EQ(env["TORCHELASTIC_RESTART_COUNT"], "2");
  EXPECT_EQ(env["TORCHELASTIC_MAX_RESTARTS"], "3");
  auto junk = exports_on("local", {{"TORCHELASTIC_RESTART_COUNT", "two"}, {"TORCHELASTIC_MAX_RESTARTS", "-1"}});
  EXPECT_EQ(junk["TORCHELASTIC_RESTART_COUNT"], "0");
  EXPECT_EQ(junk["TORCHELASTIC_MAX_RESTARTS"], "0");
  EXPECT_EQ(torchrun_restart_variables(1, 3),
            (Exports{{"TORCHELASTIC_RESTART_COUNT", "1"}, {"TORCHELASTIC_MAX_RESTARTS", "3"}}));
}

TEST(TorchrunEnv, UnderTorchrunItsAgentsValuesStand) {
  // torchrun's static rendezvous: its agent hosts the store (USE_AGENT_STORE=True); replacing that with
  // False would make rank 0 start a second store on the agent's port.
  auto env = exports_on("local", {{"RANK", "1"},
                                  {"WORLD_SIZE", "2"},
                                  {"LOCAL_RANK", "1"},
                                  {"LOCAL_WORLD_SIZE", "2"},
                                  {"GROUP_RANK", "0"},
                                  {"MASTER_ADDR", "localhost"},
                                  {"MASTER_PORT", "29400"},
                                  {"OMP_NUM_THREADS", "1"},
                                  {"TORCHELASTIC_RUN_ID", "607d92dd"},
                                  {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                                  {"TORCHELASTIC_RESTART_COUNT", "1"}});
  for (const auto& name : torchrun_agent_variables()) {
    EXPECT_EQ(env.count(name), 0u) << name << " is torchrun's to set";
  }
  EXPECT_EQ(env["RANK"], "1");
}

TEST(TorchrunEnv, AStaleRunIdDoesNotMakeAnMpiRankTorchrunsWorker) {
  // An MPI rank is read from MPI's variables: a TORCHELASTIC_RUN_ID it inherited is replaced.
  auto env = exports_on("local", {{"PMI_RANK", "0"},
                                  {"PMI_SIZE", "2"},
                                  {"MPI_LOCALRANKID", "0"},
                                  {"MPI_LOCALNRANKS", "2"},
                                  {"TORCHELASTIC_RUN_ID", "old"},
                                  {"TORCHELASTIC_USE_AGENT_STORE", "True"}});
  EXPECT_EQ(env["TORCHELASTIC_RUN_ID"], "127.0.0.1:29500");
  EXPECT_EQ(env["TORCHELASTIC_USE_AGENT_STORE"], "False");
}

TEST(TorchrunEnv, AgentVariablesAreTheExportedOnes) {
  std::vector<std::string> names = torchrun_agent_variables();
  Exports exports;
  TorchrunFacts facts;
  add_torchrun_exports(exports, facts, table_env({}));
  ASSERT_EQ(exports.size(), names.size()) << "one rank alone: no OMP_NUM_THREADS";
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(exports[i].first, names[i]);
  for (const char* name : {"TORCHELASTIC_RUN_ID", "TORCHELASTIC_USE_AGENT_STORE", "GROUP_RANK", "ROLE_NAME"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
}

TEST(TorchrunEnv, AnOmpNumThreadsAlreadyExportedIsNotRepeated) {
  Exports exports = {{"OMP_NUM_THREADS", "4"}};
  TorchrunFacts facts;
  facts.rank.local_world_size = 2;
  facts.rank.world_size = 2;
  add_torchrun_exports(exports, facts, table_env({}));
  EXPECT_EQ(std::count_if(exports.begin(), exports.end(), [](const auto& e) { return e.first == "OMP_NUM_THREADS"; }),
            1);
  EXPECT_EQ(exports.front().second, "4");
}

}  // namespace
}  // namespace ezpz::core
