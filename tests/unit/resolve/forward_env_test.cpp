// launcher.env_option / env_names: a launcher that does not pass the job's environment to remote ranks
// (Open MPI's mpirun over ssh) gets every variable the script exports for them, by name, once each.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "../test_support.hpp"
#include "ezpz/runtime/launch.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

// A catalog with one user profile, `NAME.yaml` holding `text`, on its search path.
struct UserCatalog {
  fs::path dir;
  std::unique_ptr<Catalog> catalog;

  UserCatalog(const std::string& name, const std::string& text)
      : dir(fs::temp_directory_path() / ("ezpz-forward-env-" + name + "-" + std::to_string(::getpid()))) {
    fs::create_directories(dir);
    std::ofstream(dir / (name + ".yaml")) << text;
    catalog = std::make_unique<Catalog>(std::vector<std::string>{dir.string()});
  }
  ~UserCatalog() { fs::remove_all(dir); }
};

const char* const k_forwarding_profile = R"(extends: pbs
description: PBS with a launcher that passes variables by name
launcher:
  env_option: "--pass {name}"
  env_names: [PATH, HF_HOME]
backend_env:
  always: {NCCL_DEBUG: WARN}
)";

ResolvedJob resolve_on(const Catalog& catalog, const std::string& spec) {
  Diagnostics diagnostics;
  ResolveInputs inputs = test::make_inputs({spec, {}, {}, ""}, diagnostics);
  diagnostics.throw_if_any();
  return resolve(catalog, inputs);
}

std::vector<std::string> texts(const std::vector<CommandWord>& words) {
  std::vector<std::string> out;
  for (const auto& word : words) out.push_back(word.variable ? "$" + word.text : word.text);
  return out;
}

std::vector<std::string> tail(const std::vector<std::string>& words, size_t count) {
  return {words.end() - static_cast<long>(std::min(count, words.size())), words.end()};
}

TEST(ForwardEnv, EveryExportedVariableOnceInTheScriptsOrder) {
  UserCatalog user("fwd", k_forwarding_profile);
  ResolvedJob job = resolve_on(
      *user.catalog, "system: fwd\nenv: {ZETA: z, HF_HOME: /hf}\nstage: [{src: /a, dest: /tmp/a}]\nrun: [x]\n");
  // EZPZ_BIN, the hand-off, the backend environment, the job's env (in name order), then env_names;
  // HF_HOME is both in env and env_names and comes once.
  std::vector<std::string> expected = {
      "EZPZ_BIN", "EZPZ_SYSTEM", "EZPZ_TORCH_BACKEND", "EZPZ_TORCH_DEVICE", "NCCL_DEBUG", "HF_HOME", "ZETA", "PATH"};
  EXPECT_EQ(job.forwarded_env, expected);
  std::vector<std::string> options;
  for (const auto& name : expected) {
    options.push_back("--pass");
    options.push_back(name);
  }
  EXPECT_EQ(tail(texts(job.launcher), options.size()), options) << "the options end the launcher";
  EXPECT_EQ(tail(texts(job.stage_launcher), options.size()), options) << "staging steps get them too";
}

TEST(ForwardEnv, TheScriptPassesThemAfterTheLauncherOptions) {
  UserCatalog user("fwd", k_forwarding_profile);
  ResolvedJob job = resolve_on(*user.catalog, "system: fwd\nrun: [x]\n");
  std::string script = render(job, *user.catalog, "/opt/ezpz/bin/ezpz").text;
  EXPECT_NE(script.find("--hostfile \"$PBS_NODEFILE\" --pass EZPZ_BIN --pass EZPZ_SYSTEM"), std::string::npos)
      << script;
  EXPECT_NE(script.find("--pass PATH --pass HF_HOME \\\n    \"$EZPZ_BIN\" exec --"), std::string::npos) << script;
}

TEST(ForwardEnv, LaunchersThatPassTheEnvironmentGetNothing) {
  for (const char* system : {"polaris", "aurora", "frontier", "pbs"}) {
    ResolvedJob job = test::resolve_layers({std::string("system: ") + system + "\naccount: A\nrun: [x]\n", {}, {}, ""});
    EXPECT_TRUE(job.forwarded_env.empty()) << system;
  }
}

TEST(ForwardEnv, SophiaPassesWhatOpenMpiDoesNotCarry) {
  ResolvedJob job = test::resolve_layers({"system: sophia\naccount: A\nenv: {HF_HOME: /hf}\nrun: [x]\n", {}, {}, ""});
  EXPECT_EQ(job.forwarded_env,
            (std::vector<std::string>{"EZPZ_BIN", "EZPZ_SYSTEM", "EZPZ_TORCH_BACKEND", "EZPZ_TORCH_DEVICE", "HF_HOME",
                                      "PATH", "LD_LIBRARY_PATH", "PBS_JOBID", "PBS_NODEFILE"}));
  EXPECT_EQ(tail(texts(job.launcher), 2), (std::vector<std::string>{"-x", "PBS_NODEFILE"}));
}

TEST(ForwardEnv, ProfileMistakesAreErrorsAtTheirPlace) {
  UserCatalog user("bad", "extends: pbs\nlauncher:\n  env_option: \"-x\"\n  env_names: [PATH, 1BAD, \"A B\"]\n");
  std::string messages = test::error_messages([&] { user.catalog->system("bad"); });
  EXPECT_NE(messages.find("'launcher.env_option' must contain '{name}', found '-x'"), std::string::npos) << messages;
  EXPECT_NE(messages.find("'launcher.env_names' holds '1BAD', which is not a variable name"), std::string::npos)
      << messages;
  EXPECT_NE(messages.find("'launcher.env_names' holds 'A B'"), std::string::npos) << messages;
}

TEST(ForwardEnv, LaunchSetsWhatTheLauncherPassesByName) {
  std::string hosts = test::temp_file("ezpz-forward-hosts", "sophia-gpu-01\nsophia-gpu-02\n");
  LaunchRequest request;
  request.system = "sophia";
  request.hostfile = hosts;
  request.program = {"python3", "train.py"};
  std::map<std::string, std::string> set = {{"PATH", "/usr/bin"}, {"PBS_JOBID", "1.sophia"}};
  LaunchPlan plan = plan_launch(test::builtin_catalog(), request, table_env(set), "/opt/ezpz/bin/ezpz");
  std::map<std::string, std::string> env(plan.env.begin(), plan.env.end());
  EXPECT_EQ(env["EZPZ_HOSTFILE"], hosts);
  EXPECT_EQ(env["EZPZ_BIN"], "/opt/ezpz/bin/ezpz");
  EXPECT_EQ(env["EZPZ_SYSTEM"], "sophia");
  EXPECT_EQ(env["EZPZ_TORCH_BACKEND"], "nccl");
  EXPECT_EQ(env["EZPZ_TORCH_DEVICE"], "cuda");
  EXPECT_EQ(env.count("PATH"), 0u) << "the caller's own variables are left as they are";
  // mpirun -n 16 -N 8 --hostfile HOSTS, the -x options, -x EZPZ_HOSTFILE, then the rank wrapper.
  std::vector<std::string> head = {"mpirun", "-n", "16", "-N", "8", "--hostfile", hosts, "-x", "EZPZ_BIN"};
  EXPECT_EQ(std::vector<std::string>(plan.argv.begin(), plan.argv.begin() + static_cast<long>(head.size())), head);
  auto wrapper = std::find(plan.argv.begin(), plan.argv.end(), "/opt/ezpz/bin/ezpz");
  ASSERT_NE(wrapper, plan.argv.end());
  EXPECT_EQ(std::vector<std::string>(wrapper - 2, wrapper + 4),
            (std::vector<std::string>{"-x", "EZPZ_HOSTFILE", "/opt/ezpz/bin/ezpz", "exec", "--", "python3"}));
}

TEST(ForwardEnv, LaunchWithAnEnvironmentPassingLauncherSetsOnlyTheHostFile) {
  std::string hosts = test::temp_file("ezpz-forward-hosts-pals", "x3005c0s13b1n0\n");
  LaunchRequest request;
  request.system = "polaris";
  request.hostfile = hosts;
  request.program = {"true"};
  LaunchPlan plan = plan_launch(test::builtin_catalog(), request, table_env({}), "/opt/ezpz/bin/ezpz");
  EXPECT_EQ(plan.env, (std::vector<std::pair<std::string, std::string>>{{"EZPZ_HOSTFILE", hosts}}));
}

}  // namespace
}  // namespace ezpz::core
