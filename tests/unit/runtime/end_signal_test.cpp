// The signal before the allocation ends: what the environment asks for, the arithmetic of when it is
// due, which ranks are supervised for it, and a supervised rank sending it to its program.
#include "ezpz/runtime/end_signal.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <map>

#include "ezpz/runtime/rank.hpp"
#include "ezpz/runtime/rank_supervisor.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/signals.hpp"
#include "runtime_support.hpp"

namespace ezpz::core {
namespace {

using Variables = std::map<std::string, std::string>;

TEST(SignalNames, TakeTheUsualSpellings) {
  EXPECT_EQ(signal_number("USR2", SignalUse::kill), SIGUSR2);
  EXPECT_EQ(signal_number("sigusr1", SignalUse::kill), SIGUSR1);
  EXPECT_EQ(signal_number("SIGTERM", SignalUse::kill), SIGTERM);
  EXPECT_EQ(signal_number(std::to_string(SIGUSR2), SignalUse::kill), SIGUSR2);
  EXPECT_EQ(signal_number("USR3", SignalUse::kill), std::nullopt);
  EXPECT_EQ(signal_number("", SignalUse::kill), std::nullopt);
  EXPECT_EQ(signal_number("SIG", SignalUse::kill), std::nullopt);
  EXPECT_EQ(signal_name(SIGUSR1), "USR1");
  EXPECT_EQ(signal_name(SIGSEGV), "signal " + std::to_string(SIGSEGV));
}

// KILL as the end signal ended every rank before the walltime with no checkpoint: a warning must be a
// signal the ranks can catch. `ezpz kill --signal KILL` still sends it.
TEST(SignalNames, TheEndSignalIsOneTheRanksCanCatch) {
  EXPECT_EQ(signal_number("KILL", SignalUse::kill), SIGKILL);
  EXPECT_EQ(signal_number("KILL", SignalUse::warning), std::nullopt);
  EXPECT_EQ(signal_number(std::to_string(SIGKILL), SignalUse::warning), std::nullopt);
  EXPECT_EQ(signal_number("USR2", SignalUse::warning), SIGUSR2);
  EXPECT_NE(signal_problem("SIGKILL", SignalUse::warning).find("cannot be caught"), std::string::npos)
      << signal_problem("SIGKILL", SignalUse::warning);
  EXPECT_EQ(signal_problem("SIGKILL", SignalUse::kill), "");
  const auto& names = signal_names(SignalUse::warning);
  EXPECT_EQ(std::find(names.begin(), names.end(), "KILL"), names.end());
  try {
    end_signal(
        table_env({{"EZPZ_SIGNAL_BEFORE", "60"}, {"EZPZ_END_SIGNAL", "KILL"}, {"EZPZ_JOB_END_TIME", "1800000000"}}));
    ADD_FAILURE() << "KILL taken as the end signal";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot be caught"), std::string::npos) << error.what();
  }
}

// An end time that is set but unreadable was reported as "nothing says when the allocation ends".
TEST(EndSignal, AnUnreadableEndTimeIsNamed) {
  for (const char* text : {"soon", "-5", "99999999999999999999"}) {
    try {
      end_signal(table_env({{"EZPZ_SIGNAL_BEFORE", "60"}, {"EZPZ_JOB_END_TIME", text}}));
      ADD_FAILURE() << text;
    } catch (const UserError& error) {
      EXPECT_NE(std::string(error.what()).find("EZPZ_JOB_END_TIME='" + std::string(text) + "'"), std::string::npos)
          << error.what();
    }
  }
}

TEST(EndSignal, AbsentUnlessAskedFor) {
  EXPECT_EQ(end_signal(table_env({})), std::nullopt);
  EXPECT_EQ(end_signal(table_env({{"EZPZ_SIGNAL_BEFORE", ""}, {"EZPZ_JOB_END_TIME", "1800000000"}})), std::nullopt);
  EXPECT_EQ(end_signal(table_env({{"EZPZ_END_SIGNAL", "USR1"}, {"EZPZ_JOB_END_TIME", "1800000000"}})), std::nullopt)
      << "the signal alone asks for nothing";
}

TEST(EndSignal, IsDueTheLeadTimeBeforeTheEnd) {
  auto plain = end_signal(table_env({{"EZPZ_SIGNAL_BEFORE", "300"}, {"EZPZ_JOB_END_TIME", "1800000000"}}));
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->signal, SIGUSR2) << "the default";
  EXPECT_EQ(plain->before, 300);
  EXPECT_EQ(plain->due, 1800000000 - 300);
  auto usr1 = end_signal(
      table_env({{"EZPZ_SIGNAL_BEFORE", "60"}, {"EZPZ_END_SIGNAL", "USR1"}, {"SLURM_JOB_END_TIME", "1700000000"}}));
  ASSERT_TRUE(usr1);
  EXPECT_EQ(usr1->signal, SIGUSR1);
  EXPECT_EQ(usr1->due, 1700000000 - 60) << "Slurm's end time when ezpz's is not set";
}

TEST(EndSignal, RefusesWhatItCannotHonour) {
  for (const char* bad : {"5m", "-1", "0", "1.5", "9999999999999"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(end_signal(table_env({{"EZPZ_SIGNAL_BEFORE", bad}, {"EZPZ_JOB_END_TIME", "1800000000"}})), UserError);
  }
  EXPECT_THROW(end_signal(table_env(
                   {{"EZPZ_SIGNAL_BEFORE", "60"}, {"EZPZ_END_SIGNAL", "USR3"}, {"EZPZ_JOB_END_TIME", "1800000000"}})),
               UserError);
  try {  // no end time: a missing walltime must not turn into a signal at a made-up time
    end_signal(table_env({{"EZPZ_SIGNAL_BEFORE", "60"}}));
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("nothing says when the allocation ends"), std::string::npos);
  }
}

TEST(EndSignal, EnvironmentForTheRanks) {
  auto env = end_signal_env("USR1", 90, 1800000000);
  auto asked = end_signal(table_env(Variables(env.begin(), env.end())));
  ASSERT_TRUE(asked) << "what ezpz launch exports is what ezpz exec reads";
  EXPECT_EQ(asked->signal, SIGUSR1);
  EXPECT_EQ(asked->due, 1800000000 - 90);
}

TEST(EndSignal, EveryRankIsSupervisedForIt) {
  Variables end = {{"EZPZ_SIGNAL_BEFORE", "60"}, {"EZPZ_JOB_END_TIME", "1800000000"}};
  Variables open_mpi = {{"OMPI_COMM_WORLD_RANK", "1"},
                        {"OMPI_COMM_WORLD_SIZE", "2"},
                        {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                        {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}};
  Variables with_end = open_mpi;
  with_end.insert(end.begin(), end.end());
  EnvLookup env = table_env(with_end);
  RankRunPlan plan = rank_run_plan(discover_rank(env), env);
  EXPECT_EQ(plan.run, RankRun::supervise) << "exec in place could not send it";
  EXPECT_TRUE(plan.forward_signals) << "mpirun signals ezpz exec, which passes it on";
  ASSERT_TRUE(plan.end_signal);
  EXPECT_FALSE(plan.announce) << "only rank 0 says it";
  EnvLookup without = table_env(open_mpi);
  EXPECT_EQ(rank_run_plan(discover_rank(without), without).run, RankRun::exec);

  Variables slurm = {{"SLURM_STEP_ID", "0"}, {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"},
                     {"SLURM_LOCALID", "0"}, {"SLURM_NODEID", "0"}, {"SLURM_STEP_TASKS_PER_NODE", "2"}};
  slurm.insert(end.begin(), end.end());
  EnvLookup slurm_env = table_env(slurm);
  RankRunPlan slurm_plan = rank_run_plan(discover_rank(slurm_env), slurm_env);
  EXPECT_EQ(slurm_plan.run, RankRun::supervise);
  EXPECT_FALSE(slurm_plan.forward_signals) << "Slurm's rule stands: the step signals every process itself";
  EXPECT_TRUE(slurm_plan.end_signal);
  EXPECT_TRUE(slurm_plan.announce);
}

// run_rank in a child process with an end signal due `in_seconds` from now; returns the wait status
// and how long it took.
std::pair<int, double> run_with_end_signal(const std::vector<std::string>& program, long in_seconds) {
  auto started = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    RankRunPlan plan{
        RankRun::supervise, true, false, "test", EndSignal{SIGUSR2, 60, std::time(nullptr) + in_seconds}, false};
    _exit(run_rank(program, plan));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return {status, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()};
}

TEST(RunRank, SendsTheEndSignalWhenDue) {
  // The program exits 7 on USR2, 3 if it never comes.
  std::vector<std::string> program = {
      "sh", "-c", "trap 'exit 7' USR2; i=0; while [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; exit 3"};
  auto [status, took] = run_with_end_signal(program, 1);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7) << "the program got the signal; its own code stands";
  EXPECT_LT(took, 4.0);
  auto [late, late_took] = run_with_end_signal({"sh", "-c", "trap 'exit 7' USR2; sleep 0.3; exit 0"}, -5);
  ASSERT_TRUE(WIFEXITED(late));
  EXPECT_EQ(WEXITSTATUS(late), 0) << "a time already past sends nothing to a program that is only starting";
}

}  // namespace
}  // namespace ezpz::core
