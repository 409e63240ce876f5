// Fail fast in `ezpz exec`: the rendezvous host check (with a table resolver, no DNS), how each
// launcher's ranks are run, and a supervised program's exit status.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ezpz/runtime/rank_setup.hpp"
#include "ezpz/runtime/rank_supervisor.hpp"
#include "runtime_support.hpp"

namespace ezpz::core {
namespace {

using Variables = std::map<std::string, std::string>;

RankSetup on(const std::string& system, std::map<std::string, std::string> variables) {
  return test::rank_setup_on(system, std::move(variables));
}

std::string nodefile(const std::string& text) {
  return test::temp_file("ezpz-fail-fast-nodes", text);
}

// MPICH Hydra rank `rank` of 4, 2 per node.
Variables hydra_rank(int rank, Variables more = {}) {
  Variables variables = {{"PMI_RANK", std::to_string(rank)},
                         {"PMI_SIZE", "4"},
                         {"MPI_LOCALRANKID", std::to_string(rank % 2)},
                         {"MPI_LOCALNRANKS", "2"}};
  variables.insert(more.begin(), more.end());
  return variables;
}

struct HostCase {
  const char* name;
  const char* system;
  Variables variables;
  bool looked_up;       // whether the resolver is asked at all
  std::string message;  // "" when the check passes, else the whole error message
};

TEST(RendezvousHost, CheckedOncePerNodeOnMultiNodeJobsOnly) {
  std::string hosts = nodefile("no-such-host.invalid\nn2\n");
  const HostCase cases[] = {
      {"multi-node, first host missing", "pbs", hydra_rank(2, {{"PBS_NODEFILE", hosts}}), true,
       "MASTER_ADDR 'no-such-host' does not resolve on this node (Name or service not known); it comes from the "
       "first host 'no-such-host' of PBS_NODEFILE=" +
           hosts + " in master_addr '{first_host}' of profile 'pbs'"},
      {"multi-node, local rank 1 leaves it to local rank 0", "pbs", hydra_rank(3, {{"PBS_NODEFILE", hosts}}), false,
       ""},
      {"multi-node, MASTER_ADDR exported", "pbs", hydra_rank(0, {{"MASTER_ADDR", "rank0.invalid"}}), true,
       "MASTER_ADDR 'rank0.invalid' does not resolve on this node (Name or service not known); it comes from "
       "MASTER_ADDR set in the environment"},
      {"multi-node, host resolves",
       "slurm",
       {{"SLURM_STEP_ID", "0"},
        {"SLURM_PROCID", "2"},
        {"SLURM_NTASKS", "4"},
        {"SLURM_LOCALID", "0"},
        {"SLURM_NODEID", "1"},
        {"SLURM_STEP_TASKS_PER_NODE", "2(x2)"},
        {"SLURM_JOB_NODELIST", "n[1-2]"}},
       true,
       ""},
      {"single node, no lookup",
       "pbs",
       {{"PMI_RANK", "0"},
        {"PMI_SIZE", "2"},
        {"MPI_LOCALRANKID", "0"},
        {"MPI_LOCALNRANKS", "2"},
        {"MASTER_ADDR", "no-such-host.invalid"}},
       false,
       ""},
      {"no launcher, no lookup", "local", {}, false, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> asked;
    HostResolver resolver = [&](const std::string& host) -> std::optional<std::string> {
      asked.push_back(host);
      if (host == "n1") return std::nullopt;
      return std::string("Name or service not known");
    };
    RankSetup rank_env = on(c.system, c.variables);
    std::string message;
    try {
      check_rendezvous_host(rank_env, resolver);
    } catch (const UserError& error) {
      message = error.diagnostics()[0].message;
      EXPECT_NE(error.diagnostics()[0].hint.find("export MASTER_ADDR"), std::string::npos);
    }
    EXPECT_EQ(message, c.message);
    EXPECT_EQ(asked.size(), c.looked_up ? 1u : 0u);
  }
}

TEST(RendezvousHost, SystemResolverAnswersLiteralAddressesAndRejectsInvalidNames) {
  HostResolver resolve = system_host_resolver();
  EXPECT_EQ(resolve("127.0.0.1"), std::nullopt);
  EXPECT_EQ(resolve("localhost"), std::nullopt);
  EXPECT_NE(resolve("no-such-host.invalid"), std::nullopt) << "RFC 6761: .invalid never resolves";
}

struct RunCase {
  const char* name;
  Variables variables;
  RankRun run;
  bool forward_signals;
  bool pmi_client;
};

TEST(RankRunPlan, SupervisedWhereTheLauncherNeedsIt) {
  const RunCase cases[] = {
      {"srun step task",
       {{"SLURM_STEP_ID", "0"},
        {"SLURM_PROCID", "1"},
        {"SLURM_NTASKS", "2"},
        {"SLURM_LOCALID", "1"},
        {"SLURM_NODEID", "0"},
        {"SLURM_STEP_TASKS_PER_NODE", "2"}},
       RankRun::supervise,
       false,
       false},
      {"srun --mpi=pmi2 task",
       {{"SLURM_STEP_ID", "0"},
        {"SLURM_PROCID", "1"},
        {"SLURM_NTASKS", "2"},
        {"SLURM_LOCALID", "1"},
        {"SLURM_NODEID", "0"},
        {"SLURM_STEP_TASKS_PER_NODE", "2"},
        {"PMI_RANK", "1"},
        {"PMI_SIZE", "2"},
        {"PMI_FD", "5"}},
       RankRun::supervise,
       false,
       false},
      {"MPICH Hydra rank", hydra_rank(1, {{"PMI_FD", "6"}}), RankRun::supervise, true, true},
      {"Hydra-like variables without a PMI connection", hydra_rank(1), RankRun::exec, false, false},
      {"PALS rank (PALS aborts by default)",
       {{"PALS_RANKID", "1"},
        {"PMI_RANK", "1"},
        {"PMI_SIZE", "2"},
        {"PALS_LOCAL_RANKID", "1"},
        {"PALS_LOCAL_SIZE", "2"}},
       RankRun::exec,
       false,
       false},
      {"Open MPI rank (mpirun aborts by default)",
       {{"OMPI_COMM_WORLD_RANK", "1"},
        {"OMPI_COMM_WORLD_SIZE", "2"},
        {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
        {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
        {"PMIX_RANK", "1"}},
       RankRun::exec,
       false,
       false},
      {"ezpz launch (local) rank",
       {{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "2"}},
       RankRun::exec,
       false,
       false},
      {"no launcher", {}, RankRun::exec, false, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EnvLookup env = table_env(c.variables);
    RankRunPlan plan = rank_run_plan(discover_rank(env), env);
    EXPECT_EQ(plan.run, c.run);
    EXPECT_EQ(plan.forward_signals, c.forward_signals);
    EXPECT_EQ(plan.pmi_client, c.pmi_client);
    EXPECT_EQ(plan.reason.empty(), c.run == RankRun::exec);
  }
}

// Runs run_rank in a child process (it may end by a signal) and returns the raw wait status. With
// `after_ms`, sends `sig` that long after the start: to the whole process group, as Slurm's step
// tracking does, or to ezpz exec alone, as Hydra's proxy does.
struct Signal {
  int after_ms = -1;
  int sig = SIGTERM;
  bool group = true;
};

int supervised_status(const std::vector<std::string>& program, bool forward, Signal signal = {}) {
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    RankRunPlan plan{RankRun::supervise, forward, false, "test"};
    _exit(run_rank(program, plan));
  }
  setpgid(pid, pid);
  if (signal.after_ms >= 0) {
    usleep(signal.after_ms * 1000);
    kill(signal.group ? -pid : pid, signal.sig);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST(RunRank, SupervisedProgramsExitStatus) {
  int failed = supervised_status({"sh", "-c", "exit 3"}, false);
  ASSERT_TRUE(WIFEXITED(failed));
  EXPECT_EQ(WEXITSTATUS(failed), 3) << "the program's own code";

  int crashed = supervised_status({"sh", "-c", "kill -USR1 $$"}, false);
  ASSERT_TRUE(WIFSIGNALED(crashed)) << "a program killed by a signal kills ezpz exec with it";
  EXPECT_EQ(WTERMSIG(crashed), SIGUSR1);

  int missing = supervised_status({"/nonexistent/program"}, false);
  ASSERT_TRUE(WIFEXITED(missing));
  EXPECT_EQ(WEXITSTATUS(missing), 127);

  int stopped = supervised_status({"sleep", "30"}, false, {300, SIGTERM, true});
  ASSERT_TRUE(WIFEXITED(stopped)) << "SIGTERM from outside does not kill the supervisor";
  EXPECT_EQ(WEXITSTATUS(stopped), 1) << "a stopped rank neither hides the failing rank's code nor reports success";
}

TEST(RunRank, ForwardsSignalsOnlyWhereTheLauncherSignalsEzpzAlone) {
  std::vector<std::string> program = {"sh", "-c", "trap 'exit 5' USR1; sleep 1; sleep 1; exit 9"};
  int forwarded = supervised_status(program, true, {300, SIGUSR1, false});
  ASSERT_TRUE(WIFEXITED(forwarded));
  EXPECT_EQ(WEXITSTATUS(forwarded), 5);
  int kept = supervised_status(program, false, {300, SIGUSR1, false});
  ASSERT_TRUE(WIFEXITED(kept));
  EXPECT_EQ(WEXITSTATUS(kept), 9) << "under Slurm the step's tracking signals the program itself";
}

TEST(RunRank, ProgramDiesWithItsSupervisor) {
  auto pid_file = std::filesystem::temp_directory_path() / ("ezpz-fail-fast-pid-" + std::to_string(::getpid()));
  std::filesystem::remove(pid_file);
  supervised_status({"sh", "-c", "echo $$ > " + pid_file.string() + "; exec sleep 30"}, true, {300, SIGKILL, false});
  std::string pid;
  std::ifstream(pid_file) >> pid;
  ASSERT_FALSE(pid.empty());
  // Gone or a zombie (reaped by whichever process inherited it).
  auto alive = [&] {
    std::string stat;
    std::getline(std::ifstream("/proc/" + pid + "/stat"), stat);
    return !stat.empty() && stat.substr(stat.rfind(')') + 2, 1) != "Z";
  };
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = !alive();
    if (!gone) usleep(20000);
  }
  EXPECT_TRUE(gone) << "PR_SET_PDEATHSIG: Hydra's SIGKILL of ezpz exec leaves no program behind";
  if (!gone) kill(std::stoi(pid), SIGKILL);
  std::filesystem::remove(pid_file);
}

}  // namespace
}  // namespace ezpz::core
