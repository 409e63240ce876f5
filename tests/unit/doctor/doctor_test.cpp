// ezpz doctor's pure parts: finding JSON, the nodes' answers and what differs between nodes.
#include "ezpz/doctor/doctor.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../submit/fake_runner.hpp"
#include "../test_support.hpp"
#include "ezpz/doctor/checks.hpp"

namespace ezpz::core {
namespace {

Finding finding(const std::string& check, CheckStatus status, const std::string& text) {
  return {check, status, text, status == CheckStatus::ok ? "" : "do something"};
}

std::string answer_line(const std::string& node, const std::vector<Finding>& findings) {
  return node_answer(node, findings);
}

TEST(Doctor, FindingsRoundTripThroughJson) {
  Finding original = finding("devices", CheckStatus::warn, "sees 1 x cuda");
  Finding back = Finding::from_json(original.to_json());
  EXPECT_EQ(back.check, "devices");
  EXPECT_EQ(back.status, CheckStatus::warn);
  EXPECT_EQ(back.finding, "sees 1 x cuda");
  EXPECT_EQ(back.remedy, "do something");
  EXPECT_THROW(Finding::from_json({{"check", "x"}, {"status", "bad"}, {"finding", ""}, {"remedy", ""}}), UserError);
  EXPECT_THROW(Finding::from_json(nlohmann::json::object()), UserError);
}

TEST(Doctor, OnlyChecksWhoseStatusDiffersAreReportedWithTheirNodes) {
  std::string out =
      "srun: some noise\n" +
      answer_line("n1", {finding("devices", CheckStatus::ok, "sees 2"), finding("python", CheckStatus::ok, "a")}) +
      answer_line("n2", {finding("devices", CheckStatus::warn, "sees 1"), finding("python", CheckStatus::ok, "b")}) +
      answer_line("n3", {finding("devices", CheckStatus::ok, "sees 2"), finding("python", CheckStatus::ok, "a")}) +
      "ezpz-doctor {not json\n";
  auto answers = read_node_answers(out);
  ASSERT_EQ(answers.size(), 3u);
  auto differences = node_differences({"n1", "n2", "n3"}, answers);
  ASSERT_EQ(differences.size(), 2u) << "python's findings differ in text only: the same status everywhere";
  EXPECT_EQ(differences[0].check, "devices on n1,n3");
  EXPECT_EQ(differences[0].status, CheckStatus::ok);
  EXPECT_EQ(differences[1].check, "devices on n2");
  EXPECT_EQ(differences[1].finding, "sees 1");
}

TEST(Doctor, AnswerLinesStayShortAndTwoNodesLinesMayMix) {
  std::string a = node_answer("n1", {finding("python", CheckStatus::error, std::string(5000, 'x'))});
  EXPECT_LT(a.size(), 1000u) << "launchers forward a task's output in 1 KiB pieces";
  std::string b =
      node_answer("n2", {finding("python", CheckStatus::ok, "a"), finding("devices", CheckStatus::ok, "b")});
  auto answers = read_node_answers(b.substr(0, b.find('\n') + 1) + a + b.substr(b.find('\n') + 1));
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].node, "n2");
  EXPECT_EQ(answers[0].findings.size(), 2u);
  EXPECT_EQ(answers[1].findings[0].finding.size(), 300u + std::string("…").size());
}

TEST(Doctor, AnswersBehindALaunchersLabelAreRead) {
  // PALS --label (Polaris's launcher.args) prefixes each line "<host> <rank>: "; srun --label "<task>: ".
  std::string out = "x3005c0s31b1n0.hsn.cm.polaris.alcf.anl.gov 0: " +
                    answer_line("x3005c0s31b1n0", {finding("devices", CheckStatus::ok, "sees 4")}) +
                    "1: " + answer_line("x3005c0s37b0n0", {finding("devices", CheckStatus::warn, "sees 3")});
  auto answers = read_node_answers(out);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].node, "x3005c0s31b1n0");
  EXPECT_EQ(answers[1].node, "x3005c0s37b0n0");
  EXPECT_EQ(answers[1].findings[0].finding, "sees 3");
}

TEST(Doctor, ANodeWithoutAnAnswerIsAnError) {
  auto answers = read_node_answers(answer_line("n1", {finding("devices", CheckStatus::ok, "sees 2")}));
  auto differences = node_differences({"n1", "n2"}, answers);
  ASSERT_EQ(differences.size(), 1u);
  EXPECT_EQ(differences[0].status, CheckStatus::error);
  EXPECT_EQ(differences[0].finding, "n2 gave no answer");
}

TEST(Doctor, EveryCheckHasAUniqueNameAndTheCountsMakeTheExitStatus) {
  std::vector<std::string> names;
  for (const auto& check : doctor_checks()) {
    EXPECT_EQ(std::count(names.begin(), names.end(), check.name), 0) << check.name;
    names.emplace_back(check.name);
  }
  FindingCounts counts = count_findings({finding("a", CheckStatus::ok, ""), finding("b", CheckStatus::warn, ""),
                                         finding("c", CheckStatus::error, ""), finding("d", CheckStatus::error, "")});
  EXPECT_EQ(counts.ok, 1);
  EXPECT_EQ(counts.warn, 1);
  EXPECT_EQ(counts.error, 2);
}

// Aurora's node: 6 Intel Max 1550 render nodes, which the profile counts as 12 tiles (FLAT mode). The
// review found every Aurora compute node warned "fewer than the profile's" before tiles were counted.
TEST(Doctor, AnAuroraNodesSixCardsAreItsTwelveTiles) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("ezpz-doctor-aurora-" + std::to_string(::getpid()));
  fs::remove_all(root);
  for (int i = 0; i < 6; ++i) {
    fs::path device = root / "sys/class/drm" / ("renderD" + std::to_string(128 + i)) / "device";
    fs::create_directories(device);
    std::ofstream(device / "vendor") << "0x8086\n";
    std::ofstream(device / "device") << "0x0bd5\n";
  }
  fs::create_directories(root / "dev");
  DoctorInputs inputs;
  inputs.catalog = &test::builtin_catalog();
  inputs.env = table_env({{"PBS_JOBID", "1.aurora-pbs-0001"}});
  inputs.root = root.string();
  inputs.system = "aurora";
  auto found = check_devices(inputs);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].status, CheckStatus::ok) << found[0].finding;
  EXPECT_NE(found[0].finding.find("(2 tiles per card)"), std::string::npos) << found[0].finding;
  fs::remove_all(root / "sys/class/drm/renderD133");  // a card lost: 5 of 6
  found = check_devices(inputs);
  EXPECT_EQ(found[0].status, CheckStatus::warn) << found[0].finding;
  fs::remove_all(root);
}

// A compute node's GPUs seen through their device nodes alone (no visibility variable set), as the
// runtime probes them: NVIDIA by /dev/nvidiaN, AMD by its render nodes with /dev/kfd. Polaris's 4 A100s
// and Frontier's 8 GCDs are what the profiles expect; one fewer is a warning; another vendor's devices
// are an error.
TEST(Doctor, DeviceNodesOfEachVendorAgainstTheProfile) {
  namespace fs = std::filesystem;
  struct Case {
    const char* system;
    const char* job_variable;
    const char* vendor;
    const char* device;
    int count;
    CheckStatus expected;
    const char* finding;
  };
  const Case cases[] = {
      {"polaris", "PBS_JOBID", "0x10de", "0x20b0", 4, CheckStatus::ok, "sees 4 x cuda"},
      {"polaris", "PBS_JOBID", "0x10de", "0x20b0", 3, CheckStatus::warn, "sees 3 x cuda"},
      {"frontier", "SLURM_JOB_ID", "0x1002", "0x7408", 8, CheckStatus::ok, "sees 8 x rocm"},
      {"frontier", "SLURM_JOB_ID", "0x1002", "0x7408", 7, CheckStatus::warn, "sees 7 x rocm"},
      {"frontier", "SLURM_JOB_ID", "0x10de", "0x20b0", 8, CheckStatus::error, "another kind of device"},
  };
  for (const auto& c : cases) {
    fs::path root = fs::temp_directory_path() / ("ezpz-doctor-devices-" + std::to_string(::getpid()));
    fs::remove_all(root);
    for (int i = 0; i < c.count; ++i) {
      fs::path device = root / "sys/class/drm" / ("renderD" + std::to_string(128 + i)) / "device";
      fs::create_directories(device);
      std::ofstream(device / "vendor") << c.vendor << "\n";
      std::ofstream(device / "device") << c.device << "\n";
    }
    fs::create_directories(root / "dev");
    bool nvidia = std::string(c.vendor) == "0x10de";
    for (int i = 0; i < c.count && nvidia; ++i) std::ofstream(root / "dev" / ("nvidia" + std::to_string(i)));
    if (!nvidia) std::ofstream(root / "dev" / "kfd");
    DoctorInputs inputs;
    inputs.catalog = &test::builtin_catalog();
    inputs.env = table_env({{c.job_variable, "7"}});
    inputs.root = root.string();
    inputs.system = c.system;
    auto found = check_devices(inputs);
    std::string where = std::string(c.system) + " with " + std::to_string(c.count) + " x " + c.vendor;
    ASSERT_EQ(found.size(), 1u) << where;
    EXPECT_EQ(found[0].status, c.expected) << where << ": " << found[0].finding;
    EXPECT_NE(found[0].finding.find(c.finding), std::string::npos) << where << ": " << found[0].finding;
    fs::remove_all(root);
  }
}

// node-local counted a stage: to /tmp2 against /tmp's free space (a prefix of the text, not of the path).
TEST(Doctor, NodeLocalCountsOnlyTheStagesUnderIt) {
  std::string src = test::temp_file("ezpz-doctor-stage", "some bytes to stage");
  DoctorInputs inputs;
  inputs.catalog = &test::builtin_catalog();
  inputs.env = table_env({});
  inputs.system = "aurora";  // node_local: /tmp
  auto finding_for = [&](const std::string& dest) {
    inputs.job = test::resolve_layers(
        {"system: aurora\naccount: A\nrun: [x]\nstage: [{src: " + src + ", dest: " + dest + "}]\n", {}, {}, ""});
    auto found = check_node_local(inputs);
    return found.size() == 1 ? found[0].finding : std::string();
  };
  EXPECT_NE(finding_for("/tmp/env").find("enough for stage:"), std::string::npos) << finding_for("/tmp/env");
  EXPECT_EQ(finding_for("/tmp2/env").find("stage:"), std::string::npos) << finding_for("/tmp2/env");
}

// The yeet check, from what `ldd ezpz-yeet-mpi` answers on each kind of system: which case applies and
// what to run (docs/install.md, "The yeet helper and your MPI").
TEST(Doctor, TheYeetHelperLoadsAndLinksAnMpiTheLauncherStarts) {
  struct Case {
    const char* system;
    std::string ldd;  // the answer of ldd (exit 0)
    CheckStatus status;
    const char* said;  // in the finding, or in its remedy
  };
  const std::string found = "\tlibmpi.so.12 => /opt/cray/pe/mpich/lib-abi-mpich/libmpi.so.12 (0x7f00)\n";
  const std::string missing = "\tlibmpi.so.12 => not found\n";
  const std::string old_glibc = "./ezpz-yeet-mpi: /lib64/libc.so.6: version `GLIBC_2.30' not found\n";
  const std::string open_mpi = "\tlibmpi.so.40 => /usr/lib/libmpi.so.40 (0x7f00)\n";
  const Case cases[] = {
      {"polaris", found, CheckStatus::ok, "links mpich"},
      {"polaris", missing, CheckStatus::error, "module load cray-mpich-abi"},
      {"frontier", missing, CheckStatus::error, "lib-abi-mpich on LD_LIBRARY_PATH"},
      {"sophia", missing, CheckStatus::error, "cmake -S ezpz/cmake/yeet-helper"},
      {"sophia", found, CheckStatus::error, "cmake -S ezpz/cmake/yeet-helper"},
      {"sophia", open_mpi, CheckStatus::ok, "links openmpi"},
      {"aurora", old_glibc, CheckStatus::error, "newer glibc"},
      {"aurora", "\tlibc.so.6 => /lib64/libc.so.6\n", CheckStatus::error, "links no MPI library"},
  };
  for (const auto& c : cases) {
    test::FakeRunner runner;
    runner.expect({"ldd", "/venv/bin/ezpz-yeet-mpi"}, {0, c.ldd, ""});
    // Its MPI library is read from a second ldd, unless the first says it cannot load at all.
    if (c.ldd != old_glibc) runner.expect({"ldd", "/venv/bin/ezpz-yeet-mpi"}, {0, c.ldd, ""});
    DoctorInputs inputs;
    inputs.catalog = &test::builtin_catalog();
    inputs.runner = &runner;
    inputs.system = c.system;
    inputs.yeet_helper = "/venv/bin/ezpz-yeet-mpi";
    auto findings = check_yeet_helper(inputs);
    ASSERT_EQ(findings.size(), 1u) << c.system;
    EXPECT_EQ(findings[0].status, c.status) << c.system << ": " << findings[0].finding;
    EXPECT_NE((findings[0].finding + " " + findings[0].remedy).find(c.said), std::string::npos)
        << c.system << ": " << findings[0].finding << " / " << findings[0].remedy;
    EXPECT_EQ(runner.calls.at(0), (std::vector<std::string>{"ldd", "/venv/bin/ezpz-yeet-mpi"}));
  }
  DoctorInputs none;
  none.catalog = &test::builtin_catalog();
  none.system = "polaris";
  auto findings = check_yeet_helper(none);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].status, CheckStatus::warn);
}

}  // namespace
}  // namespace ezpz::core
