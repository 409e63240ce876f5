// The strict FakeRunner: stated calls are answered in order; any other call, or a stated call that
// never comes, fails the test that made it.
#include "fake_runner.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

namespace ezpz::core {
namespace {

TEST(FakeRunner, AnswersTheStatedCallsInOrderAndRecordsThem) {
  test::FakeRunner runner;
  runner.expect({"scontrol", "-o"}, {1, "", "Invalid job id specified\n"});
  runner.expect({"sacct"}, {0, "FAILED|2:0\n", ""});
  ProcessResult first = runner.run({"scontrol", "-o", "show", "job", "42"}, "/home/me/job");
  ProcessResult second = runner.run({"sacct", "-j", "42"});
  EXPECT_EQ(first.exit_code, 1);
  EXPECT_EQ(first.err, "Invalid job id specified\n");
  EXPECT_EQ(second.exit_code, 0);
  EXPECT_EQ(second.out, "FAILED|2:0\n");
  ASSERT_EQ(runner.calls.size(), 2u);
  EXPECT_EQ(runner.calls[1], (std::vector<std::string>{"sacct", "-j", "42"}));
  EXPECT_EQ(runner.cwds, (std::vector<std::string>{"/home/me/job", ""}));
}

TEST(FakeRunner, ACallNobodyStatedFailsTheTest) {
  EXPECT_NONFATAL_FAILURE(
      {
        test::FakeRunner runner;
        EXPECT_EQ(runner.run({"qdel", "42"}).exit_code, 127);
      },
      "unexpected call: qdel 42");
}

TEST(FakeRunner, ACallOtherThanTheNextStatedOneFailsTheTest) {
  EXPECT_NONFATAL_FAILURE(
      {
        test::FakeRunner runner;
        runner.expect({"qstat", "-f"}, {0, "{}", ""});
        EXPECT_EQ(runner.run({"qstat", "-x", "42"}).exit_code, 127);
      },
      "expected: qstat -f");
  EXPECT_NONFATAL_FAILURE(
      {
        test::FakeRunner runner;
        runner.expect({"sbatch", "--parsable"}, {0, "7\n", ""});
        runner.run({"sbatch"});  // shorter than what was stated
      },
      "unexpected call: sbatch");
}

TEST(FakeRunner, AStatedCallThatNeverComesFailsTheTest) {
  EXPECT_NONFATAL_FAILURE(
      {
        test::FakeRunner runner;
        runner.expect({"qsub"}, {0, "12.server\n", ""});
      },
      "expected call never made: qsub");
}

}  // namespace
}  // namespace ezpz::core
