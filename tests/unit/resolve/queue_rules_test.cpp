// Queue rules beyond node and walltime limits: minimum walltimes (errors), caps and by-request queues
// (warnings), and the environment a job's node and rank counts select.
#include <gtest/gtest.h>

#include <algorithm>

#include "../test_support.hpp"

namespace ezpz::core {
namespace {

std::string warnings_of(const std::string& spec) {
  std::string out;
  for (const auto& warning : test::resolve_layers({spec, {}, {}, ""}).warnings) out += format_diagnostic(warning);
  return out;
}

std::string env_value(const ResolvedJob& job, const std::string& name) {
  std::string value;
  int seen = 0;
  for (const auto& [n, v] : job.backend_env) {
    if (n == name) {
      value = v.value;
      ++seen;
    }
  }
  EXPECT_LE(seen, 1) << name << " exported twice";
  return value;
}

TEST(QueueRules, CapsAndByRequestQueuesWarnButDoNotFail) {
  std::string base = "system: aurora\naccount: A\nrun: [x]\n";
  std::string debug = warnings_of(base + "queue: debug\n");
  EXPECT_NE(debug.find("warning: queue 'debug' limits jobs: at most 1 job(s) per user"), std::string::npos) << debug;
  EXPECT_EQ(debug.rfind("ezpz: ", 0), 0u) << debug;
  EXPECT_NE(debug.find("  hint: "), std::string::npos) << debug;

  std::string visualization = warnings_of(base + "queue: visualization\n");
  EXPECT_NE(visualization.find("is available by request only"), std::string::npos) << visualization;

  std::string capacity = warnings_of(base + "queue: capacity\n");
  EXPECT_NE(capacity.find("at most 512 nodes across all jobs; at most 5 job(s) queued or running per user; "
                          "at most 2 job(s) running per user"),
            std::string::npos)
      << capacity;

  // ALCF prod (Aurora and Polaris): 10 running/accruing and 100 queued per project.
  for (std::string system : {"aurora", "polaris"}) {
    std::string prod = warnings_of("system: " + system + "\naccount: A\nrun: [x]\nqueue: prod\nnodes: 256\n");
    EXPECT_NE(prod.find("warning: queue 'prod' limits jobs: at most 10 job(s) running or accruing per project; "
                        "at most 100 job(s) queued (not accruing) per project"),
              std::string::npos)
        << system << ": " << prod;
    EXPECT_NE(prod.find("`ezpz doctor` with this spec counts"), std::string::npos) << prod;
  }
  EXPECT_NE(warnings_of("system: frontier\naccount: A\nrun: [x]\nqueue: batch\n")
                .find("at most 100 job(s) per user in any state, across all queues"),
            std::string::npos);
  EXPECT_NE(warnings_of("system: polaris\naccount: A\nrun: [x]\nqueue: demand\n").find("by request only"),
            std::string::npos);
  EXPECT_NE(warnings_of("system: polaris\naccount: A\nrun: [x]\nqueue: preemptable\n").find("20 job(s) per project"),
            std::string::npos);
  EXPECT_NE(warnings_of("system: frontier\naccount: A\nrun: [x]\nqueue: extended\n")
                .find("at most 1 job(s) running per user; at most 1 eligible-to-run job(s) per user"),
            std::string::npos);
  for (const char* queue : {"by-node", "by-gpu", "bigmem"}) {
    EXPECT_NE(warnings_of(std::string("system: sophia\naccount: A\nrun: [x]\nnodes: 1\nqueue: ") + queue + "\n")
                  .find("at most 20 job(s) per project (running, accruing or queued); at most 5 job(s) running per "
                        "project"),
              std::string::npos)
        << queue;
  }
}

TEST(QueueRules, WarningsUseTheErrorFormatWithTheirOwnWord) {
  Diagnostic warning{{}, "queue 'q' limits jobs", "a hint", Severity::warning};
  EXPECT_EQ(format_diagnostic(warning), "ezpz: warning: queue 'q' limits jobs\n  hint: a hint\n");
  Diagnostics d;
  d.warning({}, "w");
  EXPECT_TRUE(d.empty());
  EXPECT_NO_THROW(d.throw_if_any());
  EXPECT_EQ(d.warnings().size(), 1u);
}

TEST(QueueRules, WalltimeUnderTheQueueMinimumIsAnError) {
  for (std::string system : {"aurora", "polaris", "sophia"}) {
    std::string messages = test::error_messages([&] {
      test::resolve_layers({"system: " + system + "\naccount: A\nrun: [x]\nnodes: 1\nwalltime: 4m\n", {}, {}, ""});
    });
    EXPECT_NE(messages.find("walltime '00:04:00' is under the minimum of queue '"), std::string::npos)
        << system << ": " << messages;
    EXPECT_NE(messages.find("(00:05:00)"), std::string::npos) << system << ": " << messages;
  }
  EXPECT_NO_THROW(test::resolve_layers({"system: aurora\naccount: A\nrun: [x]\nwalltime: 5m\n", {}, {}, ""}));
}

TEST(QueueRules, ProdWalltimeFollowsTheJobSize) {
  struct Case {
    const char* system;
    long nodes;
    const char* fits;
    const char* too_long;
  };
  for (const auto& c :
       {Case{"aurora", 1024, "12h", "13h"}, Case{"aurora", 1025, "18h", "19h"}, Case{"aurora", 2000, "24h", "25h"},
        Case{"polaris", 24, "3h", "4h"}, Case{"polaris", 25, "6h", "7h"}, Case{"polaris", 100, "24h", "25h"}}) {
    std::string spec = std::string("system: ") + c.system +
                       "\naccount: A\nrun: [x]\nqueue: prod\nnodes: " + std::to_string(c.nodes) + "\n";
    EXPECT_NO_THROW(test::resolve_layers({spec + "walltime: " + c.fits + "\n", {}, {}, ""})) << c.system << c.nodes;
    std::string messages = test::error_messages([&] {
      test::resolve_layers({spec + "walltime: " + c.too_long + "\n", {}, {}, ""});
    });
    EXPECT_NE(messages.find("is over the limit of queue 'prod'"), std::string::npos) << c.system << c.nodes;
  }
}

TEST(QueueRules, AuroraEnvironmentFollowsNodesAndRanksPerNode) {
  std::string spec = "system: aurora\naccount: A\nrun: [x]\nqueue: debug\n";
  ResolvedJob one = test::resolve_layers({spec, {}, {}, ""});
  EXPECT_EQ(env_value(one, "ZE_FLAT_DEVICE_HIERARCHY"), "FLAT");
  EXPECT_EQ(env_value(one, "CCL_OP_SYNC"), "");
  ResolvedJob two = test::resolve_layers({spec, {}, {"nodes=2"}, ""});
  // ALCF's oneCCL page (2026-08-19) lists these two as "application-dependent": opt-in, never defaults.
  EXPECT_EQ(env_value(two, "CCL_ATL_SYNC_COLL"), "");
  EXPECT_EQ(env_value(two, "CCL_OP_SYNC"), "");
  EXPECT_EQ(env_value(two, "CCL_KVS_CONNECTION_TIMEOUT"), "600");
  ResolvedJob six = test::resolve_layers({spec, {}, {"ranks_per_node=6"}, ""});
  EXPECT_EQ(env_value(six, "ZE_FLAT_DEVICE_HIERARCHY"), "COMPOSITE");
  EXPECT_EQ(six.spec.cpu_bind->value, "list:1-16:17-32:33-48:53-68:69-84:85-100");
  // The runtime takes the same entries for the counts it finds.
  const BackendEnv& env = test::builtin_catalog().system("aurora").backend_env;
  auto value_of = [](const std::vector<EnvEntry>& entries, const std::string& name) {
    for (const auto& e : entries) {
      if (e.name == name) return e.value;
    }
    return std::string();
  };
  EXPECT_EQ(value_of(env.for_job(2, 6), "ZE_FLAT_DEVICE_HIERARCHY"), "COMPOSITE");
  EXPECT_EQ(value_of(env.for_job(2, 12), "ZE_FLAT_DEVICE_HIERARCHY"), "FLAT");
}

TEST(QueueRules, PerlmutterSetsTheNcclNetworkVariablesOnlyForMoreThanOneNode) {
  // HPE shs-ccl-docs ccl_env.sh (2026-03-24): "Do not set NCCL_NET on single-node Slurm runs".
  std::string spec = "system: perlmutter\naccount: m1_g\nrun: [x]\n";
  const std::vector<std::string> network = {"NCCL_NET",
                                            "NCCL_CROSS_NIC",
                                            "NCCL_SOCKET_IFNAME",
                                            "NCCL_NET_GDR_LEVEL",
                                            "FI_CXI_DISABLE_HOST_REGISTER",
                                            "FI_CXI_RDZV_GET_MIN",
                                            "FI_CXI_SAFE_DEVMEM_COPY_THRESHOLD"};
  ResolvedJob one = test::resolve_layers({spec, {}, {}, ""});
  ResolvedJob two = test::resolve_layers({spec, {}, {"nodes=2"}, ""});
  for (const auto& name : network) {
    EXPECT_EQ(env_value(one, name), "") << name;
    EXPECT_NE(env_value(two, name), "") << name;
  }
  EXPECT_EQ(env_value(two, "NCCL_NET"), "AWS Libfabric");
  EXPECT_EQ(env_value(two, "NCCL_NET_GDR_LEVEL"), "PHB");
  EXPECT_EQ(env_value(two, "FI_CXI_DISABLE_HOST_REGISTER"), "1");
  // GPU-aware Cray MPICH without the GTL library kills every rank: off on one node and on many.
  EXPECT_EQ(env_value(one, "MPICH_GPU_SUPPORT_ENABLED"), "0");
  EXPECT_EQ(env_value(two, "MPICH_GPU_SUPPORT_ENABLED"), "0");
}

TEST(QueueRules, GeneratedAuroraListsLeaveServiceCoresFree) {
  ResolvedJob job =
      test::resolve_layers({"system: aurora\naccount: A\nrun: [x]\nqueue: debug\nranks_per_node: 4\n", {}, {}, ""});
  EXPECT_EQ(job.spec.cpu_bind->value, "list:1-23:24-46:53-75:76-98");
}

TEST(QueueRules, DaosFilesystemsAddNoVniToEveryLaunch) {
  std::string spec = "system: aurora\naccount: A\nrun: [x]\nqueue: debug\n";
  auto has_no_vni = [](const std::vector<CommandWord>& words) {
    return std::count_if(words.begin(), words.end(), [](const CommandWord& w) { return w.text == "--no-vni"; });
  };
  ResolvedJob plain = test::resolve_layers({spec, {}, {}, ""});
  EXPECT_EQ(has_no_vni(plain.launcher), 0);
  ResolvedJob both = test::resolve_layers({spec + "filesystems: [flare, daos_user_fs, daos_perf_fs]\n", {}, {}, ""});
  EXPECT_EQ(has_no_vni(both.launcher), 1);
  EXPECT_EQ(has_no_vni(both.stage_launcher), 1);
}

}  // namespace
}  // namespace ezpz::core
