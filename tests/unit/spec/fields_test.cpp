// Job spec reading, overrides and the schema, all driven by the one field table.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ezpz/spec/job_spec.hpp"

namespace ezpz::core {
namespace {

JobSpec read(const std::string& text, Diagnostics& d) {
  return read_job_spec(parse_yaml(make_source("job.yaml", text)), OriginKind::spec, d);
}

TEST(ReadJobSpec, AWaitOrTimeLimitMayBeZeroButNotAWalltime) {
  // A bug: `supervise.retry_delay: 0s` was refused as "a walltime must be longer than zero".
  Diagnostics d;
  JobSpec spec = read("supervise: {retry_delay: 0s, probe_timeout: '00:00:00', spare_nodes: 1}\n", d);
  ASSERT_TRUE(d.empty()) << d.items()[0].message;
  EXPECT_EQ(spec.supervise.retry_delay->value, 0);
  EXPECT_EQ(spec.supervise.probe_timeout->value, 0);
  Diagnostics bad;
  read("walltime: 0s\nsupervise: {timeout: 0s}\n", bad);
  EXPECT_EQ(bad.items().size(), 2u);
}

TEST(ReadJobSpec, ReadsEveryKindOfValue) {
  Diagnostics d;
  JobSpec spec = read(R"(
name: j
nodes: 4
walltime: 1h30m
ranks_per_node: auto
cpus_per_rank: 8
filesystems: home
env: {A: "1", B: 2}
run: "python3 'my script.py' --x"
torch: {backend: gloo}
mail: {user: a@b.c, events: end}
stage: [{src: /a, dest: /tmp/a, unpack: true}]
)",
                      d);
  ASSERT_TRUE(d.empty()) << d.items()[0].message;
  EXPECT_EQ(spec.nodes->value, 4);
  EXPECT_EQ(spec.walltime->value, 5400);
  EXPECT_EQ(spec.ranks_per_node->value, k_auto);
  EXPECT_EQ(spec.cpus_per_rank->value, 8);
  EXPECT_EQ(spec.filesystems->value, std::vector<std::string>{"home"});
  EXPECT_EQ(spec.env.at("B").value, "2");
  EXPECT_EQ(spec.run->value, (std::vector<std::string>{"python3", "my script.py", "--x"}));
  EXPECT_EQ(spec.torch.backend->value, "gloo");
  EXPECT_EQ(spec.mail.events->value, std::vector<std::string>{"end"});
  ASSERT_EQ(spec.stage->value.size(), 1u);
  EXPECT_TRUE(spec.stage->value[0].unpack);
  EXPECT_EQ(spec.nodes->origin.describe(), "spec job.yaml:3:8");
}

TEST(ReadJobSpec, ReportsEveryProblemNotJustTheFirst) {
  Diagnostics d;
  read("nodes: 0\nwalltme: 1h\ntorch: {device: gpu}\nenv: {9X: a}\n", d);
  ASSERT_EQ(d.items().size(), 4u);
  EXPECT_EQ(d.items()[0].message, "'nodes' expects an integer from 1 to 1000000, found '0'");
  EXPECT_EQ(d.items()[1].hint, "did you mean 'walltime'?");
  EXPECT_EQ(d.items()[2].hint, "did you mean 'xpu'?");
  EXPECT_EQ(d.items()[3].message, "invalid environment variable name '9X'");
}

TEST(ApplyAssignment, SetsNestedKeysEnvAndLists) {
  Diagnostics d;
  JobSpec spec;
  apply_assignment(spec, "torch.backend=mpi", "--set", OriginKind::cli, d);
  apply_assignment(spec, "env.HF_HOME=/tmp/hf", "--set", OriginKind::cli, d);
  apply_assignment(spec, "modules=[a, b]", "--set", OriginKind::cli, d);
  apply_assignment(spec, "run=python3 -c 'print(1)'", "--set", OriginKind::cli, d);
  ASSERT_TRUE(d.empty()) << d.items()[0].message;
  EXPECT_EQ(spec.torch.backend->value, "mpi");
  EXPECT_EQ(spec.env.at("HF_HOME").value, "/tmp/hf");
  EXPECT_EQ(spec.modules->value, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(spec.run->value, (std::vector<std::string>{"python3", "-c", "print(1)"}));
  EXPECT_EQ(spec.torch.backend->origin.describe(), "--set torch.backend=mpi");
}

TEST(ApplyAssignment, ValuesAreLiteralUnlessTheyStartAFlowListOrMap) {
  Diagnostics d;
  JobSpec spec;
  apply_assignment(spec, "workdir=/scratch/run #2", "--set", OriginKind::cli, d);
  apply_assignment(spec, "output=%x-%j.out", "--set", OriginKind::cli, d);
  apply_assignment(spec, "name=null", "--set", OriginKind::cli, d);
  apply_assignment(spec, "filesystems=[home, flare]", "--set", OriginKind::cli, d);
  ASSERT_TRUE(d.empty()) << d.items()[0].message;
  EXPECT_EQ(spec.workdir->value, "/scratch/run #2");
  EXPECT_EQ(spec.output->value, "%x-%j.out");
  EXPECT_EQ(spec.name->value, "null");
  EXPECT_EQ(spec.filesystems->value, (std::vector<std::string>{"home", "flare"}));
}

TEST(ReadJobSpec, EnvMustNotTouchTheRuntimeHandOff) {
  Diagnostics d;
  read("env: {EZPZ_SYSTEM: frontier}\n", d);
  ASSERT_EQ(d.items().size(), 1u);
  EXPECT_EQ(d.items()[0].message, "'env.EZPZ_SYSTEM' would change the ezpz hand-off to the runtime");
}

TEST(ApplyAssignment, RejectsMalformedAssignmentsAndUnknownKeys) {
  Diagnostics d;
  JobSpec spec;
  apply_assignment(spec, "nodes", "--set", OriginKind::cli, d);
  apply_assignment(spec, "torch.backnd=x", "--set", OriginKind::cli, d);
  ASSERT_EQ(d.items().size(), 2u);
  EXPECT_EQ(d.items()[0].message, "expected key=value, found 'nodes'");
  EXPECT_EQ(d.items()[1].hint, "did you mean 'torch.backend'?");
}

TEST(EnvOverrides, ReadOnlyTheDocumentedVariables) {
  Diagnostics d;
  std::map<std::string, std::string> env = {{"EZPZ_NODES", "8"},
                                            {"EZPZ_TORCH_BACKEND", "gloo"},
                                            {"EZPZ_QUEUE", ""},
                                            {"EZPZ_RUN", "evil"},
                                            {"EZPZ_SETUP", "rm -rf ~"}};
  JobSpec spec = read_env_overrides(table_env(env), d);
  ASSERT_TRUE(d.empty());
  EXPECT_EQ(spec.nodes->value, 8);
  EXPECT_EQ(spec.nodes->origin.describe(), "env EZPZ_NODES=8");
  EXPECT_EQ(spec.torch.backend->value, "gloo");
  EXPECT_FALSE(spec.run);
  EXPECT_FALSE(spec.queue) << "a variable that is set but empty counts as unset";
  EXPECT_FALSE(spec.setup);
  EXPECT_EQ(env_override_name("torch.backend"), "EZPZ_TORCH_BACKEND");
  EXPECT_EQ(env_override_name("run"), "");
}

TEST(MergeInto, HigherLayersWinAndEnvMergesPerVariable) {
  Diagnostics d;
  JobSpec lower = read("nodes: 1\nqueue: a\nenv: {A: '1', B: '1'}\n", d);
  JobSpec higher = read("nodes: 2\nenv: {B: '2', C: '2'}\n", d);
  merge_into(lower, higher);
  EXPECT_EQ(lower.nodes->value, 2);
  EXPECT_EQ(lower.queue->value, "a");
  EXPECT_EQ(lower.env.at("A").value, "1");
  EXPECT_EQ(lower.env.at("B").value, "2");
  EXPECT_EQ(lower.env.at("C").value, "2");
}

TEST(Schema, IsJsonSchemaCoveringEveryKey) {
  auto schema = nlohmann::json::parse(job_spec_schema());
  EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
  EXPECT_FALSE(schema["additionalProperties"].get<bool>());
  for (const auto& [path, doc] : job_spec_keys()) {
    auto dot = path.find('.');
    const auto& properties = schema["properties"];
    if (dot == std::string::npos) {
      EXPECT_TRUE(properties.contains(path)) << path;
    } else {
      EXPECT_TRUE(properties[path.substr(0, dot)]["properties"].contains(path.substr(dot + 1))) << path;
    }
    EXPECT_FALSE(doc.empty()) << path;
  }
  EXPECT_EQ(schema["properties"]["torch"]["properties"]["backend"]["enum"].size(), 5u);
}

}  // namespace
}  // namespace ezpz::core
