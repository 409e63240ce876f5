// Reading scheduler status output: PBS JSON and Slurm scontrol, table-driven.
#include "ezpz/submit/status.hpp"

#include <gtest/gtest.h>

#include "ezpz/profile/job_state.hpp"
#include "ezpz/util/error.hpp"
#include "../test_support.hpp"
#include "fake_runner.hpp"

namespace ezpz {
namespace {

struct Case {
  const char* scheduler;
  ProcessResult answer;
  const char* state;
  int exit_code;  // -1: none
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.scheduler << " " << c.state; }

class QueryStatus : public ::testing::TestWithParam<Case> {};

TEST_P(QueryStatus, MapsTheSchedulersWordsToOurs) {
  const Case& c = GetParam();
  test::FakeRunner runner;
  runner.answers.push_back(c.answer);
  JobStatus status = query_status(test::builtin_catalog().scheduler(c.scheduler), "42", runner);
  EXPECT_EQ(status.state, c.state);
  if (c.exit_code < 0) {
    EXPECT_FALSE(status.exit_code);
  } else {
    ASSERT_TRUE(status.exit_code);
    EXPECT_EQ(*status.exit_code, c.exit_code);
  }
  ASSERT_GE(runner.calls.size(), 1u);  // a purged Slurm job also asks sacct
  EXPECT_NE(std::find(runner.calls[0].begin(), runner.calls[0].end(), "42"), runner.calls[0].end());
}

std::string pbs(const std::string& state, const std::string& extra = "") {
  return R"({"timestamp":1,"pbs_version":"2022","Jobs":{"42.server":{"Job_Name":"t","job_state":")" + state + "\"" + extra + "}}}";
}

INSTANTIATE_TEST_SUITE_P(Schedulers, QueryStatus, ::testing::Values(
    Case{"pbs", {0, pbs("Q"), ""}, "queued", -1},
    Case{"pbs", {0, pbs("H"), ""}, "held", -1},
    Case{"pbs", {0, pbs("R"), ""}, "running", -1},
    Case{"pbs", {0, pbs("F", R"(,"Exit_status":0)"), ""}, "completed", 0},
    Case{"pbs", {0, pbs("F", R"(,"Exit_status":3)"), ""}, "failed", 3},
    Case{"pbs", {0, pbs("F", R"(,"Exit_status":271,"substate":91)"), ""}, "cancelled", 143},
    // Seen on OpenPBS 23.06 (tests/pbs): qdel -W force of a running job gives 265, substate 91; a
    // script that traps TERM and exits 128 + 15 gives 143. Both are cancelled, not failed.
    Case{"pbs", {0, pbs("F", R"(,"Exit_status":265,"substate":91)"), ""}, "cancelled", 137},
    Case{"pbs", {0, pbs("F", R"(,"Exit_status":143,"substate":91)"), ""}, "cancelled", 143},
    Case{"pbs", {0, pbs("F", R"(,"Exit_status":265,"substate":93)"), ""}, "failed", 137},
    Case{"pbs", {0, pbs("F", R"(,"substate":91)"), ""}, "cancelled", -1},
    // An afterok child of a failed parent: aborted by the server, never ran, no Exit_status.
    Case{"pbs", {0, pbs("F", R"(,"substate":92,"comment":"Job deleted as result of dependency")"), ""}, "not-run", -1},
    Case{"pbs", {0, pbs("F"), ""}, "not-run", -1},
    Case{"pbs", {0, pbs("F", R"(,"Exit_status":-29,"substate":93)"), ""}, "timeout", -1},
    Case{"pbs", {0, pbs("F", R"(,"Exit_status":-27,"substate":93)"), ""}, "out-of-memory", -1},
    Case{"pbs", {0, pbs("F", R"(,"Exit_status":-1,"substate":93)"), ""}, "not-run", -1},
    Case{"pbs", {153, "", "qstat: Unknown Job Id 42.server\n"}, "unknown", -1},
    Case{"slurm", {0, "JobId=42 JobName=t JobState=PENDING Reason=Resources ExitCode=0:0\n", ""}, "queued", -1},
    Case{"slurm", {0, "JobId=42 JobName=t JobState=RUNNING Reason=None ExitCode=0:0\n", ""}, "running", -1},
    Case{"slurm", {0, "JobId=42 JobName=t JobState=COMPLETED Reason=None ExitCode=0:0\n", ""}, "completed", 0},
    Case{"slurm", {0, "JobId=42 JobName=t JobState=FAILED Reason=NonZeroExitCode ExitCode=7:0\n", ""}, "failed", 7},
    Case{"slurm", {0, "JobId=42 JobName=t JobState=CANCELLED Reason=None ExitCode=0:15\n", ""}, "cancelled", 143},
    Case{"slurm", {0, "JobId=42 JobName=t JobState=TIMEOUT Reason=TimeLimit ExitCode=0:15\n", ""}, "timeout", 143},
    Case{"slurm", {0, "JobId=42 JobName=t JobState=OUT_OF_MEMORY Reason=OutOfMemory ExitCode=0:9\n", ""}, "out-of-memory", 137},
    Case{"slurm", {0, "JobId=42 JobName=t JobState=PENDING Reason=DependencyNeverSatisfied ExitCode=0:0\n", ""}, "not-run", -1},
    Case{"slurm", {1, "", "slurm_load_jobs error: Invalid job id specified\n"}, "unknown", -1}));  // then sacct: no answer

TEST(QueryStatus, SlurmAsksAccountingForAPurgedJob) {
  test::FakeRunner runner;
  runner.answers.push_back({1, "", "slurm_load_jobs error: Invalid job id specified\n"});
  runner.answers.push_back({0, "FAILED|2:0\n", ""});
  JobStatus status = query_status(test::builtin_catalog().scheduler("slurm"), "42", runner);
  EXPECT_EQ(status.state, "failed");
  EXPECT_EQ(status.exit_code, 2);
  ASSERT_EQ(runner.calls.size(), 2u);
  EXPECT_EQ(runner.calls[1][0], "sacct");

  test::FakeRunner no_accounting;
  no_accounting.answers.push_back({1, "", "slurm_load_jobs error: Invalid job id specified\n"});
  no_accounting.answers.push_back({1, "", "Slurm accounting storage is disabled\n"});
  status = query_status(test::builtin_catalog().scheduler("slurm"), "42", no_accounting);
  EXPECT_EQ(status.state, "unknown");
  EXPECT_NE(status.detail.find("accounting storage is disabled"), std::string::npos) << status.detail;

  test::FakeRunner cancelled;
  cancelled.answers.push_back({1, "", "slurm_load_jobs error: Invalid job id specified\n"});
  cancelled.answers.push_back({0, "CANCELLED by 0|0:15\n", ""});
  EXPECT_EQ(query_status(test::builtin_catalog().scheduler("slurm"), "42", cancelled).state, "cancelled");
}

// OpenPBS's qstat with a closed stdin: "cannot connect", exit 0, no job. Once read as "unknown, done",
// so `submit --wait` returned 0 at once.
TEST(QueryStatus, ASuccessfulAnswerWithoutAJobIsAnError) {
  for (const char* scheduler : {"pbs", "slurm"}) {
    test::FakeRunner runner;
    runner.answers.push_back({0, "", "qstat: cannot connect to server pbs (errno=0)\n"});
    try {
      query_status(test::builtin_catalog().scheduler(scheduler), "42", runner);
      ADD_FAILURE() << scheduler << ": no error";
    } catch (const UserError& error) {
      EXPECT_NE(std::string(error.what()).find("named no job"), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("cannot connect"), std::string::npos) << error.what();
    }
  }
}

TEST(QueryStatus, ASystemWithoutASchedulerIsAnErrorNotACrash) {
  test::FakeRunner runner;
  EXPECT_THROW(query_status(test::builtin_catalog().scheduler("none"), "42", runner), UserError);
  EXPECT_THROW(command_for_job(test::builtin_catalog().scheduler("none").cancel, "42",
                               test::builtin_catalog().scheduler("none"), "cancel"),
               UserError);
  EXPECT_TRUE(runner.calls.empty());
}

struct WaitCase {
  const char* state;
  int exit_code;  // -1: none
  int expected;
};

TEST(JobStatus, WaitExitCodeTellsEveryEndApart) {
  const WaitCase cases[] = {
      {"completed", 0, 0}, {"failed", 3, 3}, {"failed", 137, 137}, {"failed", -1, 1},
      {"timeout", 143, 124}, {"out-of-memory", -1, 137}, {"cancelled", -1, 143}, {"cancelled", 143, 143},
      {"not-run", -1, 123}, {"unknown", -1, 122},
  };
  for (const auto& c : cases) {
    JobStatus status;
    status.state = c.state;
    if (c.exit_code >= 0) status.exit_code = c.exit_code;
    EXPECT_TRUE(status.done()) << c.state;
    EXPECT_EQ(status.wait_exit_code(), c.expected) << c.state << " " << c.exit_code;
  }
  for (const char* live : {"queued", "held", "running"}) {
    JobStatus status;
    status.state = live;
    EXPECT_FALSE(status.done()) << live;
  }
}

TEST(JobStatus, EveryShippedSchedulerMapsIntoTheVocabulary) {
  for (const char* name : {"pbs", "slurm"}) {
    for (const auto& [theirs, ours] : test::builtin_catalog().scheduler(name).states) {
      EXPECT_NE(find_job_state(ours), nullptr) << name << ": " << theirs << " -> " << ours;
    }
  }
}

TEST(QueryStatus, ASchedulerThatCannotRunIsAnError) {
  test::FakeRunner runner;
  runner.answers.push_back({127, "", "scontrol: command not found"});
  EXPECT_THROW(query_status(test::builtin_catalog().scheduler("slurm"), "42", runner), UserError);
}

}  // namespace
}  // namespace ezpz
