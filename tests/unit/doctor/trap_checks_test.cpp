// The trap checks of ezpz doctor (nccl, gpu-mpi), each made to see its condition: a site's profile of
// the test's own, the job environment's answers (canned, or from a real shell), and library directories
// in a fake filesystem root.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../submit/fake_runner.hpp"
#include "../test_support.hpp"
#include "ezpz/doctor/checks.hpp"
#include "ezpz/submit/process.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

// A directory with the test's profiles (a search path of the catalog) and a fake filesystem root.
struct Site {
  fs::path dir;
  std::unique_ptr<Catalog> catalog;

  explicit Site(const std::string& name) {
    dir = fs::temp_directory_path() / ("ezpz-doctor-traps-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "systems");
    fs::create_directories(dir / "root");
    fs::permissions(dir, fs::perms::owner_all);
    // NCCL_NET for multi-node jobs only, as HPE asks ("Do not set NCCL_NET on single-node Slurm runs").
    write("systems/slingshot.yaml",
          "extends: local\nshell: /bin/bash\nnode: {devices: {kind: cuda, count: 4, visibility: "
          "CUDA_VISIBLE_DEVICES}}\nbackend_env:\n  always: {LD_LIBRARY_PATH: \"/opt/ofi/lib:$LD_LIBRARY_PATH\"}\n"
          "  multi_node: {NCCL_NET: AWS Libfabric}\n");
    write("systems/plain.yaml",
          "extends: local\nshell: /bin/bash\nnode: {devices: {kind: cuda, count: 4, visibility: "
          "CUDA_VISIBLE_DEVICES}}\n");
    catalog = std::make_unique<Catalog>(std::vector<std::string>{(dir / "systems").string()});
  }
  ~Site() { fs::remove_all(dir); }

  void write(const std::string& path, const std::string& text) const { std::ofstream(dir / path) << text; }
  // A file at `path` of the job's filesystem (under the fake root).
  void library(const std::string& path) const {
    fs::path file = dir / "root" / fs::path(path).relative_path();
    fs::create_directories(file.parent_path());
    std::ofstream(file) << "";
  }

  DoctorInputs inputs(const std::string& system, const std::string& spec, ProcessRunner* runner) const {
    DoctorInputs in;
    in.catalog = catalog.get();
    in.env = table_env({});
    in.root = (dir / "root").string();
    in.runner = runner;
    in.system = system;
    if (!spec.empty()) {
      Diagnostics diagnostics;
      ResolveInputs resolve_inputs = test::make_inputs({spec, {}, {}, ""}, diagnostics);
      diagnostics.throw_if_any();
      in.job = resolve(*catalog, resolve_inputs);
    }
    return in;
  }
};

std::string answers(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += "ezpz-doctor " + line + "\n";
  return out + "ezpz-doctor done=1\n";
}

std::string texts(const std::vector<Finding>& findings) {
  std::string out;
  for (const auto& f : findings) out += std::string(check_status_name(f.status)) + ": " + f.finding + "\n";
  return out;
}

TEST(DoctorTraps, NcclLooksForItsNetworkPluginOnTheJobsLibraryPath) {
  struct Case {
    const char* what;
    std::vector<std::string> answers;  // the job environment's, after its setup
    std::vector<std::string> files;    // on the node
    CheckStatus status;
    const char* said;
  };
  const Case cases[] = {
      {"the plugin in a directory of LD_LIBRARY_PATH",
       {"library_path=/opt/cuda/lib64:/opt/ofi/lib", "nccl_net=AWS Libfabric"},
       {"/opt/ofi/lib/libnccl-net.so"},
       CheckStatus::ok,
       "NCCL's network plugin /opt/ofi/lib/libnccl-net.so is on the library path (NCCL_NET='AWS Libfabric')"},
      {"no plugin, NCCL_NET set",
       {"library_path=/opt/cuda/lib64:/opt/ofi/lib", "nccl_net=AWS Libfabric"},
       {"/opt/cuda/lib64/libcudart.so"},
       CheckStatus::error,
       "NCCL stops at its first collective between nodes"},
      {"no plugin, NCCL_NET unset by setup:",
       {"library_path=/opt/cuda/lib64", "nccl_net="},
       {},
       CheckStatus::error,
       "NCCL runs over TCP sockets between nodes, slowly and without an error (slingshot sets NCCL_NET='AWS "
       "Libfabric')"},
      {"NCCL_NET_PLUGIN names the plugin by its suffix",
       {"library_path=/opt/ofi/lib", "nccl_net=AWS Libfabric", "nccl_net_plugin=ofi"},
       {"/opt/ofi/lib/libnccl-net-ofi.so"},
       CheckStatus::ok,
       "/opt/ofi/lib/libnccl-net-ofi.so"},
      {"NCCL_NET_PLUGIN names one that is not there",
       {"library_path=/opt/ofi/lib", "nccl_net=AWS Libfabric", "nccl_net_plugin=ofi"},
       {"/opt/ofi/lib/libnccl-net.so"},
       CheckStatus::error,
       "libnccl-net-ofi.so"},
      {"NCCL_NET_PLUGIN=none", {"library_path=/opt/ofi/lib", "nccl_net_plugin=none"}, {}, CheckStatus::error, "none"},
      {"the plugin in the loader's cache",
       {"library_path=", "nccl_net=AWS Libfabric", "ldcache=/usr/lib64/libnccl-net.so"},
       {},
       CheckStatus::ok,
       "/usr/lib64/libnccl-net.so"},
  };
  for (const auto& c : cases) {
    Site site("nccl");
    for (const auto& file : c.files) site.library(file);
    test::FakeRunner runner;
    runner.expect({"/bin/bash"}, {0, answers(c.answers), ""});
    DoctorInputs inputs = site.inputs("slingshot", "system: slingshot\nrun: [x]\nnodes: 2\n", &runner);
    auto found = check_nccl(inputs);
    ASSERT_GE(found.size(), 1u) << c.what;
    EXPECT_EQ(found[0].status, c.status) << c.what << ": " << texts(found);
    EXPECT_NE(found[0].finding.find(c.said), std::string::npos) << c.what << ": " << texts(found);
    if (c.status != CheckStatus::ok) {
      EXPECT_FALSE(found[0].remedy.empty()) << c.what;
    }
  }
}

// The profile sets NCCL_NET for multi-node jobs: a one-node job is not asked, a profile without NCCL_NET
// gets no line, and without a spec the finding says what a multi-node job would set.
TEST(DoctorTraps, NcclAsksOnlyWhereTheProfilesNetworkNeedsThePlugin) {
  Site site("nccl-when");
  test::FakeRunner runner;
  auto one_node = check_nccl(site.inputs("slingshot", "system: slingshot\nrun: [x]\nnodes: 1\n", &runner));
  ASSERT_EQ(one_node.size(), 1u);
  EXPECT_EQ(one_node[0].status, CheckStatus::ok) << texts(one_node);
  EXPECT_TRUE(runner.calls.empty()) << "a one-node job's environment need not be asked";
  EXPECT_TRUE(check_nccl(site.inputs("plain", "", &runner)).empty());
  runner.expect({"/bin/bash"}, {0, answers({"library_path=/opt/ofi/lib", "nccl_net="}), ""});
  auto defaults = check_nccl(site.inputs("slingshot", "", &runner));
  ASSERT_EQ(defaults.size(), 1u);
  EXPECT_EQ(defaults[0].status, CheckStatus::error) << texts(defaults);
  EXPECT_NE(defaults[0].finding.find("NCCL_NET='AWS Libfabric' in multi-node jobs"), std::string::npos)
      << texts(defaults);
  runner.expect({"/bin/bash"},
                {1, "ezpz-doctor before=/usr/bin/python3\n", "setup.sh: line 3: nope: command not found\n"});
  auto failed = check_nccl(site.inputs("slingshot", "system: slingshot\nrun: [x]\nnodes: 2\n", &runner));
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].status, CheckStatus::warn) << "a setup that fails is the python check's error";
}

// torch from a pip wheel finds the NCCL of its nvidia-nccl package through its RPATH, ahead of the
// module's on LD_LIBRARY_PATH; some builds carry NCCL inside libtorch_cuda.so.
TEST(DoctorTraps, NcclSaysWhichNcclTorchRunsWith) {
  const std::string torch_lib = "torch_lib=/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so";
  const std::string wheel_nccl =
      "torch_nccl=libnccl.so.2 => /venv/lib/python3.12/site-packages/torch/lib/../../nvidia/nccl/lib/libnccl.so.2 "
      "(0x00007f0000000000)";
  struct Case {
    const char* what;
    std::vector<std::string> answers;
    bool module_nccl;  // the module's libnccl.so.2 in /opt/nccl/lib, on the library path
    CheckStatus status;
    const char* said;
  };
  const Case cases[] = {
      {"the wheel's NCCL ahead of the module's",
       {torch_lib, wheel_nccl},
       true,
       CheckStatus::warn,
       "not /opt/nccl/lib/libnccl.so.2 on the library path"},
      {"the wheel's NCCL, no module", {torch_lib, wheel_nccl}, false, CheckStatus::ok, "nvidia/nccl/lib/libnccl.so.2"},
      {"the module's NCCL",
       {torch_lib, "torch_nccl=libnccl.so.2 => /opt/nccl/lib/libnccl.so.2 (0x00007f0000000000)"},
       true,
       CheckStatus::ok,
       "torch runs with the NCCL at /opt/nccl/lib/libnccl.so.2"},
      {"NCCL inside libtorch_cuda.so, a module beside it",
       {torch_lib},
       true,
       CheckStatus::warn,
       "torch carries its own NCCL (inside libtorch_cuda.so)"},
      {"NCCL not found",
       {torch_lib, "torch_nccl=libnccl.so.2 => not found"},
       false,
       CheckStatus::error,
       "needs libnccl.so.2"},
  };
  for (const auto& c : cases) {
    Site site("torch-nccl");
    site.library("/opt/ofi/lib/libnccl-net.so");
    if (c.module_nccl) site.library("/opt/nccl/lib/libnccl.so.2");
    std::vector<std::string> lines = {"library_path=/opt/nccl/lib:/opt/ofi/lib", "nccl_net=AWS Libfabric"};
    lines.insert(lines.end(), c.answers.begin(), c.answers.end());
    test::FakeRunner runner;
    runner.expect({"/bin/bash"}, {0, answers(lines), ""});
    auto found = check_nccl(site.inputs("slingshot", "system: slingshot\nrun: [x]\nnodes: 2\n", &runner));
    ASSERT_EQ(found.size(), 2u) << c.what << ": " << texts(found);
    EXPECT_EQ(found[0].status, CheckStatus::ok) << c.what << ": the plugin is there";
    EXPECT_EQ(found[1].status, c.status) << c.what << ": " << texts(found);
    EXPECT_NE(found[1].finding.find(c.said), std::string::npos) << c.what << ": " << texts(found);
  }
}

TEST(DoctorTraps, GpuMpiNeedsTheGtlLibraryWithCrayMpich) {
  const std::string cray = "ldd=libmpi_cray.so.12 => /opt/cray/pe/lib64/libmpi_cray.so.12 (0x00007fffe96cc000)";
  const std::string gtl = "ldd=libmpi_gtl_cuda.so.0 => /opt/cray/pe/lib64/libmpi_gtl_cuda.so.0 (0x00007fffe9469000)";
  const std::string mpi4py = "/venv/lib/python3.12/site-packages/mpi4py/MPI.cpython-312-x86_64-linux-gnu.so";
  struct Case {
    const char* what;
    std::vector<std::string> answers;
    CheckStatus status;
    std::string said;
  };
  const Case cases[] = {
      {"not asked for", {"gpu_support="}, CheckStatus::ok, "MPICH_GPU_SUPPORT_ENABLED is not set"},
      {"asked for, mpi4py without GTL",
       {"gpu_support=1", "mpi4py=" + mpi4py, "program=" + mpi4py, cray},
       CheckStatus::error,
       "python3's mpi4py (" + mpi4py + ") links libmpi_cray.so.12"},
      {"asked for, GTL linked",
       {"gpu_support=1", "mpi4py=" + mpi4py, "program=" + mpi4py, cray, gtl},
       CheckStatus::ok,
       "has the GTL library"},
      {"asked for, GTL preloaded",
       {"gpu_support=1", "preload=/opt/cray/pe/lib64/libmpi_gtl_cuda.so", "program=" + mpi4py, cray},
       CheckStatus::ok,
       "has the GTL library"},
      {"asked for, no mpi4py", {"gpu_support=1", "mpi4py="}, CheckStatus::ok, "has no mpi4py"},
      {"asked for, another MPICH (no GTL there)",
       {"gpu_support=1", "program=/venv/bin/train", "ldd=libmpi.so.12 => /opt/aurora/mpich/lib/libmpi.so.12 (0x7f)"},
       CheckStatus::ok,
       "not Cray MPICH"},
  };
  for (const auto& c : cases) {
    Site site("gtl");
    test::FakeRunner runner;
    runner.expect({"/bin/bash"}, {0, answers(c.answers), ""});
    auto found = check_gpu_mpi(site.inputs("plain", "", &runner));
    ASSERT_EQ(found.size(), 1u) << c.what;
    EXPECT_EQ(found[0].status, c.status) << c.what << ": " << texts(found);
    EXPECT_NE(found[0].finding.find(c.said), std::string::npos) << c.what << ": " << texts(found);
    if (c.status == CheckStatus::error) {
      EXPECT_NE(found[0].remedy.find("MPICH_GPU_SUPPORT_ENABLED=0"), std::string::npos) << c.what;
    }
  }
  // --binary programs are checked instead of mpi4py, each on its own.
  Site site("gtl-binaries");
  test::FakeRunner runner;
  runner.expect({"/bin/bash"}, {0, answers({"gpu_support=1", "program=/a", cray, gtl, "program=/b", cray}), ""});
  DoctorInputs inputs = site.inputs("plain", "", &runner);
  inputs.binaries = {"/a", "/b"};
  auto found = check_gpu_mpi(inputs);
  ASSERT_EQ(found.size(), 2u) << texts(found);
  EXPECT_EQ(found[0].status, CheckStatus::ok) << texts(found);
  EXPECT_EQ(found[1].status, CheckStatus::error) << texts(found);
  EXPECT_NE(runner.calls.at(0).back().find("set -- /a /b"), std::string::npos) << runner.calls.at(0).back();
}

// The probe in a real shell: the profile's backend environment (its LD_LIBRARY_PATH), the spec's env:
// and setup:, as the job has them, answer the checks; the job environment is asked once for all three.
TEST(DoctorTraps, TheJobEnvironmentIsAskedOnceInARealShell) {
  Site site("real");
  site.library("/opt/ofi/lib/libnccl-net.so");
  SystemProcessRunner runner(std::chrono::seconds(60));
  DoctorInputs inputs = site.inputs("slingshot",
                                    "system: slingshot\nrun: [x]\nnodes: 2\nenv: {MPICH_GPU_SUPPORT_ENABLED: '1'}\n"
                                    "setup: export NCCL_NET_PLUGIN=ofi\n",
                                    &runner);
  inputs.binaries = {"/bin/true"};
  const JobProbe& probe = job_probe(inputs);
  ASSERT_TRUE(probe.finished) << probe.result.out << probe.result.err;
  EXPECT_TRUE(starts_with(probe.value("library_path"), "/opt/ofi/lib")) << probe.value("library_path");
  EXPECT_EQ(probe.value("nccl_net"), "AWS Libfabric");
  EXPECT_EQ(probe.value("nccl_net_plugin"), "ofi");
  EXPECT_EQ(probe.value("gpu_support"), "1");
  EXPECT_EQ(probe.values("program"), std::vector<std::string>{"/bin/true"});
  EXPECT_EQ(&job_probe(inputs), &probe) << "asked once";
  auto nccl = check_nccl(inputs);
  ASSERT_GE(nccl.size(), 1u);
  EXPECT_EQ(nccl[0].status, CheckStatus::error) << texts(nccl) << ": NCCL_NET_PLUGIN=ofi wants libnccl-net-ofi.so";
  site.library("/opt/ofi/lib/libnccl-net-ofi.so");
  EXPECT_EQ(check_nccl(inputs)[0].status, CheckStatus::ok) << texts(check_nccl(inputs));
  auto gpu_mpi = check_gpu_mpi(inputs);
  ASSERT_EQ(gpu_mpi.size(), 1u);
  EXPECT_NE(gpu_mpi[0].finding.find("/bin/true links no MPI library"), std::string::npos) << texts(gpu_mpi);
}

}  // namespace
}  // namespace ezpz::core
