// Sending `ezpz kill`'s signal to a listed process (runtime/kill.hpp).
#include "ezpz/runtime/kill.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ezpz::core {
namespace {

TEST(SendSignal, AProcessThatEndedAfterItWasListedIsGoneNotAFailure) {
  // The race e2e.kill met under a loaded machine: the launch stopped a rank itself between
  // `ezpz kill` listing it and signalling it, and kill(2)'s ESRCH made `ezpz kill` exit 1.
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);  // reaped: the pid names no process now
  EXPECT_EQ(send_signal(child, SIGTERM), SignalSent::gone);
}

TEST(SendSignal, ALiveProcessIsSent) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  EXPECT_EQ(send_signal(child, SIGKILL), SignalSent::sent);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

}  // namespace
}  // namespace ezpz::core
