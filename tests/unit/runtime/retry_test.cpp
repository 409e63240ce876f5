// The retry schedule and the end-of-allocation arithmetic of `ezpz launch --retries`.
#include "ezpz/runtime/retry.hpp"

#include <gtest/gtest.h>

#include <map>

#include "ezpz/runtime/launch.hpp"

namespace ezpz::core {
namespace {

EnvLookup lookup(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    auto found = values.find(name);
    if (found == values.end()) return std::nullopt;
    return found->second;
  };
}

TEST(RetryDelay, DoublesFromTheFirstDelayUpToTheCap) {
  RetryPolicy policy{5, 10.0, 300.0};
  EXPECT_EQ(retry_delay(policy, 1), 0.0);  // the first attempt starts at once
  EXPECT_EQ(retry_delay(policy, 2), 10.0);
  EXPECT_EQ(retry_delay(policy, 3), 20.0);
  EXPECT_EQ(retry_delay(policy, 4), 40.0);
  EXPECT_EQ(retry_delay(policy, 7), 300.0);     // 320 capped
  EXPECT_EQ(retry_delay(policy, 1000), 300.0);  // no overflow
  EXPECT_EQ(retry_delay(RetryPolicy{3, 0.0, 300.0}, 3), 0.0);
}

TEST(AllocationEnd, ComesFromEzpzThenSlurmAndIgnoresGarbage) {
  EXPECT_EQ(allocation_end(lookup({})), std::nullopt);
  EXPECT_EQ(allocation_end(lookup({{"EZPZ_JOB_END_TIME", "1800000000"}, {"SLURM_JOB_END_TIME", "1"}})), 1800000000);
  EXPECT_EQ(allocation_end(lookup({{"SLURM_JOB_END_TIME", "1700000000"}})), 1700000000);
  EXPECT_EQ(allocation_end(lookup({{"EZPZ_JOB_END_TIME", "soon"}, {"SLURM_JOB_END_TIME", "1700000000"}})), 1700000000);
  for (const char* bad : {"", "-5", "0", "12.5", "99999999999999999999999", " 17"}) {
    EXPECT_EQ(allocation_end(lookup({{"EZPZ_JOB_END_TIME", bad}})), std::nullopt) << "'" << bad << "'";
  }
}

TEST(CannotFinish, ComparesTheLastAttemptWithTheTimeLeft) {
  EXPECT_EQ(cannot_finish(std::nullopt, 1000, 10, 1e9), "") << "an unknown end never stops a retry";
  EXPECT_EQ(cannot_finish(2000, 1000, 10, 500), "");  // 510 s of 1000 s
  EXPECT_EQ(cannot_finish(2000, 1000, 10, 990),
            "the last attempt took 00:16:30 and the allocation ends in 00:16:40");  // 1000 s exactly
  EXPECT_EQ(cannot_finish(2000, 2500, 0, 1), "the allocation has ended") << "a clock past the end";
  EXPECT_EQ(cannot_finish(2000, 2000, 0, 0), "the allocation has ended");
}

LaunchOutcome failed(int code, const char* why) {
  return LaunchOutcome{code, false, why};
}

TEST(RunAttempts, StopsAtSuccessAtTheLimitAtAUserStopAndBeforeTheEnd) {
  RetryPolicy policy{3, 0.0, 0.0};
  int calls = 0;
  EXPECT_EQ(
      run_attempts([&] { return ++calls < 3 ? failed(7, "rank 1 failed") : LaunchOutcome{}; }, policy, lookup({})), 0);
  EXPECT_EQ(calls, 3);

  calls = 0;
  EXPECT_EQ(run_attempts([&] { return ++calls, failed(7, "x"); }, policy, lookup({})), 7);
  EXPECT_EQ(calls, 4) << "1 + 3 retries";

  calls = 0;
  EXPECT_EQ(run_attempts(
                [&] {
                  return ++calls, LaunchOutcome{130, true, "signal Interrupt"};
                },
                policy, lookup({})),
            130);
  EXPECT_EQ(calls, 1) << "a user's Ctrl-C is never retried";

  calls = 0;
  EXPECT_EQ(run_attempts([&] { return ++calls, failed(143, "rank 0 failed with exit code 143"); }, policy,
                         lookup({{"EZPZ_JOB_END_TIME", "1"}})),
            143);
  EXPECT_EQ(calls, 1) << "an allocation that has ended stops the retries";

  calls = 0;
  EXPECT_EQ(run_attempts([&] { return ++calls, failed(143, "rank 0 failed with exit code 143"); }, policy, lookup({})),
            143);
  EXPECT_EQ(calls, 4) << "143 is not read as the walltime";
}

}  // namespace
}  // namespace ezpz::core
