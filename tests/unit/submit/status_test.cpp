// Reading scheduler status output: PBS JSON and Slurm scontrol, table-driven.
#include "ezpz/submit/status.hpp"

#include <gtest/gtest.h>

#include "../test_support.hpp"
#include "ezpz/profile/job_state.hpp"
#include "ezpz/util/error.hpp"
#include "fake_runner.hpp"

namespace ezpz::core {
namespace {

// The program a scheduler's status is asked of (qstat, scontrol), as its description names it.
std::string status_program(const std::string& scheduler) {
  return test::builtin_catalog().scheduler(scheduler).status.at(0);
}

struct Case {
  const char* scheduler;
  ProcessResult answer;
  const char* state;
  int exit_code;  // -1: none
};

void PrintTo(const Case& c, std::ostream* out) {
  *out << c.scheduler << " " << c.state;
}

class QueryStatus : public ::testing::TestWithParam<Case> {};

TEST_P(QueryStatus, MapsTheSchedulersWordsToOurs) {
  const Case& c = GetParam();
  test::FakeRunner runner;
  runner.expect({status_program(c.scheduler)}, c.answer);
  // A Slurm job that scontrol no longer knows is asked of the accounting, which answers nothing here.
  if (c.answer.exit_code != 0 && std::string(c.scheduler) == "slurm") runner.expect({"sacct"}, {0, "", ""});
  JobStatus status = query_status(test::builtin_catalog().scheduler(c.scheduler), "42", runner);
  EXPECT_EQ(job_state_name(status.state), c.state);
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
  return R"({"timestamp":1,"pbs_version":"2022","Jobs":{"42.server":{"Job_Name":"t","job_state":")" + state + "\"" +
         extra + "}}}";
}

INSTANTIATE_TEST_SUITE_P(
    Schedulers, QueryStatus,
    ::testing::Values(
        Case{"pbs", {0, pbs("Q"), ""}, "queued", -1}, Case{"pbs", {0, pbs("H"), ""}, "held", -1},
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
        Case{"pbs",
             {0, pbs("F", R"(,"substate":92,"comment":"Job deleted as result of dependency")"), ""},
             "not-run",
             -1},
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
        Case{"slurm",
             {0, "JobId=42 JobName=t JobState=OUT_OF_MEMORY Reason=OutOfMemory ExitCode=0:9\n", ""},
             "out-of-memory",
             137},
        Case{"slurm",
             {0, "JobId=42 JobName=t JobState=PENDING Reason=DependencyNeverSatisfied ExitCode=0:0\n", ""},
             "not-run",
             -1},
        // sbatch --hold: found by slurm.ezpz_submit, which saw 'queued'.
        Case{"slurm", {0, "JobId=42 JobName=t JobState=PENDING Reason=JobHeldUser ExitCode=0:0\n", ""}, "held", -1},
        Case{"slurm", {0, "JobId=42 JobName=t JobState=PENDING Reason=JobHeldAdmin ExitCode=0:0\n", ""}, "held", -1},
        Case{"slurm",
             {1, "", "slurm_load_jobs error: Invalid job id specified\n"},
             "unknown",
             -1}));  // then sacct: no answer

TEST(QueryStatus, SlurmAsksAccountingForAPurgedJob) {
  test::FakeRunner runner;
  runner.expect({"scontrol"}, {1, "", "slurm_load_jobs error: Invalid job id specified\n"});
  runner.expect({"sacct"}, {0, "FAILED|2:0\n", ""});
  JobStatus status = query_status(test::builtin_catalog().scheduler("slurm"), "42", runner);
  EXPECT_EQ(job_state_name(status.state), "failed");
  EXPECT_EQ(status.exit_code, 2);
  ASSERT_EQ(runner.calls.size(), 2u);
  EXPECT_EQ(runner.calls[1][0], "sacct");

  test::FakeRunner no_accounting;
  no_accounting.expect({"scontrol"}, {1, "", "slurm_load_jobs error: Invalid job id specified\n"});
  no_accounting.expect({"sacct"}, {1, "", "Slurm accounting storage is disabled\n"});
  status = query_status(test::builtin_catalog().scheduler("slurm"), "42", no_accounting);
  EXPECT_EQ(job_state_name(status.state), "unknown");
  EXPECT_NE(status.detail.find("accounting storage is disabled"), std::string::npos) << status.detail;

  test::FakeRunner cancelled;
  cancelled.expect({"scontrol"}, {1, "", "slurm_load_jobs error: Invalid job id specified\n"});
  cancelled.expect({"sacct"}, {0, "CANCELLED by 0|0:15\n", ""});
  EXPECT_EQ(job_state_name(query_status(test::builtin_catalog().scheduler("slurm"), "42", cancelled).state),
            "cancelled");
}

// An answer about another job is not this job's state: `status 55` once reported job 56's, and
// `submit --wait` returned 0 on it.
TEST(QueryStatus, AnAnswerAboutAnotherJobIsNotThisJobsState) {
  struct Answer {
    const char* scheduler;
    const char* asked;
    std::string out;
    const char* state;  // "unknown": the answer is about other jobs only
  };
  const Answer answers[] = {
      {"pbs", "55", R"({"Jobs":{"56.server":{"job_state":"F","Exit_status":0}}})", "unknown"},
      {"pbs", "55.server", R"({"Jobs":{"56.server":{"job_state":"F","Exit_status":0}}})", "unknown"},
      {"pbs", "5", R"({"Jobs":{"55.server":{"job_state":"F","Exit_status":0}}})", "unknown"},
      {"slurm", "55", "JobId=56 JobName=x JobState=COMPLETED ExitCode=0:0\n", "unknown"},
      {"slurm", "5", "JobId=55 JobName=x JobState=COMPLETED ExitCode=0:0\n", "unknown"},
      {"slurm", "55_3", "JobId=58 ArrayJobId=56 ArrayTaskId=3 JobState=COMPLETED ExitCode=0:0\n", "unknown"},
      // The job asked about is found among others, by the forms the schedulers give it.
      {"pbs", "42", pbs("F", R"(,"Exit_status":0)"), "completed"},
      {"pbs", "42.server", pbs("F", R"(,"Exit_status":0)"), "completed"},
      {"pbs", "42",
       R"({"Jobs":{"41.server":{"job_state":"R"},"42.server":{"job_state":"F","Exit_status":0},"43.server":{}}})",
       "completed"},
      {"slurm", "42", "JobId=42 JobState=COMPLETED ExitCode=0:0\n", "completed"},
      {"slurm", "42", "JobId=41 JobState=RUNNING\nJobId=42 JobState=COMPLETED ExitCode=0:0\n", "completed"},
      {"slurm", "42_3", "JobId=45 ArrayJobId=42 ArrayTaskId=3 JobState=COMPLETED ExitCode=0:0\n", "completed"},
      {"slurm", "42;cluster2", "JobId=42 JobState=COMPLETED ExitCode=0:0\n", "completed"},
  };
  for (const auto& answer : answers) {
    SCOPED_TRACE(std::string(answer.scheduler) + " " + answer.asked + ": " + answer.out);
    test::FakeRunner runner;
    runner.expect({status_program(answer.scheduler)}, {0, answer.out, ""});
    JobStatus status = query_status(test::builtin_catalog().scheduler(answer.scheduler), answer.asked, runner);
    EXPECT_EQ(job_state_name(status.state), answer.state);
    if (std::string(answer.state) != "unknown") continue;
    EXPECT_NE(status.wait_exit_code(), 0);
    EXPECT_NE(status.detail.find("another job"), std::string::npos) << status.detail;
  }
}

// OpenPBS's qstat with a closed stdin: "cannot connect", exit 0, no job. Once read as "unknown, done",
// so `submit --wait` returned 0 at once.
TEST(QueryStatus, ASuccessfulAnswerWithoutAJobIsAnError) {
  for (const char* scheduler : {"pbs", "slurm"}) {
    test::FakeRunner runner;
    runner.expect({status_program(scheduler)}, {0, "", "qstat: cannot connect to server pbs (errno=0)\n"});
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
      {"completed", 0, 0},   {"failed", 3, 3},           {"failed", 137, 137},   {"failed", -1, 1},
      {"timeout", 143, 124}, {"out-of-memory", -1, 137}, {"cancelled", -1, 143}, {"cancelled", 143, 143},
      {"not-run", -1, 123},  {"unknown", -1, 122},
  };
  for (const auto& c : cases) {
    JobStatus status;
    status.state = *parse_job_state(c.state);
    if (c.exit_code >= 0) status.exit_code = c.exit_code;
    EXPECT_TRUE(status.done()) << c.state;
    EXPECT_EQ(status.wait_exit_code(), c.expected) << c.state << " " << c.exit_code;
  }
  for (const char* live : {"queued", "held", "running"}) {
    JobStatus status;
    status.state = *parse_job_state(live);
    EXPECT_FALSE(status.done()) << live;
  }
}

TEST(JobStatus, ShippedSchedulersMapTheirStatesAtLoad) {
  const struct {
    const char* scheduler;
    const char* theirs;
    JobState ours;
  } cases[] = {{"pbs", "Q", JobState::queued},
               {"pbs", "H", JobState::held},
               {"pbs", "R", JobState::running},
               {"pbs", "F", JobState::ended},
               {"slurm", "PENDING", JobState::queued},
               {"slurm", "OUT_OF_MEMORY", JobState::out_of_memory},
               {"slurm", "BOOT_FAIL", JobState::not_run},
               {"slurm", "CANCELLED", JobState::cancelled}};
  for (const auto& c : cases) {
    const auto& states = test::builtin_catalog().scheduler(c.scheduler).states;
    auto found = states.find(c.theirs);
    ASSERT_NE(found, states.end()) << c.scheduler << " " << c.theirs;
    EXPECT_EQ(job_state_name(found->second), job_state_name(c.ours)) << c.scheduler << " " << c.theirs;
  }
  for (const auto& name : job_state_names()) EXPECT_EQ(job_state_name(*parse_job_state(name)), name);
}

// --- hostile answers: odd types, garbage and truncation never escape as an exception ----------------

struct OddAnswer {
  const char* scheduler;
  std::string out;
  const char* state;   // what the job is then
  const char* detail;  // a part of the detail, "" for any
};

void PrintTo(const OddAnswer& c, std::ostream* out) {
  *out << c.scheduler << " " << c.out.substr(0, 80);
}

class OddSchedulerAnswers : public ::testing::TestWithParam<OddAnswer> {};

TEST_P(OddSchedulerAnswers, GiveAStateNotAnAbort) {
  const OddAnswer& c = GetParam();
  test::FakeRunner runner;
  runner.expect({status_program(c.scheduler)}, {0, c.out, ""});
  JobStatus status;
  try {
    status = query_status(test::builtin_catalog().scheduler(c.scheduler), "42", runner);
  } catch (const UserError& error) {
    FAIL() << "UserError: " << error.what();
  } catch (const std::exception& error) {
    FAIL() << "escaped: " << error.what();
  }
  EXPECT_EQ(job_state_name(status.state), c.state) << status.detail;
  EXPECT_NE(status.detail.find(c.detail), std::string::npos) << status.detail;
  EXPECT_FALSE(status.exit_code && (*status.exit_code < 0 || *status.exit_code > 255)) << *status.exit_code;
}

std::string pbs_job(const std::string& fields) {
  return R"({"timestamp":1,"pbs_version":"2022","Jobs":{"42.server":)" + fields + "}}";
}

INSTANTIATE_TEST_SUITE_P(
    Pbs, OddSchedulerAnswers,
    ::testing::Values(
        OddAnswer{"pbs", pbs_job(R"({"job_state":7})"), "unknown", "'job_state' is 7, expected a string"},
        OddAnswer{"pbs", pbs_job(R"({"job_state":null})"), "unknown", "'job_state' is null, expected a string"},
        OddAnswer{"pbs", pbs_job(R"({"job_state":["F"]})"), "unknown", "'job_state' is an array, expected a string"},
        OddAnswer{"pbs", pbs_job(R"({"job_state":{"a":{"b":[1,2,{"c":null}]}}})"), "unknown",
                  "'job_state' is an object"},
        OddAnswer{"pbs", pbs_job(R"({"job_state":"F","Exit_status":"0"})"), "unknown",
                  "'Exit_status' is \"0\", expected an integer"},
        OddAnswer{"pbs", pbs_job(R"({"job_state":"F","Exit_status":1.5})"), "unknown", "expected an integer"},
        OddAnswer{"pbs", pbs_job(R"({"job_state":"F","Exit_status":null})"), "unknown", "expected an integer"},
        OddAnswer{"pbs", pbs_job(R"({"job_state":"F","Exit_status":99999999999999999999999999})"), "unknown",
                  "expected an integer"},
        OddAnswer{"pbs", pbs_job(R"({"job_state":"F","Exit_status":18446744073709551615})"), "unknown",
                  "'Exit_status' is 18446744073709551615, expected an integer that fits an int"},
        OddAnswer{"pbs", pbs_job(R"({"job_state":"F","Exit_status":-9223372036854775808})"), "unknown",
                  "that fits an int"},
        OddAnswer{"pbs", pbs_job(R"({"job_state":"F","Exit_status":4294967296})"), "unknown", "that fits an int"},
        OddAnswer{"pbs", pbs_job(R"({"job_state":"F","Exit_status":0,"substate":"91"})"), "unknown",
                  "'substate' is \"91\", expected an integer"},
        OddAnswer{"pbs", pbs_job(R"({"job_state":"F","Exit_status":0,"comment":false})"), "unknown",
                  "'comment' is false, expected a string"},
        OddAnswer{"pbs", pbs_job(R"({"job_state":"R","comment":")" + std::string(100000, 'x') + R"("})"), "running",
                  ""},
        OddAnswer{"pbs",
                  pbs_job(R"({"job_state":"R","comment":)" + std::string(100, '[') + std::string(100, ']') + "}"),
                  "unknown", "'comment' is an array, expected a string"},
        // Nesting a recursive printer would not survive.
        OddAnswer{
            "pbs",
            pbs_job(R"({"job_state":"R","comment":)" + std::string(1000000, '[') + std::string(1000000, ']') + "}"),
            "unknown", "'comment' is an array"},
        OddAnswer{"pbs", pbs_job("42"), "unknown", "the job is a JSON number, not an object"},
        OddAnswer{"pbs", pbs_job("[]"), "unknown", "the job is a JSON array, not an object"},
        OddAnswer{"pbs", pbs_job(R"({"job_state":"Z"})"), "unknown",
                  "the scheduler's state 'Z' is not in schedulers/pbs.yaml"},
        OddAnswer{"pbs", pbs_job(R"({"job_state":"F","Exit_status":0,"new_field":[1,{"x":null}]})"), "completed", ""}));

INSTANTIATE_TEST_SUITE_P(
    Slurm, OddSchedulerAnswers,
    ::testing::Values(OddAnswer{"slurm", "JobId=42 JobState=COMPLETED ExitCode=0:2147483647\n", "completed", ""},
                      OddAnswer{"slurm", "JobId=42 JobState=FAILED ExitCode=99999999999999999999:0\n", "failed", ""},
                      OddAnswer{"slurm", "JobId=42 JobState=FAILED ExitCode=-3:0\n", "failed", ""},
                      OddAnswer{"slurm", "JobId=42 JobState=FAILED ExitCode=:\n", "failed", ""},
                      OddAnswer{"slurm", "JobId=42 JobState=FAILED ExitCode=1:2:3\n", "failed", ""},
                      OddAnswer{"slurm", "JobId=42 JobState=FAILED ExitCode\n", "failed", ""},
                      OddAnswer{"slurm", "JobId=42 JobState= ExitCode=0:0\n", "unknown", "empty JobState"},
                      OddAnswer{"slurm", "JobState=RUNNING = == =x x= \x01\x02 Reason=\n\n\nodd line without equals\n",
                                "running", ""},
                      OddAnswer{"slurm", "JobState=RUNNING Reason=" + std::string(1 << 20, 'r') + "\n", "running",
                                "rrrr"},
                      OddAnswer{"slurm", "JobId=42 JobState=" + std::string(1 << 20, 'S') + "\n", "unknown",
                                "SSSS…' (1048576 bytes) is not in"}));

TEST(QueryStatus, OddSacctLinesGiveAStateNotAnAbort) {
  const std::pair<const char*, const char*> cases[] = {
      {"COMPLETED|0:2147483647\n", "completed"},
      {"FAILED|\n", "failed"},
      {"|0:0\n", "unknown"},
      {"FAILED|1:0|extra|fields\n", "failed"},
      {"COMPLETED|0:0 JobState=FAILED\n", "completed"},
  };
  for (const auto& [line, state] : cases) {
    test::FakeRunner runner;
    runner.expect({"scontrol"}, {1, "", "slurm_load_jobs error: Invalid job id specified\n"});
    runner.expect({"sacct"}, {0, line, ""});
    JobStatus status = query_status(test::builtin_catalog().scheduler("slurm"), "42", runner);
    EXPECT_EQ(job_state_name(status.state), state) << line;
    EXPECT_FALSE(status.exit_code && (*status.exit_code < 0 || *status.exit_code > 255)) << line;
  }
}

// Output that is no JSON at all, or is cut off, names no job: an error with the command, not an abort.
TEST(QueryStatus, TruncatedOrNonJsonQstatOutputIsAnError) {
  for (std::string out : {pbs_job(R"({"job_state":"F")").substr(0, 50), std::string("{\"Jobs\":"),
                          std::string(100000, '[') + "\"Jobs\"", std::string("\"Jobs\""), std::string("[1,2]"),
                          std::string(R"({"Jobs":[{"job_state":"F"}]})"), std::string(R"({"Jobs":"42"})")}) {
    test::FakeRunner runner;
    runner.expect({"qstat"}, {0, out, ""});
    EXPECT_THROW(query_status(test::builtin_catalog().scheduler("pbs"), "42", runner), UserError) << out.substr(0, 80);
  }
}

TEST(QueryStatus, ASchedulerThatCannotRunIsAnError) {
  test::FakeRunner runner;
  runner.expect({"scontrol"}, {127, "", "scontrol: command not found"});
  EXPECT_THROW(query_status(test::builtin_catalog().scheduler("slurm"), "42", runner), UserError);
}

}  // namespace
}  // namespace ezpz::core

namespace ezpz::core {
namespace {

// How many times a job has started: PBS run_count, Slurm Restarts plus the current run.
struct StartsCase {
  const char* scheduler;
  std::string answer;
  long starts;  // -1: unknown
};

// The generic `columns` format (a scheduler that is data alone, like tests/flux): each column as
// status_columns names it; an `ended` state is completed or failed by its exit code.
TEST(QueryStatus, ColumnsAreReadByTheirNames) {
  Scheduler flux;
  flux.name = "flux";
  flux.status = {"flux", "jobs", "{job_id}"};
  flux.status_format = "columns";
  flux.status_columns = {"-", "state", "exit_code", "reason"};
  flux.states = {{"SCHED", JobState::queued}, {"FAILED", JobState::ended}, {"CANCELED", JobState::cancelled}};
  flux.unknown_job = {"unknown job id"};
  struct ColumnCase {
    std::string out;
    const char* state;
    std::optional<int> exit_code;
    const char* detail;
  };
  for (const auto& c : std::vector<ColumnCase>{
           {"f1 SCHED - priority\n", "queued", std::nullopt, "priority"},
           {"f1 FAILED 0\n", "completed", 0, ""},
           {"f1 FAILED 7 -\n", "failed", 7, ""},
           {"f1 FAILED -\n", "failed", std::nullopt, "the scheduler gave no exit code ('-')"},
           {"f1 CANCELED 143\n", "cancelled", 143, ""},
           {"f1 WEIRD 0\n", "unknown", std::nullopt, "the scheduler's state 'WEIRD' is not in schedulers/flux.yaml"},
           {"f1\n", "unknown", std::nullopt, "the scheduler's state '' is not in schedulers/flux.yaml"},
       }) {
    test::FakeRunner runner;
    runner.expect({"flux", "jobs"}, {0, c.out, ""});
    JobStatus status = query_status(flux, "f1", runner);
    EXPECT_EQ(job_state_name(status.state), c.state) << c.out;
    EXPECT_EQ(status.exit_code, c.exit_code) << c.out;
    EXPECT_EQ(status.detail, c.detail) << c.out;
  }
  // A blank answer names no job; a failed one that says "unknown job id" is a job it does not know.
  test::FakeRunner blank;
  blank.expect({"flux", "jobs"}, {0, "\n", ""});
  EXPECT_THROW(query_status(flux, "f1", blank), UserError);
  test::FakeRunner gone;
  gone.expect({"flux", "jobs"}, {1, "", "flux-jobs: ERROR: unknown job id f9\n"});
  EXPECT_EQ(query_status(flux, "f9", gone).state, JobState::unknown);
  test::FakeRunner failing;
  failing.expect({"flux", "jobs"}, {1, "", "flux-jobs: ERROR: Unable to connect to Flux\n"});
  EXPECT_THROW(query_status(flux, "f1", failing), UserError);
}

TEST(QueryStatus, CountsTheStartsOfARequeuedJob) {
  const StartsCase cases[] = {
      {"pbs", pbs("Q"), -1},  // never ran: no run_count yet
      {"pbs", pbs("R", R"(,"run_count":1)"), 1},
      {"pbs", pbs("F", R"(,"Exit_status":0,"run_count":3)"), 3},
      {"slurm", "JobId=42 JobState=PENDING Reason=None Restarts=0 RunTime=00:00:00\n", 0},
      {"slurm", "JobId=42 JobState=RUNNING Reason=None Restarts=0 RunTime=00:00:05\n", 1},
      {"slurm", "JobId=42 JobState=PENDING Reason=BeginTime Restarts=1 RunTime=00:00:00\n", 1},  // requeued
      {"slurm", "JobId=42 JobState=RUNNING Reason=None Restarts=1 RunTime=00:00:01\n", 2},
      // A second run that took no time at all still ran.
      {"slurm", "JobId=42 JobState=COMPLETED Reason=None Restarts=1 RunTime=00:00:00 ExitCode=0:0\n", 2},
      {"slurm", "JobId=42 JobState=CANCELLED Reason=None Restarts=1 RunTime=00:00:00 ExitCode=0:0\n", 1},
      {"slurm", "JobId=42 JobState=RUNNING Reason=None Restarts=x RunTime=00:00:01\n", -1},
      {"slurm", "JobId=42 JobState=RUNNING Reason=None RunTime=00:00:01\n", -1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.answer);
    test::FakeRunner runner;
    runner.expect({status_program(c.scheduler)}, {0, c.answer, ""});
    JobStatus status = query_status(test::builtin_catalog().scheduler(c.scheduler), "42", runner);
    if (c.starts < 0) {
      EXPECT_FALSE(status.starts);
    } else {
      ASSERT_TRUE(status.starts);
      EXPECT_EQ(*status.starts, c.starts);
    }
  }
}

}  // namespace
}  // namespace ezpz::core
