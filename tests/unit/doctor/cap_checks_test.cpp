// ezpz doctor's caps check: the scheduler's job list (a recorded answer through a fake runner) counted
// against the profile's caps for the user and the project.
#include <gtest/gtest.h>

#include "../submit/fake_runner.hpp"
#include "../test_support.hpp"
#include "ezpz/doctor/checks.hpp"

namespace ezpz::core {
namespace {

// `qstat -f -F json -t` with `n` jobs of `user` charged to `account` in `queue`, in `state`.
std::string qstat(const std::vector<std::tuple<int, std::string, std::string, std::string, std::string>>& groups) {
  nlohmann::json jobs = nlohmann::json::object();
  int id = 100;
  for (const auto& [n, user, account, queue, state] : groups) {
    for (int i = 0; i < n; ++i) {
      nlohmann::json job = {{"Job_Owner", user + "@login1"}, {"queue", queue}, {"job_state", state}};
      if (!account.empty()) job["Account_Name"] = account;
      jobs[std::to_string(++id) + ".polaris-pbs-01"] = job;
    }
  }
  return nlohmann::json{{"pbs_version", "2024.1.1"}, {"Jobs", jobs}}.dump();
}

struct CapsCheck : ::testing::Test {
  test::FakeRunner runner;
  DoctorInputs inputs;
  void SetUp() override {
    inputs.catalog = &test::builtin_catalog();
    inputs.runner = &runner;
    inputs.system = "polaris";
    inputs.user = "me";
  }
  void with_spec(const std::string& spec) {
    inputs.job = test::resolve_layers({"system: polaris\nrun: [x]\n" + spec, {}, {}, ""});
  }
};

TEST_F(CapsCheck, ProdsProjectCapsAreCountedForTheSpecsAccountAndReachedOnesWarn) {
  with_spec("account: P\nqueue: prod\nnodes: 10\nfilesystems: [home]\n");
  runner.expect({"qstat", "-f", "-F", "json", "-t"},
                {0, qstat({{10, "you", "P", "small", "R"}, {40, "me", "P", "prod", "Q"}}), ""});
  auto found = check_caps(inputs);
  ASSERT_EQ(runner.calls.size(), 1u);
  EXPECT_EQ(runner.calls[0], (std::vector<std::string>{"qstat", "-f", "-F", "json", "-t"}));
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].check, "caps");
  EXPECT_EQ(found[0].status, CheckStatus::warn);
  EXPECT_EQ(found[0].finding,
            "queue 'prod': 10 job(s) of project P counted in small, against its cap of at most 10 job(s) running or "
            "accruing per "
            "project: reached");
  EXPECT_NE(found[0].remedy.find("held"), std::string::npos);
  EXPECT_EQ(found[1].status, CheckStatus::ok);
  EXPECT_EQ(found[1].finding,
            "counted 50 job(s) from qstat -f -F json -t for user me, project(s) P; room under prod: 40 of at most 100 "
            "job(s) queued (not accruing) per project (P)");
}

TEST_F(CapsCheck, WithoutASpecEveryQueueIsCountedForTheProjectsOfTheUsersJobs) {
  runner.expect({"qstat", "-f", "-F", "json", "-t"}, {0,
                                                      qstat({{1, "me", "A", "debug-scaling", "H"},
                                                             {1, "me", "B", "capacity", "R"},
                                                             {1, "you", "C", "capacity", "R"},
                                                             {9, "them", "B", "preemptable", "Q"},
                                                             {8, "them", "A", "medium", "R"}}),
                                                      ""});
  auto found = check_caps(inputs);
  std::vector<std::string> warnings;
  for (const auto& f : found) {
    if (f.status == CheckStatus::warn) warnings.push_back(f.finding);
  }
  EXPECT_EQ(
      warnings,
      (std::vector<std::string>{
          "queue 'debug-scaling': 1 job(s) of user me counted in debug-scaling, against its cap of at most 1 job(s) "
          "per user (running, accruing or queued): reached",
          "queue 'prod': 8 job(s) of project A counted in medium, against its cap of at most 10 job(s) running or "
          "accruing per project: near it",
          "queue 'capacity': 1 job(s) of user me counted in capacity, against its cap of at most 1 job(s) running "
          "per user: reached",
      }));
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.back().status, CheckStatus::ok);
  EXPECT_NE(found.back().finding.find("for user me, project(s) A, B;"), std::string::npos) << found.back().finding;
  EXPECT_NE(found.back().finding.find("preemptable: 9 of at most 20 job(s) per project (running, accruing or "
                                      "queued) (B)"),
            std::string::npos)
      << found.back().finding;
  EXPECT_NE(found.back().finding.find("capacity: 1 of at most 2 job(s) queued or running per user (me)"),
            std::string::npos)
      << found.back().finding;
}

TEST_F(CapsCheck, AListThatCannotBeAskedOrReadIsAWarningAndAQueueWithoutCapsNoLine) {
  with_spec("account: P\nqueue: prod\nnodes: 10\nfilesystems: [home]\n");
  runner.expect({"qstat", "-f", "-F", "json", "-t"}, {127, "", "qstat: not found"});
  auto found = check_caps(inputs);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].status, CheckStatus::warn);
  EXPECT_NE(found[0].finding.find("qstat is not on PATH"), std::string::npos) << found[0].finding;
  runner.expect({"qstat", "-f", "-F", "json", "-t"}, {0, "not json", ""});
  found = check_caps(inputs);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].finding.find("cannot read the answer of qstat -f -F json -t (pbs-json)"), std::string::npos)
      << found[0].finding;
  // OpenPBS 23.06 with its server stopped (tests/pbs): the JSON header on stdout, the reason on stderr.
  runner.expect({"qstat", "-f", "-F", "json", "-t"},
                {255, "{\n\t\"timestamp\":\t1795951517,\n\t\"pbs_version\":\t\"23.06.06\",\n}\n",
                 "Connection refused\nqstat: cannot connect to server ezpz-pbs (errno=15010)\n"});
  found = check_caps(inputs);
  EXPECT_NE(found[0].finding.find("failed (exit code 255): qstat: cannot connect to server ezpz-pbs (errno=15010)"),
            std::string::npos)
      << found[0].finding;

  with_spec("account: P\nqueue: debug\nfilesystems: [home]\n");  // Polaris debug: no cap
  size_t calls = runner.calls.size();
  EXPECT_TRUE(check_caps(inputs).empty());
  EXPECT_EQ(runner.calls.size(), calls) << "nothing to count: the scheduler is not asked";
}

}  // namespace
}  // namespace ezpz::core
