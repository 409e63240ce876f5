// System detection from environment and hostname, table-driven against the shipped profiles.
#include "ezpz/profile/detect.hpp"

#include <gtest/gtest.h>

#include <map>

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

}  // namespace
}  // namespace ezpz::core
