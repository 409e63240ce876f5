// System detection from environment, hostname and an installed scheduler, table-driven against the
// shipped profiles (the installed scheduler in a fake file system tree).
#include "ezpz/profile/detect.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

#include "../test_support.hpp"

namespace ezpz::core {
namespace {

struct Case {
  std::map<std::string, std::string> env;
  std::string hostname;
  std::string expected;
};

void PrintTo(const Case& c, std::ostream* out) {
  *out << c.expected << "@" << c.hostname;
}

class Detect : public ::testing::TestWithParam<Case> {};

TEST_P(Detect, PicksTheRightProfile) {
  const Case& c = GetParam();
  DetectInput input{table_env(c.env), c.hostname};
  auto detection = detect_system(test::builtin_catalog(), input);
  ASSERT_TRUE(detection);
  EXPECT_EQ(detection->system, c.expected) << detection->reason;
  EXPECT_FALSE(detection->reason.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Machines, Detect,
    ::testing::Values(
        Case{{{"PBS_JOBID", "8414055.aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov"}}, "x4102c5s0b0n0", "aurora"},
        Case{{}, "aurora-uan-0010", "aurora"},
        Case{{{"PBS_JOBID", "123.polaris-pbs-01.hsn.cm.polaris.alcf.anl.gov"}}, "x3005c0s13b1n0", "polaris"},
        Case{{}, "polaris-login-02", "polaris"}, Case{{{"NERSC_HOST", "perlmutter"}}, "nid001234", "perlmutter"},
        // Sophia: a job submitted from a login node (PBS_O_HOST), whatever the compute node is called;
        // the login node itself; a compute node named like the Python ezpz expects.
        Case{{{"PBS_JOBID", "31415.sophia-pbs-01"}, {"PBS_O_HOST", "sophia-login-02.lab.alcf.anl.gov"}},
             "node17",
             "sophia"},
        Case{{}, "sophia-login-01", "sophia"}, Case{{{"PBS_JOBID", "31415.server"}}, "sophia-gpu-07", "sophia"},
        // Crux: a job (its id names the server, ALCF's python.md) on a compute node, a job submitted from
        // a login node, and the login node itself (crux-uan-0001: argonne-lcf/user-guides #1271).
        Case{{{"PBS_JOBID", "12345.crux-pbs-0001.head.cm.crux.alcf.anl.gov"}}, "x1000c0s0b1n1", "crux"},
        Case{{{"PBS_JOBID", "12345.server"}, {"PBS_O_HOST", "crux-uan-0002.head.cm.crux.alcf.anl.gov"}},
             "node17",
             "crux"},
        Case{{}, "crux-uan-0001", "crux"},
        // Sunspot's compute nodes (x1921…, x1922…); a Crux compute node outside a job (x1000…, the same
        // HPE Cray EX form) is not Sunspot's.
        Case{{}, "x1921c1s0b0n0", "sunspot"}, Case{{}, "x1000c0s0b1n1", "local"},
        // nid hostnames alone say nothing: LUMI and Alps use them too.
        Case{{}, "nid001234", "local"}, Case{{{"SLURM_JOB_ID", "42"}}, "nid001234", "slurm"},
        Case{{}, "frontier08538", "frontier"},
        Case{{{"LMOD_SYSTEM_NAME", "frontier"}, {"SLURM_JOB_ID", "7"}}, "login03", "frontier"},
        // A site variable beats a hostname pattern of another site.
        Case{{{"NERSC_HOST", "perlmutter"}}, "frontier00001", "perlmutter"},
        Case{{{"PBS_JOBID", "77.pbs-server"}}, "node17", "pbs"}, Case{{{"SLURM_JOB_ID", "9"}}, "n1", "slurm"},
        Case{{}, "my-laptop", "local"}));

// A long value (libstdc++'s std::regex recursed once per digit of PBS_O_HOST and crashed): matched,
// and shown cut to a prefix with its length.
TEST(DetectLongValues, MatchAndAreShownCut) {
  std::string host = "sophia-login-" + std::string(30000, '1');
  auto detection = detect_system(test::builtin_catalog(), DetectInput{table_env({{"PBS_O_HOST", host}}), "node17"});
  ASSERT_TRUE(detection);
  EXPECT_EQ(detection->system, "sophia");
  EXPECT_LT(detection->reason.size(), 400u) << detection->reason.substr(0, 400);
  EXPECT_NE(detection->reason.find("PBS_O_HOST='sophia-login-111"), std::string::npos) << detection->reason;
  EXPECT_NE(detection->reason.find("(30013 bytes)"), std::string::npos) << detection->reason;

  std::string job = "1.aurora-pbs-" + std::string(120000, 'x');
  detection = detect_system(test::builtin_catalog(), DetectInput{table_env({{"PBS_JOBID", job}}), "n1"});
  ASSERT_TRUE(detection);
  EXPECT_EQ(detection->system, "aurora");
  EXPECT_LT(detection->reason.size(), 400u);
}

// A machine's file system for detect.installed: programs (mode 0755) and other files (0644) under a
// temporary root, removed with the tree.
class FakeTree {
 public:
  FakeTree() {
    m_root = std::filesystem::temp_directory_path() /
             ("ezpz-detect-" + std::to_string(::getpid()) + "-" + std::to_string(s_count++));
    std::filesystem::remove_all(m_root);
    std::filesystem::create_directories(m_root);
  }
  ~FakeTree() { std::filesystem::remove_all(m_root); }
  FakeTree(const FakeTree&) = delete;
  FakeTree& operator=(const FakeTree&) = delete;

  void add(const std::string& path, mode_t mode) const {
    std::filesystem::path file = m_root / path.substr(1);
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << "#!/bin/sh\n";
    ::chmod(file.c_str(), mode);
  }
  std::string root() const { return m_root.string(); }

 private:
  static inline int s_count = 0;
  std::filesystem::path m_root;
};

const std::vector<std::string> k_slurm_client = {"/usr/bin/sbatch", "/usr/bin/squeue"};
const std::vector<std::string> k_pbs_client = {"/opt/pbs/bin/qsub", "/opt/pbs/bin/qstat"};
const std::string k_path = "/usr/local/bin:/usr/bin:/bin:/opt/pbs/bin";

struct InstalledCase {
  std::string what;
  std::vector<std::string> programs;  // made executable
  std::vector<std::string> files;     // configuration and other plain files
  std::map<std::string, std::string> env;
  std::string expected;
  std::string reason;     // a part of the reason
  bool installed = true;  // DetectInput::installed
  std::string hostname = "login1";
};

void PrintTo(const InstalledCase& c, std::ostream* out) {
  *out << c.what;
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class DetectInstalled : public ::testing::TestWithParam<InstalledCase> {};

TEST_P(DetectInstalled, PicksTheRightProfile) {
  const InstalledCase& c = GetParam();
  FakeTree tree;
  for (const auto& program : c.programs) tree.add(program, 0755);
  for (const auto& file : c.files) tree.add(file, 0644);
  DetectInput input{table_env(c.env), c.hostname, tree.root()};
  input.installed = c.installed;
  auto detection = detect_system(test::builtin_catalog(), input);
  ASSERT_TRUE(detection);
  EXPECT_EQ(detection->system, c.expected) << detection->reason;
  EXPECT_NE(detection->reason.find(c.reason), std::string::npos) << detection->reason;
}

INSTANTIATE_TEST_SUITE_P(
    LoginNodes, DetectInstalled,
    ::testing::Values(
        InstalledCase{"slurm: its commands and slurm.conf",
                      k_slurm_client,
                      {"/etc/slurm/slurm.conf"},
                      {{"PATH", k_path}},
                      "slurm",
                      "'/usr/bin/sbatch', '/usr/bin/squeue' on PATH, configuration /etc/slurm/slurm.conf"},
        InstalledCase{"slurm: an older Debian's path",
                      k_slurm_client,
                      {"/etc/slurm-llnl/slurm.conf"},
                      {{"PATH", k_path}},
                      "slurm",
                      "configuration /etc/slurm-llnl/slurm.conf"},
        InstalledCase{"slurm: configless, sackd's copy",
                      k_slurm_client,
                      {"/run/slurm/conf/slurm.conf"},
                      {{"PATH", k_path}},
                      "slurm",
                      "configuration /run/slurm/conf/slurm.conf"},
        InstalledCase{"slurm: SLURM_CONF names the file",
                      k_slurm_client,
                      {"/opt/site/slurm.conf"},
                      {{"PATH", k_path}, {"SLURM_CONF", "/opt/site/slurm.conf"}},
                      "slurm",
                      "configuration SLURM_CONF='/opt/site/slurm.conf'"},
        InstalledCase{"slurm: SLURM_CONF names a missing file, which the commands would read",
                      k_slurm_client,
                      {"/etc/slurm/slurm.conf"},
                      {{"PATH", k_path}, {"SLURM_CONF", "/opt/gone/slurm.conf"}},
                      "local",
                      "matches any machine"},
        InstalledCase{"slurm: commands without configuration (a client only)",
                      k_slurm_client,
                      {},
                      {{"PATH", k_path}},
                      "local",
                      "matches any machine"},
        InstalledCase{"slurm: configuration without commands on PATH",
                      {},
                      {"/etc/slurm/slurm.conf"},
                      {{"PATH", k_path}},
                      "local",
                      "matches any machine"},
        InstalledCase{"slurm: one command missing",
                      {"/usr/bin/sbatch"},
                      {"/etc/slurm/slurm.conf"},
                      {{"PATH", k_path}},
                      "local",
                      "matches any machine"},
        InstalledCase{"slurm: a command that is not executable",
                      {"/usr/bin/sbatch"},
                      {"/usr/bin/squeue", "/etc/slurm/slurm.conf"},
                      {{"PATH", k_path}},
                      "local",
                      "matches any machine"},
        InstalledCase{"slurm: only relative and empty PATH entries find the commands",
                      {"/bin/sbatch", "/bin/squeue"},
                      {"/etc/slurm/slurm.conf"},
                      {{"PATH", "::bin:."}},
                      "local",
                      "matches any machine"},
        InstalledCase{"slurm: no PATH", k_slurm_client, {"/etc/slurm/slurm.conf"}, {}, "local", "matches any machine"},
        InstalledCase{"pbs: its commands and /etc/pbs.conf",
                      k_pbs_client,
                      {"/etc/pbs.conf"},
                      {{"PATH", k_path}},
                      "pbs",
                      "'/opt/pbs/bin/qsub', '/opt/pbs/bin/qstat' on PATH, configuration /etc/pbs.conf"},
        InstalledCase{"pbs: PBS_CONF_FILE names the file",
                      k_pbs_client,
                      {"/opt/pbs/pbs.conf"},
                      {{"PATH", k_path}, {"PBS_CONF_FILE", "/opt/pbs/pbs.conf"}},
                      "pbs",
                      "configuration PBS_CONF_FILE='/opt/pbs/pbs.conf'"},
        InstalledCase{"pbs: Torque's or Grid Engine's qsub and qstat, no pbs.conf",
                      k_pbs_client,
                      {"/var/spool/torque/server_name"},
                      {{"PATH", k_path}},
                      "local",
                      "matches any machine"},
        // Both installed: a configuration the environment names is the stronger evidence; else name order.
        InstalledCase{"both: SLURM_CONF beats /etc/pbs.conf",
                      k_slurm_client + k_pbs_client,
                      {"/etc/pbs.conf", "/opt/c/slurm.conf"},
                      {{"PATH", k_path}, {"SLURM_CONF", "/opt/c/slurm.conf"}},
                      "slurm",
                      "SLURM_CONF="},
        InstalledCase{"both at their usual paths: name order",
                      k_slurm_client + k_pbs_client,
                      {"/etc/pbs.conf", "/etc/slurm/slurm.conf"},
                      {{"PATH", k_path}},
                      "pbs",
                      "/etc/pbs.conf"},
        // Job variables and named profiles still win.
        InstalledCase{"inside a PBS job on a machine with Slurm installed",
                      k_slurm_client,
                      {"/etc/slurm/slurm.conf"},
                      {{"PATH", k_path}, {"PBS_JOBID", "7.server"}},
                      "pbs",
                      "PBS_JOBID='7.server'"},
        InstalledCase{"a named machine's login node with Slurm installed",
                      k_slurm_client + k_pbs_client,
                      {"/etc/slurm/slurm.conf", "/etc/pbs.conf"},
                      {{"PATH", k_path}},
                      "polaris",
                      "hostname",
                      true,
                      "polaris-login-02"},
        // The runtime: ranks outside a job run on this machine; inside one, the job's variables decide.
        InstalledCase{"runtime: an installed scheduler is no evidence",
                      k_slurm_client,
                      {"/etc/slurm/slurm.conf"},
                      {{"PATH", k_path}},
                      "local",
                      "matches any machine",
                      false},
        InstalledCase{"runtime: inside a Slurm job",
                      k_slurm_client,
                      {"/etc/slurm/slurm.conf"},
                      {{"PATH", k_path}, {"SLURM_JOB_ID", "12"}},
                      "slurm",
                      "SLURM_JOB_ID='12'",
                      false}));

// The rules are checked as the profile loads: program names, a variable name, absolute paths, and both
// kinds of evidence.
TEST(DetectInstalledRules, AreCheckedWhenTheProfileLoads) {
  FakeTree tree;
  std::filesystem::path dir = std::filesystem::path(tree.root()) / "systems";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "odd.yaml") << "extends: slurm\ndetect:\n  installed:\n    commands: [/usr/bin/sbatch, squeue]\n"
                                     "    config_env: SLURM-CONF\n    config: [etc/slurm.conf]\n";
  std::ofstream(dir / "thin.yaml") << "extends: slurm\ndetect:\n  installed:\n    commands: [sbatch]\n"
                                      "    config_env: null\n    config: null\n";
  Catalog catalog({dir.string()});
  std::vector<std::string> odd;
  try {
    catalog.system("odd");
  } catch (const UserError& error) {
    for (const auto& d : error.diagnostics()) odd.push_back(d.loc.describe() + ": " + d.message);
  }
  std::string file = (dir / "odd.yaml").string();
  EXPECT_EQ(odd, (std::vector<std::string>{
                     file + ":4:16: 'detect.installed.commands' holds '/usr/bin/sbatch', which is not a program name",
                     file + ":5:17: 'detect.installed.config_env' is 'SLURM-CONF', not a variable name",
                     file + ":6:14: 'detect.installed.config' holds 'etc/slurm.conf', which is not an absolute path"}));
  std::string thin = test::error_messages([&] { catalog.system("thin"); });
  EXPECT_EQ(thin, "'detect.installed' needs 'commands' and at least one of 'config' and 'config_env'\n");
}

}  // namespace
}  // namespace ezpz::core
