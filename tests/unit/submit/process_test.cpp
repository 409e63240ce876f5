// The real process runner: exit codes, /dev/null as stdin, a time limit that takes the whole process
// group down, and bounded output.
#include "ezpz/submit/process.hpp"

#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "ezpz/util/error.hpp"
#include "ezpz/util/limits.hpp"

namespace ezpz::core {
namespace {

using namespace std::chrono_literals;

ProcessResult sh(const std::string& script, std::chrono::milliseconds timeout = 10s) {
  return SystemProcessRunner(timeout).run({"sh", "-c", script});
}

TEST(SystemProcessRunner, ExitCodesOutputAndStdin) {
  ProcessResult result = sh("echo out; echo err >&2; exit 3");
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(result.out, "out\n");
  EXPECT_EQ(result.err, "err\n");
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(sh("kill -TERM $$").exit_code, 128 + SIGTERM);
  EXPECT_EQ(sh("test -r /dev/stdin && ! read -r line && echo eof").out, "eof\n") << "stdin is /dev/null, not closed";
  EXPECT_EQ(SystemProcessRunner(1s).run({"ezpz-no-such-program"}).exit_code, 127);
  auto start = std::chrono::steady_clock::now();
  sh("exit 0", 10s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s) << "a finished program is not waited for until the limit";
}

// A stuck sbatch/qstat must not hang ezpz: killed at the limit with what it started, output kept.
// A program named by its path runs as execvp would run it (ezpz doctor runs the profile's shell,
// "/bin/bash -l"); before, only names on PATH ran and a path was "command not found".
TEST(SystemProcessRunner, AProgramNamedByItsPathRuns) {
  SystemProcessRunner runner(std::chrono::seconds(10));
  ProcessResult result = runner.run({"/bin/sh", "-c", "echo by path"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "by path\n");
  EXPECT_EQ(runner.run({"/nonexistent/program"}).exit_code, 127);
}

TEST(SystemProcessRunner, ATimeLimitStopsTheWholeProcessGroup) {
  std::string pid_file = ::testing::TempDir() + "ezpz-process-test-" + std::to_string(::getpid());
  auto start = std::chrono::steady_clock::now();
  ProcessResult result = sh("echo 4242; sleep 60 & echo $! >" + pid_file + "; wait", 500ms);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.exit_code, 124);
  EXPECT_EQ(result.out, "4242\n") << "what it printed before it hung is kept";
  EXPECT_NE(result.err.find("stopped after 0.5 s"), std::string::npos) << result.err;
  EXPECT_LT(took, 5s);
  long pid = 0;
  std::ifstream(pid_file) >> pid;
  std::remove(pid_file.c_str());
  ASSERT_GT(pid, 0);
  // Gone, or a zombie waiting for PID 1 to reap it (late on some kernels): no longer running.
  auto running = [&] {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_text, name, state;
    return stat >> pid_text >> name >> state && state != "Z";
  };
  for (int i = 0; i < 50 && running(); ++i) std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(running()) << "the program's own child outlived the time limit";
}

TEST(SystemProcessRunner, EndlessOutputIsBoundedAndStillEnds) {
  ProcessResult result = sh("yes", 2s);
  EXPECT_TRUE(result.timed_out);
  EXPECT_LE(result.out.size(), k_max_command_output + 100);
  EXPECT_NE(result.out.find("more bytes not kept"), std::string::npos);
  ProcessResult big = sh("head -c 20000000 /dev/zero | tr '\\\\0' x >&2; exit 1");
  EXPECT_EQ(big.exit_code, 1);
  std::string message = failure_message({"qstat", "1"}, big);
  EXPECT_LT(message.size(), 5000u) << "an error message echoes at most 4 KiB of stderr";
  EXPECT_NE(message.find("qstat failed (exit code 1): qstat 1"), std::string::npos);
}

TEST(SystemProcessRunner, TheTimeLimitComesFromTheEnvironment) {
  ::setenv("EZPZ_SCHEDULER_TIMEOUT", "abc", 1);
  EXPECT_THROW(SystemProcessRunner{}, UserError);
  ::setenv("EZPZ_SCHEDULER_TIMEOUT", "0", 1);
  EXPECT_THROW(SystemProcessRunner{}, UserError);
  ::setenv("EZPZ_SCHEDULER_TIMEOUT", "0.3", 1);
  EXPECT_TRUE(SystemProcessRunner{}.run({"sleep", "5"}).timed_out);
  ::unsetenv("EZPZ_SCHEDULER_TIMEOUT");
}

}  // namespace
}  // namespace ezpz::core
