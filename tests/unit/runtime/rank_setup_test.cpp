// What `ezpz exec` exports on simulated sites: Aurora (PALS), Polaris (PMI), Frontier (Slurm), local.
#include "ezpz/runtime/rank_setup.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runtime_support.hpp"

namespace ezpz::core {
namespace {

std::map<std::string, std::string> exports_of(const RankSetup& env) {
  return {env.exports.begin(), env.exports.end()};
}

RankSetup on(const std::string& system, std::map<std::string, std::string> variables) {
  return test::rank_setup_on(system, std::move(variables));
}

std::string nodefile(const std::string& text) {
  return test::temp_file("ezpz-nodefile", text);
}

TEST(RankSetup, AuroraRankOnSecondNode) {
  std::string hosts = nodefile(
      "x4102c5s0b0n0.hostmgmt2102.cm.aurora.alcf.anl.gov\nx4102c5s1b0n0.hostmgmt2102.cm.aurora.alcf.anl.gov\n");
  auto env = exports_of(on("aurora", {{"PALS_RANKID", "13"},
                                      {"PALS_LOCAL_RANKID", "1"},
                                      {"PALS_NODEID", "1"},
                                      {"PMI_RANK", "13"},
                                      {"PMI_SIZE", "24"},
                                      {"PMI_LOCAL_SIZE", "12"},
                                      {"PBS_JOBID", "8414055.aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov"},
                                      {"PBS_NODEFILE", hosts},
                                      {"FI_MR_CACHE_MONITOR", "memhooks"}}));
  EXPECT_EQ(env["RANK"], "13");
  EXPECT_EQ(env["LOCAL_RANK"], "1");
  EXPECT_EQ(env["WORLD_SIZE"], "24");
  EXPECT_EQ(env["NODE_RANK"], "1");
  EXPECT_EQ(env["MASTER_ADDR"], "x4102c5s0b0n0.hsn.cm.aurora.alcf.anl.gov");
  EXPECT_EQ(env["MASTER_PORT"],
            std::to_string(port_for_job("8414055.aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov")));
  // All 12 tiles stay visible and the rank picks its own (ALCF's PyTorch DDP example).
  EXPECT_EQ(env.count("ZE_AFFINITY_MASK"), 0u);
  EXPECT_EQ(env["TORCH_DEVICE"], "xpu:1");
  EXPECT_EQ(env["TORCH_BACKEND"], "xccl");
  EXPECT_EQ(env["CCL_PROCESS_LAUNCHER"], "pmix");
  EXPECT_EQ(env["ZE_FLAT_DEVICE_HIERARCHY"], "FLAT");
  EXPECT_EQ(env["CCL_KVS_CONNECTION_TIMEOUT"], "600") << "multi-node oneCCL settings on a 2-node job";
  // ALCF's oneCCL page lists them as "application-dependent": the job opts in through its env.
  EXPECT_EQ(env.count("CCL_OP_SYNC"), 0u);
  EXPECT_EQ(env.count("CCL_ATL_SYNC_COLL"), 0u);
  EXPECT_EQ(env.count("FI_MR_CACHE_MONITOR"), 0u) << "a value the job set itself is left alone";
}

TEST(RankSetup, AuroraSixRanksPerNodeDriveWholeGpus) {
  std::string hosts = nodefile("x4102c5s0b0n0\n");
  auto env = exports_of(on("aurora", {{"PALS_RANKID", "4"},
                                      {"PALS_LOCAL_RANKID", "4"},
                                      {"PALS_NODEID", "0"},
                                      {"PMI_RANK", "4"},
                                      {"PMI_SIZE", "6"},
                                      {"PMI_LOCAL_SIZE", "6"},
                                      {"PBS_JOBID", "1.aurora-pbs-0001"},
                                      {"PBS_NODEFILE", hosts}}));
  EXPECT_EQ(env["ZE_FLAT_DEVICE_HIERARCHY"], "COMPOSITE");
  EXPECT_EQ(env["TORCH_DEVICE"], "xpu:4");
  EXPECT_EQ(env.count("CCL_KVS_CONNECTION_TIMEOUT"), 0u) << "one node: no multi-node settings";
}

// The device follows the socket of the rank's cores: with 2 ranks per node local rank 1 is bound to
// socket 1 (cpus 53-99) and uses tile 6, the first of socket 1's GPUs 3-5 (ALCF Aurora "Running Jobs").
TEST(RankSetup, AuroraTwoRanksPerNodeTakeATileOfTheirSocket) {
  std::string hosts = nodefile("x4102c5s0b0n0\n");
  RankSetup setup = on("aurora", {{"PALS_RANKID", "1"},
                                  {"PALS_LOCAL_RANKID", "1"},
                                  {"PALS_NODEID", "0"},
                                  {"PMI_RANK", "1"},
                                  {"PMI_SIZE", "2"},
                                  {"PMI_LOCAL_SIZE", "2"},
                                  {"PBS_JOBID", "1.aurora-pbs-0001"},
                                  {"PBS_NODEFILE", hosts}});
  auto env = exports_of(setup);
  EXPECT_EQ(env["TORCH_DEVICE"], "xpu:6");
  EXPECT_EQ(env.count("ZE_AFFINITY_MASK"), 0u);
  EXPECT_EQ(env["ZE_FLAT_DEVICE_HIERARCHY"], "FLAT");
  bool noted = false;
  for (const auto& note : setup.notes)
    noted = noted || note.find("local rank 1 (socket 1) uses index 6") != std::string::npos;
  EXPECT_TRUE(noted) << "ezpz exec --print says why";
}

TEST(RankSetup, PolarisReversedGpuAndNcclEnvironment) {
  std::string hosts = nodefile("x3005c0s13b1n0.hsn.cm.polaris.alcf.anl.gov\n");
  auto env = exports_of(on("polaris", {{"PMI_RANK", "2"},
                                       {"PMI_SIZE", "4"},
                                       {"PMI_LOCAL_RANK", "2"},
                                       {"PMI_LOCAL_SIZE", "4"},
                                       {"PBS_NODEFILE", hosts},
                                       {"PBS_JOBID", "1.polaris"}}));
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "1");
  EXPECT_EQ(env["TORCH_DEVICE"], "cuda:0");
  EXPECT_EQ(env["TORCH_BACKEND"], "nccl");
  EXPECT_EQ(env["MASTER_ADDR"], "x3005c0s13b1n0.hsn.cm.polaris.alcf.anl.gov");
  EXPECT_EQ(env["NCCL_NET"], "AWS Libfabric");
}

TEST(RankSetup, FrontierMultiNodeOnlyVariables) {
  std::map<std::string, std::string> base = {
      {"SLURM_STEP_ID", "0"},       {"SLURM_PROCID", "9"},
      {"SLURM_NTASKS", "16"},       {"SLURM_LOCALID", "1"},
      {"SLURM_NODEID", "1"},        {"SLURM_STEP_TASKS_PER_NODE", "8(x2)"},
      {"SLURM_JOB_ID", "77"},       {"SLURM_JOB_NODELIST", "frontier[00001-00002]"},
      {"ROCR_VISIBLE_DEVICES", "5"}};
  auto env = exports_of(on("frontier", base));
  EXPECT_EQ(env["MASTER_ADDR"], "frontier00001");
  EXPECT_EQ(env["TORCH_DEVICE"], "cuda:0");
  EXPECT_EQ(env["NCCL_SOCKET_IFNAME"], "hsn0,hsn1,hsn2,hsn3");
  EXPECT_EQ(env.count("ROCR_VISIBLE_DEVICES"), 0u) << "the launcher's binding is kept";
  auto single = exports_of(on("frontier", {{"SLURM_STEP_ID", "0"},
                                           {"SLURM_PROCID", "1"},
                                           {"SLURM_NTASKS", "8"},
                                           {"SLURM_LOCALID", "1"},
                                           {"SLURM_NODEID", "0"},
                                           {"SLURM_STEP_TASKS_PER_NODE", "8"},
                                           {"SLURM_JOB_NODELIST", "frontier00001"}}));
  EXPECT_EQ(single.count("NCCL_SOCKET_IFNAME"), 0u) << "RCCL network variables only for multi-node jobs";
}

// Every form a PBS_NODEFILE entry takes on a system with a network suffix gives the one HSN name
// (issue 10: Sunspot's nodefile already lists x1921c1s0b0n0-hsn0.hsn.cm.sunspot.alcf.anl.gov, and
// ezpz made x1921c1s0b0n0-hsn0-hsn0.hsn… of it).
struct NodefileForm {
  const char* system;
  const char* entry;
  const char* master_addr;
};

const NodefileForm k_nodefile_forms[] = {
    {"sunspot", "x1921c1s0b0n0", "x1921c1s0b0n0-hsn0.hsn.cm.sunspot.alcf.anl.gov"},
    {"sunspot", "x1921c1s0b0n0-hsn0.hsn.cm.sunspot.alcf.anl.gov", "x1921c1s0b0n0-hsn0.hsn.cm.sunspot.alcf.anl.gov"},
    {"sunspot", "x1921c1s0b0n0-hsn0", "x1921c1s0b0n0-hsn0.hsn.cm.sunspot.alcf.anl.gov"},
    {"aurora", "x4102c5s0b0n0", "x4102c5s0b0n0.hsn.cm.aurora.alcf.anl.gov"},
    {"aurora", "x4102c5s0b0n0.hostmgmt2102.cm.aurora.alcf.anl.gov", "x4102c5s0b0n0.hsn.cm.aurora.alcf.anl.gov"},
    {"aurora", "x4102c5s0b0n0.hsn.cm.aurora.alcf.anl.gov", "x4102c5s0b0n0.hsn.cm.aurora.alcf.anl.gov"},
    {"polaris", "x3005c0s13b1n0.hsn.cm.polaris.alcf.anl.gov", "x3005c0s13b1n0.hsn.cm.polaris.alcf.anl.gov"},
    {"polaris", "x3005c0s13b1n0", "x3005c0s13b1n0.hsn.cm.polaris.alcf.anl.gov"},
};

TEST(RankSetup, EveryNodefileFormGivesOneRendezvousHost) {
  for (const auto& form : k_nodefile_forms) {
    std::string hosts = nodefile(std::string(form.entry) + "\nx9999c0s0b0n0\n");
    auto env = exports_of(on(form.system, {{"PALS_RANKID", "0"},
                                           {"PALS_LOCAL_RANKID", "0"},
                                           {"PALS_NODEID", "0"},
                                           {"PMI_RANK", "0"},
                                           {"PMI_SIZE", "2"},
                                           {"PMI_LOCAL_SIZE", "1"},
                                           {"PBS_JOBID", "1.pbs"},
                                           {"PBS_NODEFILE", hosts}}));
    EXPECT_EQ(env["MASTER_ADDR"], form.master_addr) << form.system << " " << form.entry;
    // Idempotent: the address itself, as a nodefile entry, gives itself.
    const std::string& pattern = test::builtin_catalog().system(form.system).master_addr;
    EXPECT_EQ(master_addr_for(pattern, form.master_addr), form.master_addr) << form.system;
  }
}

TEST(MasterAddrFor, PatternsWithoutSuffixOrPlaceholder) {
  EXPECT_EQ(master_addr_for("{first_host}", "frontier00012.frontier.olcf.ornl.gov"), "frontier00012");
  EXPECT_EQ(master_addr_for("10.0.0.1", "x1"), "10.0.0.1");
  EXPECT_EQ(master_addr_for("{first_host}-hsn0.hsn.example", "-hsn0"), "-hsn0-hsn0.hsn.example")
      << "a name that is nothing but the suffix is not cut to nothing";
  EXPECT_EQ(master_addr_for("{first_host}-ib", "n01-ib"), "n01-ib") << "a suffix without a dot";
}

// Issue 10.4/10.5: profile values that extend a path list. ezpz exec expands their references, and
// adds them where the script has not (ezpz launch inside an allocation), but never twice.
TEST(RankSetup, ProfilePathListsAreExtendedOnce) {
  std::map<std::string, std::string> polaris = {{"PMI_RANK", "0"},
                                                {"PMI_SIZE", "4"},
                                                {"PMI_LOCAL_RANK", "0"},
                                                {"PMI_LOCAL_SIZE", "4"},
                                                {"PBS_JOBID", "1.polaris"}};
  const std::string plugin = "/soft/libraries/hwloc/lib/:/soft/libraries/aws-ofi-nccl/v1.9.1-aws/lib:";
  auto fresh = exports_of(on("polaris", polaris));
  EXPECT_EQ(fresh["LD_LIBRARY_PATH"], plugin) << "unset: the site's recipe, expanded";
  EXPECT_EQ(fresh["TMPDIR"], "/tmp");
  polaris["LD_LIBRARY_PATH"] = "/opt/nvidia/lib64";
  EXPECT_EQ(exports_of(on("polaris", polaris))["LD_LIBRARY_PATH"], plugin + "/opt/nvidia/lib64");
  polaris["LD_LIBRARY_PATH"] = "/venv/lib:" + plugin + "/opt/nvidia/lib64";
  EXPECT_EQ(exports_of(on("polaris", polaris)).count("LD_LIBRARY_PATH"), 0u) << "the script's export is kept";

  auto frontier = exports_of(on("frontier", {{"SLURM_STEP_ID", "0"},
                                             {"SLURM_PROCID", "1"},
                                             {"SLURM_NTASKS", "8"},
                                             {"SLURM_LOCALID", "1"},
                                             {"SLURM_NODEID", "0"},
                                             {"SLURM_STEP_TASKS_PER_NODE", "8"},
                                             {"SLURM_JOB_NODELIST", "frontier00001"},
                                             {"CRAY_LD_LIBRARY_PATH", "/opt/cray/pe/lib64"},
                                             {"LD_LIBRARY_PATH", "/opt/rocm/lib"}}));
  EXPECT_EQ(frontier["LD_LIBRARY_PATH"], "/opt/cray/pe/lib64:/opt/rocm/lib");
}

TEST(RankSetup, SameAddressAndPortOnEveryRank) {
  std::map<std::string, std::string> seen;
  for (int rank = 0; rank < 8; ++rank) {
    auto env = exports_of(on("slurm", {{"SLURM_STEP_ID", "0"},
                                       {"SLURM_PROCID", std::to_string(rank)},
                                       {"SLURM_NTASKS", "8"},
                                       {"SLURM_LOCALID", std::to_string(rank % 4)},
                                       {"SLURM_NODEID", std::to_string(rank / 4)},
                                       {"SLURM_STEP_TASKS_PER_NODE", "4(x2)"},
                                       {"SLURM_JOB_ID", "4242"},
                                       {"SLURM_JOB_NODELIST", "n[1-2]"}}));
    seen[env["MASTER_ADDR"] + ":" + env["MASTER_PORT"]] = env["RANK"];
  }
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen.begin()->first, "n1:" + std::to_string(port_for_job("4242")));
}

TEST(RankSetup, MultiNodeWithoutHostsFailsInsteadOfGuessingLocalhost) {
  try {
    on("pbs", {{"PMI_RANK", "5"}, {"PMI_SIZE", "8"}, {"PMI_LOCAL_RANK", "1"}, {"PMI_LOCAL_SIZE", "4"}});
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_NE(error.diagnostics()[0].message.find("spans 2 nodes but neither MASTER_ADDR nor a host list"),
              std::string::npos);
  }
}

TEST(RankSetup, BadMasterPortAndVisibilityListsAreErrors) {
  for (const char* port : {"abc", "0", "65536", "-1", "12ab", "999999"}) {
    EXPECT_THROW(on("aurora", {{"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", port}}), UserError) << port;
  }
  // Polaris picks a GPU from what the launcher left visible: an empty id would be taken as a device.
  for (const char* list : {",,,", "0,,1", "0,"}) {
    EXPECT_THROW(on("polaris", {{"PMI_RANK", "1"},
                                {"PMI_SIZE", "2"},
                                {"PMI_LOCAL_RANK", "1"},
                                {"PMI_LOCAL_SIZE", "2"},
                                {"CUDA_VISIBLE_DEVICES", list}}),
                 UserError)
        << list;
  }
}

TEST(RankSetup, ExplicitChoicesWin) {
  auto env = exports_of(on("aurora", {{"MASTER_ADDR", "10.0.0.1"},
                                      {"MASTER_PORT", "1234"},
                                      {"EZPZ_TORCH_DEVICE", "cpu"},
                                      {"EZPZ_TORCH_BACKEND", "gloo"}}));
  EXPECT_EQ(env["MASTER_ADDR"], "10.0.0.1");
  EXPECT_EQ(env["MASTER_PORT"], "1234");
  EXPECT_EQ(env["TORCH_DEVICE"], "cpu");
  EXPECT_EQ(env["TORCH_BACKEND"], "gloo");
  EXPECT_EQ(env.count("ZE_AFFINITY_MASK"), 0u);
  EXPECT_THROW(on("aurora", {{"EZPZ_TORCH_BACKEND", "ccl"}}), UserError);
}

// The facts ezpz.get_active_jobid() and ezpz.get_gpus_per_node() report: the scheduler's job id, and
// the accelerators of the chosen kind (the profile's count, else those found), 0 on the cpu.
TEST(RankSetup, JobIdAndGpusPerNode) {
  struct Case {
    std::string system;
    std::map<std::string, std::string> variables;
    std::string job_id;
    long gpus_per_node;
  };
  const Case cases[] = {
      {"aurora", {{"PBS_JOBID", "8414055.aurora-pbs-0001"}}, "8414055.aurora-pbs-0001", 12},
      {"polaris", {{"PBS_JOBID", "1.polaris"}}, "1.polaris", 4},
      {"frontier", {{"SLURM_JOB_ID", "4242"}}, "4242", 8},
      {"polaris", {{"EZPZ_TORCH_DEVICE", "cpu"}}, "", 0},
      {"local", {}, "", 0},
      {"local", {{"EZPZ_JOB_ID", "mine"}}, "mine", 0},
      // No device nodes: the visibility variable names the devices of this node.
      {"local", {{"CUDA_VISIBLE_DEVICES", "0,1,2"}}, "", 3},
      {"slurm", {{"SLURM_JOB_ID", "77"}, {"ZE_AFFINITY_MASK", "0,1"}}, "77", 2},
  };
  for (const auto& c : cases) {
    RankSetup setup = on(c.system, c.variables);
    EXPECT_EQ(setup.job_id, c.job_id) << c.system;
    EXPECT_EQ(setup.gpus_per_node, c.gpus_per_node) << c.system << " " << setup.device.torch_device;
  }
}

TEST(PortForJob, IsStableAndInRange) {
  EXPECT_EQ(port_for_job("123"), port_for_job("123"));
  EXPECT_NE(port_for_job("123"), port_for_job("124"));
  for (const char* id : {"1", "8414055.aurora-pbs-0001", "77", "4242_3"}) {
    EXPECT_GE(port_for_job(id), 20000);
    EXPECT_LT(port_for_job(id), 60000);
  }
}

}  // namespace
}  // namespace ezpz::core
