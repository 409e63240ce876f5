// Precedence: built-in default < profile < spec < EZPZ_* env < --set, table-driven, with origins.
#include <gtest/gtest.h>

#include "../test_support.hpp"

namespace ezpz::core {
namespace {

using test::Layers;

struct Case {
  const char* what;
  Layers layers;
  const char* key;
  nlohmann::json value;
  OriginKind origin;
};

void PrintTo(const Case& c, std::ostream* out) {
  *out << c.what;
}

class Precedence : public ::testing::TestWithParam<Case> {};

TEST_P(Precedence, HighestLayerWinsAndSaysWhereItCameFrom) {
  const Case& c = GetParam();
  ResolvedJob job = test::resolve_layers(c.layers);
  bool found = false;
  for (const auto& item : explain(job)) {
    if (item.key != c.key) continue;
    found = true;
    EXPECT_EQ(item.value, c.value) << c.what;
    EXPECT_EQ(item.origin.kind, c.origin) << c.what << ": " << item.origin.describe();
  }
  EXPECT_TRUE(found) << c.what;
}

const char* k_base = "system: aurora\naccount: P\nrun: [x]\n";

INSTANTIATE_TEST_SUITE_P(
    Layers, Precedence,
    ::testing::Values(
        Case{"built-in default", {"system: slurm\nrun: [x]\n", {}, {}, ""}, "nodes", 1, OriginKind::default_value},
        Case{"profile default", {k_base, {}, {}, ""}, "queue", "debug", OriginKind::profile},
        Case{"spec over profile",
             {std::string(k_base) + "queue: capacity\n", {}, {}, ""},
             "queue",
             "capacity",
             OriginKind::spec},
        Case{"env over spec",
             {std::string(k_base) + "queue: capacity\n", {{"EZPZ_QUEUE", "visualization"}}, {}, ""},
             "queue",
             "visualization",
             OriginKind::env},
        Case{"--set over env",
             {std::string(k_base) + "queue: capacity\n", {{"EZPZ_QUEUE", "visualization"}}, {"queue=debug"}, ""},
             "queue",
             "debug",
             OriginKind::cli},
        Case{"env per variable",
             {std::string(k_base) + "env: {A: '1'}\n", {}, {"env.B=2"}, ""},
             "env.A",
             "1",
             OriginKind::spec},
        Case{"--set env variable",
             {std::string(k_base) + "env: {A: '1'}\n", {}, {"env.A=2"}, ""},
             "env.A",
             "2",
             OriginKind::cli},
        Case{"auto ranks from the profile", {k_base, {}, {}, ""}, "ranks_per_node", 12, OriginKind::profile},
        Case{"auto backend derived", {k_base, {}, {}, ""}, "torch.backend", "xccl", OriginKind::derived},
        Case{"spec system over detection", {k_base, {}, {}, "polaris"}, "system", "aurora", OriginKind::spec},
        Case{"detection when nothing names a system",
             {"account: P\nrun: [x]\n", {}, {}, "polaris"},
             "system",
             "polaris",
             OriginKind::derived},
        Case{"EZPZ_SYSTEM over spec",
             {"system: aurora\naccount: P\nrun: [x]\n", {{"EZPZ_SYSTEM", "polaris"}}, {}, ""},
             "system",
             "polaris",
             OriginKind::env},
        Case{"walltime normalised",
             {std::string(k_base) + "walltime: 5:60\n", {}, {}, ""},
             "walltime",
             "00:06:00",
             OriginKind::spec}));

TEST(Resolve, FailsLoudlyWithoutAnySystem) {
  std::string messages = test::error_messages([] { test::resolve_layers({"run: [x]\n", {}, {}, ""}); });
  EXPECT_NE(messages.find("no system given"), std::string::npos) << messages;
}

TEST(Resolve, DerivesRanksCpusAndBackendPerSystem) {
  struct Expect {
    const char* system;
    long ranks;
    long cpus;
    const char* device;
    const char* backend;
  };
  for (const auto& e : {Expect{"aurora", 12, 4, "xpu", "xccl"}, Expect{"polaris", 4, 8, "cuda", "nccl"},
                        Expect{"frontier", 8, 7, "cuda", "nccl"}, Expect{"perlmutter", 4, 32, "cuda", "nccl"},
                        Expect{"slurm", 1, 1, "cpu", "gloo"}}) {
    ResolvedJob job =
        test::resolve_layers({std::string("system: ") + e.system + "\naccount: A\nrun: [x]\n", {}, {}, ""});
    EXPECT_EQ(job.spec.ranks_per_node->value, e.ranks) << e.system;
    EXPECT_EQ(job.spec.cpus_per_rank->value, e.cpus) << e.system;
    EXPECT_EQ(job.spec.torch.device->value, e.device) << e.system;
    EXPECT_EQ(job.spec.torch.backend->value, e.backend) << e.system;
  }
}

TEST(Resolve, DeviceAndBackendMustSuitTheSystem) {
  // A job's EZPZ_TORCH_* leaking into a render for another system is caught, not rendered.
  std::string messages = test::error_messages([] {
    test::resolve_layers({"system: polaris\naccount: A\nrun: [x]\n", {{"EZPZ_TORCH_DEVICE", "xpu"}}, {}, ""});
  });
  EXPECT_NE(messages.find("torch.device 'xpu' does not exist on a 'polaris' node"), std::string::npos) << messages;
  messages = test::error_messages([] {
    test::resolve_layers({"system: aurora\naccount: A\nrun: [x]\n", {{"EZPZ_TORCH_BACKEND", "nccl"}}, {}, ""});
  });
  EXPECT_NE(messages.find("torch.backend 'nccl' cannot drive 'xpu' devices"), std::string::npos) << messages;
  EXPECT_EQ(test::resolve_layers({"system: aurora\naccount: A\nrun: [x]\ntorch: {device: cpu}\n", {}, {}, ""})
                .spec.torch.backend->value,
            "gloo");
}

TEST(Resolve, CpuBindingFollowsAnExplicitCpusPerRankOrFailsLoudly) {
  std::string base = "system: aurora\naccount: A\nrun: [x]\n";
  // Generated lists skip the reserved cores (0, 52) and the service cores (48-51, 100-103): 47 per socket.
  ResolvedJob job = test::resolve_layers({base, {}, {"cpus_per_rank=7"}, ""});
  EXPECT_EQ(job.spec.cpu_bind->value, "list:1-7:8-14:15-21:22-28:29-35:36-42:53-59:60-66:67-73:74-80:81-87:88-94");
  std::string eight = test::error_messages([&] { test::resolve_layers({base, {}, {"cpus_per_rank=8"}, ""}); });
  EXPECT_NE(eight.find("cannot bind 12 rank(s) per node x 8 cpus on a 'aurora' node (2 socket(s), 102 usable cores, "
                       "of which generated lists leave service cores 48-51,100-103 free)"),
            std::string::npos)
      << eight;
  EXPECT_EQ(test::resolve_layers({base, {}, {"cpu_bind=depth"}, ""}).spec.cpu_bind->value, "depth");
  // 5 ranks are 3 on socket 0 and 2 on socket 1 (resolve/rank_placement.hpp); 3 x 16 cores do not fit
  // socket 0's 47.
  EXPECT_EQ(test::resolve_layers({base, {}, {"ranks_per_node=5"}, ""}).spec.cpu_bind->value,
            "list:1-15:16-30:31-45:53-75:76-98");
  std::string messages = test::error_messages([&] {
    test::resolve_layers({base, {}, {"ranks_per_node=5", "cpus_per_rank=16"}, ""});
  });
  EXPECT_NE(messages.find("cannot bind 5 rank(s) per node x 16 cpus on a 'aurora' node"), std::string::npos)
      << messages;
  EXPECT_EQ(test::resolve_layers({base, {}, {"ranks_per_node=5", "cpu_bind=none"}, ""}).spec.cpu_bind->value, "none");
}

TEST(Resolve, EveryLauncherThatBindsTakesTheUsersBinding) {
  auto launcher_text = [](const ResolvedJob& job) {
    std::string text;
    for (const auto& word : job.launcher) text += word.text + " ";
    return text;
  };
  std::string polaris = "system: polaris\naccount: A\nrun: [x]\n";
  EXPECT_NE(launcher_text(test::resolve_layers({polaris, {}, {}, ""})).find("--cpu-bind depth "), std::string::npos);
  EXPECT_NE(launcher_text(test::resolve_layers({polaris, {}, {"cpu_bind=list:0,8,16,24"}, ""}))
                .find("--cpu-bind list:0,8,16,24 "),
            std::string::npos);
  EXPECT_EQ(launcher_text(test::resolve_layers({polaris, {}, {"cpu_bind=none"}, ""})).find("--cpu-bind"),
            std::string::npos);
  std::string frontier = "system: frontier\naccount: A\nrun: [x]\n";
  EXPECT_NE(launcher_text(test::resolve_layers({frontier, {}, {"cpu_bind=threads"}, ""})).find("--cpu-bind=threads "),
            std::string::npos);
  std::string messages = test::error_messages([] {
    test::resolve_layers({"system: local\nrun: [x]\ncpu_bind: depth\n", {}, {}, ""});
  });
  EXPECT_NE(messages.find("the 'local' launcher of system 'local' takes no cpu binding"), std::string::npos)
      << messages;
}

TEST(Resolve, ExplicitCpusMatchingTheSiteListKeepTheSiteList) {
  ResolvedJob job = test::resolve_layers({"system: aurora\naccount: A\nrun: [x]\ncpus_per_rank: 4\n", {}, {}, ""});
  EXPECT_EQ(job.spec.cpu_bind->value, "list:4-7:8-11:12-15:16-19:20-23:24-27:56-59:60-63:64-67:68-71:72-75:76-79");
}

TEST(Resolve, ReportsOneProblemOnceAndAlwaysWithAPlace) {
  try {
    test::resolve_layers({"system: aurora\naccount: A\nrun: [x]\nqueue: prod\ncpus_per_rank: 9\n", {}, {}, ""});
    FAIL();
  } catch (const UserError& error) {
    ASSERT_EQ(error.diagnostics().size(), 2u);
    EXPECT_EQ(error.diagnostics()[0].message, "queue 'prod' needs at least 256 nodes, found 1");
    EXPECT_EQ(error.diagnostics()[0].loc.describe(), "job.yaml") << "a built-in default points at the spec file";
    EXPECT_NE(error.diagnostics()[1].message.find("cpus_per_rank 9 x ranks_per_node 12 is more than"),
              std::string::npos);
  }
}

TEST(Resolve, SchedulerArgsReplaceTheDirectiveForTheSameOption) {
  ResolvedJob job = test::resolve_layers(
      {"system: polaris\naccount: A\nrun: [x]\nscheduler_args: ['-l place=scatter:group=x']\n", {}, {}, ""});
  int place = 0;
  for (const auto& line : job.directives) place += line.rfind("-l place=", 0) == 0;
  EXPECT_EQ(place, 1);
  EXPECT_EQ(job.directives.back(), "-l place=scatter:group=x");
}

TEST(Resolve, SchedulerArgsMayNotSetWhatASpecKeyOwns) {
  // -l select would leave the launcher's rank count, computed from `nodes`, out of step.
  std::string messages = test::error_messages([] {
    test::resolve_layers(
        {"system: polaris\naccount: A\nrun: [x]\nscheduler_args: ['-l select=1:ngpus=4']\n", {}, {}, ""});
  });
  EXPECT_NE(messages.find("sets '-l select', which the spec key 'nodes' owns"), std::string::npos) << messages;
  messages = test::error_messages([] {
    test::resolve_layers({"system: slurm\nrun: [x]\nscheduler_args: ['--time=5']\n", {}, {}, ""});
  });
  EXPECT_NE(messages.find("which the spec key 'walltime' owns"), std::string::npos) << messages;
}

TEST(Resolve, MultiNodeOnlyBackendVariablesFollowTheNodeCount) {
  auto has = [](const ResolvedJob& job, const std::string& name) {
    for (const auto& [n, v] : job.backend_env) {
      if (n == name) return true;
    }
    return false;
  };
  std::string spec = "system: frontier\naccount: A\nrun: [x]\n";
  EXPECT_FALSE(has(test::resolve_layers({spec, {}, {}, ""}), "NCCL_SOCKET_IFNAME"));
  EXPECT_TRUE(has(test::resolve_layers({spec, {}, {"nodes=2"}, ""}), "NCCL_SOCKET_IFNAME"));
}

TEST(Resolve, HashChangesWithTheJobAndOnlyWithIt) {
  std::string spec = "system: slurm\nrun: [x]\n";
  auto a = test::resolve_layers({spec, {}, {}, ""}).hash;
  EXPECT_EQ(a, test::resolve_layers({spec, {}, {}, ""}).hash);
  EXPECT_NE(a, test::resolve_layers({spec, {}, {"nodes=2"}, ""}).hash);
  EXPECT_EQ(a.size(), 16u);
}

}  // namespace
}  // namespace ezpz::core
