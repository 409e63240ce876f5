// The modules and python checks of ezpz doctor, from what the profile's shell answers: a module that is
// on MODULEPATH but fails to load, MODULEPATH empty in a batch shell that is not a login shell, and an
// `import torch` that fails in the job's environment (its modules, backend environment and setup).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../submit/fake_runner.hpp"
#include "../test_support.hpp"
#include "ezpz/doctor/checks.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

struct Site {
  fs::path dir;
  std::unique_ptr<Catalog> catalog;

  Site() {
    dir = fs::temp_directory_path() / ("ezpz-doctor-env-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "systems");
    fs::create_directories(dir / "modulefiles/conda");
    std::ofstream(dir / "modulefiles/conda/2025-09-25.lua") << "";
    fs::permissions(dir, fs::perms::owner_all);
    // PBS runs the batch script non-login: `module` may be defined while MODULEPATH is empty.
    std::ofstream(dir / "systems/nologin.yaml") << "extends: local\nshell: /bin/bash\nmodule_use: [/soft/modulefiles]\n"
                                                   "defaults: {modules: [conda/2025-09-25]}\n";
    std::ofstream(dir / "systems/login.yaml") << "extends: nologin\nshell: /bin/bash -l\n";
    std::ofstream(dir / "systems/gpu.yaml")
        << "extends: local\nshell: /bin/bash\nnode: {devices: {kind: cuda, count: 4, visibility: "
           "CUDA_VISIBLE_DEVICES}}\nbackend_env: {always: {LD_LIBRARY_PATH: "
           "\"$CRAY_LD_LIBRARY_PATH:$LD_LIBRARY_PATH\"}}\n";
    catalog = std::make_unique<Catalog>(std::vector<std::string>{(dir / "systems").string()});
  }
  ~Site() { fs::remove_all(dir); }

  DoctorInputs inputs(const std::string& system, ProcessRunner* runner) const {
    DoctorInputs in;
    in.catalog = catalog.get();
    in.env = table_env({});
    in.runner = runner;
    in.system = system;
    return in;
  }
};

// Lmod's words when a module file's own dependencies are gone (saforem2/ezpz#220: every Polaris conda
// module after the PE upgrade), and when MODULEPATH is empty (saforem2/ezpz#221).
const std::string k_lmod_unknown =
    "Lmod has detected the following error: The following module(s) are unknown: \"gcc-native/14.2\"\n";

TEST(DoctorEnvironment, EveryModuleIsLoadedAndTheFirstThatFailsIsNamed) {
  Site site;
  const std::string modulepath = (site.dir / "modulefiles").string();
  struct Case {
    const char* what;
    std::string out;  // the shell's answer
    CheckStatus status;
    const char* said;
  };
  const Case cases[] = {
      {"a module file on MODULEPATH that fails to load (Lmod, exit 1)",
       "ezpz-doctor module=yes\nezpz-doctor path=" + modulepath + "\n" + k_lmod_unknown +
           "ezpz-doctor loaded=conda/2025-09-25 status=1\n",
       CheckStatus::error,
       "module load conda/2025-09-25 fails: Lmod has detected the following error: The following module(s) are "
       "unknown: \"gcc-native/14.2\" (its module file is on MODULEPATH: the module itself fails)"},
      {"a load that fails with exit code 0 (Environment Modules 3.2)",
       "ezpz-doctor module=yes\nezpz-doctor path=" + modulepath +
           "\nModuleCmd_Load.c(213):ERROR:105: Unable to locate a modulefile for 'conda/2025-09-25'\n"
           "ezpz-doctor loaded=conda/2025-09-25 status=0\n",
       CheckStatus::error, "ERROR:105: Unable to locate a modulefile"},
      {"loaded",
       "ezpz-doctor module=yes\nezpz-doctor path=" + modulepath + "\nezpz-doctor loaded=conda/2025-09-25 status=0\n",
       CheckStatus::ok, "loaded conda/2025-09-25"},
      {"MODULEPATH empty, the load fails",
       "ezpz-doctor module=yes\nezpz-doctor path=\nLmod Warning: MODULEPATH is undefined.\n" + k_lmod_unknown +
           "ezpz-doctor loaded=conda/2025-09-25 status=1\n",
       CheckStatus::error, "(MODULEPATH was empty; not on MODULEPATH /soft/modulefiles)"},
      {"MODULEPATH empty, module_use is enough",
       "ezpz-doctor module=yes\nezpz-doctor path=\nezpz-doctor loaded=conda/2025-09-25 status=0\n", CheckStatus::ok,
       "loaded"},
  };
  for (const auto& c : cases) {
    test::FakeRunner runner;
    runner.expect({"/bin/bash"}, {0, c.out, ""});
    auto found = check_modules(site.inputs("nologin", &runner));
    ASSERT_EQ(found.size(), 1u) << c.what;
    EXPECT_EQ(found[0].status, c.status) << c.what << ": " << found[0].finding;
    EXPECT_NE(found[0].finding.find(c.said), std::string::npos) << c.what << ": " << found[0].finding;
    // The modules are loaded in the profile's shell, in order, after its module_use.
    const auto& argv = runner.calls.at(0);
    EXPECT_EQ(argv.front(), "/bin/bash");
    EXPECT_NE(argv.back().find("module use /soft/modulefiles 2>&1\nmodule load conda/2025-09-25 2>&1\n"),
              std::string::npos)
        << argv.back();
  }
}

// The remedy for an empty MODULEPATH names the cause: a batch shell that is not a login shell.
TEST(DoctorEnvironment, AnEmptyModulepathInANonLoginShellSaysToUseALoginShell) {
  Site site;
  const std::string out =
      "ezpz-doctor module=yes\nezpz-doctor path=\n" + k_lmod_unknown + "ezpz-doctor loaded=conda/2025-09-25 status=1\n";
  test::FakeRunner runner;
  runner.expect({"/bin/bash"}, {0, out, ""});
  runner.expect({"/bin/bash", "-l"}, {0, out, ""});
  auto nologin = check_modules(site.inputs("nologin", &runner));
  ASSERT_EQ(nologin.size(), 1u);
  EXPECT_NE(nologin[0].remedy.find("the profile's shell '/bin/bash' is not a login shell"), std::string::npos)
      << nologin[0].remedy;
  auto login = check_modules(site.inputs("login", &runner));
  ASSERT_EQ(login.size(), 1u);
  EXPECT_EQ(login[0].status, CheckStatus::error);
  EXPECT_EQ(login[0].remedy.find("not a login shell"), std::string::npos) << login[0].remedy;
  EXPECT_EQ(runner.calls.at(1).at(1), "-l") << "the login profile's shell runs as a login shell";
}

// `import torch` after the job's environment is made: the profile's backend environment is part of it,
// before setup:, as the batch script and ezpz exec export it.
TEST(DoctorEnvironment, ImportTorchIsTriedInTheJobsEnvironment) {
  Site site;
  test::FakeRunner runner;
  runner.expect(
      {"/bin/bash"},
      {0,
       "ezpz-doctor before=/usr/bin/python3\nezpz-doctor activated=/opt/fw\nezpz-doctor python=/opt/fw/bin/python3\n"
       "ezpz-doctor torch=error OSError: libmkl_intel_lp64.so.3: cannot open shared object file: No such file or "
       "directory\nezpz-doctor done=1\n",
       ""});
  DoctorInputs inputs = site.inputs("gpu", &runner);
  auto found = check_python(inputs);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].status, CheckStatus::error);
  EXPECT_EQ(found[0].finding,
            "/opt/fw/bin/python3 (after the job's setup) cannot import torch: OSError: libmkl_intel_lp64.so.3: cannot "
            "open shared object file: No such file or directory");
  const std::string& script = runner.calls.at(0).back();
  size_t backend = script.find("export LD_LIBRARY_PATH=\"${CRAY_LD_LIBRARY_PATH}:${LD_LIBRARY_PATH}\"\n");
  ASSERT_NE(backend, std::string::npos) << script;
  EXPECT_LT(backend, script.find("import torch")) << script;
  // The nccl and gpu-mpi checks read the same answers: the job's environment is made once.
  check_gpu_mpi(inputs);
  EXPECT_EQ(runner.calls.size(), 1u);
}

}  // namespace
}  // namespace ezpz::core
