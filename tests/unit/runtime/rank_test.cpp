// Rank discovery per launcher, table-driven, including contradictions and stale outer variables.
#include "ezpz/runtime/rank.hpp"

#include <gtest/gtest.h>

#include "ezpz/util/error.hpp"

namespace ezpz::core {
namespace {

struct Case {
  const char* what;
  std::map<std::string, std::string> env;
  long rank, size, local_rank, local_size, node_rank;
  const char* launcher;
};

void PrintTo(const Case& c, std::ostream* out) {
  *out << c.what;
}

class DiscoverRank : public ::testing::TestWithParam<Case> {};

TEST_P(DiscoverRank, ReadsTheLauncherThatStartedTheProcess) {
  const Case& c = GetParam();
  RankInfo info = discover_rank(table_env(c.env));
  EXPECT_EQ(info.rank, c.rank);
  EXPECT_EQ(info.world_size, c.size);
  EXPECT_EQ(info.local_rank, c.local_rank);
  EXPECT_EQ(info.local_world_size, c.local_size);
  EXPECT_EQ(info.node_rank, c.node_rank);
  EXPECT_EQ(info.launcher, c.launcher);
}

INSTANTIATE_TEST_SUITE_P(
    Launchers, DiscoverRank,
    ::testing::Values(
        Case{"no launcher", {}, 0, 1, 0, 1, 0, "none"},
        Case{"Aurora PALS",
             {{"PALS_RANKID", "13"},
              {"PALS_LOCAL_RANKID", "1"},
              {"PALS_NODEID", "1"},
              {"PMI_RANK", "13"},
              {"PMI_SIZE", "24"},
              {"PMI_LOCAL_RANK", "1"},
              {"PMI_LOCAL_SIZE", "12"}},
             13,
             24,
             1,
             12,
             1,
             "PALS"},
        Case{"Polaris PMI",
             {{"PMI_RANK", "6"}, {"PMI_SIZE", "8"}, {"PMI_LOCAL_RANK", "2"}, {"PMI_LOCAL_SIZE", "4"}},
             6,
             8,
             2,
             4,
             1,
             "PMI"},
        Case{"MPICH Hydra",
             {{"PMI_RANK", "3"}, {"PMI_SIZE", "4"}, {"MPI_LOCALRANKID", "3"}, {"MPI_LOCALNRANKS", "4"}},
             3,
             4,
             3,
             4,
             0,
             "PMI, MPICH"},
        Case{"Open MPI",
             {{"OMPI_COMM_WORLD_RANK", "5"},
              {"OMPI_COMM_WORLD_SIZE", "6"},
              {"OMPI_COMM_WORLD_LOCAL_RANK", "2"},
              {"OMPI_COMM_WORLD_LOCAL_SIZE", "3"},
              {"OMPI_COMM_WORLD_NODE_RANK", "0"},
              {"PMIX_RANK", "5"}},
             5,
             6,
             2,
             3,
             1,
             "Open MPI"},
        Case{"Slurm step",
             {{"SLURM_STEP_ID", "0"},
              {"SLURM_PROCID", "9"},
              {"SLURM_NTASKS", "16"},
              {"SLURM_LOCALID", "1"},
              {"SLURM_NODEID", "1"},
              {"SLURM_STEP_TASKS_PER_NODE", "8(x2)"}},
             9,
             16,
             1,
             8,
             1,
             "Slurm"},
        Case{"Slurm uneven tasks per node",
             {{"SLURM_STEP_ID", "3"},
              {"SLURM_PROCID", "8"},
              {"SLURM_NTASKS", "9"},
              {"SLURM_LOCALID", "0"},
              {"SLURM_NODEID", "2"},
              {"SLURM_STEP_TASKS_PER_NODE", "4(x2),1"}},
             8,
             9,
             0,
             1,
             2,
             "Slurm"},
        // mpiexec inside an sbatch script: the batch step's SLURM_PROCID=0 is inherited and must not win.
        Case{"mpiexec inside a Slurm batch job",
             {{"SLURM_JOB_ID", "7"},
              {"SLURM_PROCID", "0"},
              {"SLURM_NTASKS", "4"},
              {"SLURM_LOCALID", "0"},
              {"PMI_RANK", "2"},
              {"PMI_SIZE", "4"},
              {"MPI_LOCALRANKID", "2"},
              {"MPI_LOCALNRANKS", "4"}},
             2,
             4,
             2,
             4,
             0,
             "PMI, MPICH"},
        // srun --mpi=pmi2 (Slurm 22.05) adds PMI_RANK, PMI_SIZE, PMI_FD and PMI_JOBID to the step's tasks.
        Case{"srun --mpi=pmi2 step",
             {{"SLURM_STEP_ID", "0"},
              {"SLURM_PROCID", "3"},
              {"SLURM_NTASKS", "4"},
              {"SLURM_LOCALID", "1"},
              {"SLURM_NODEID", "1"},
              {"SLURM_STEP_TASKS_PER_NODE", "2(x2)"},
              {"PMI_RANK", "3"},
              {"PMI_SIZE", "4"},
              {"PMI_FD", "13"}},
             3,
             4,
             1,
             2,
             1,
             "Slurm"},
        Case{"srun --mpi=pmix step",
             {{"SLURM_STEP_ID", "0"},
              {"SLURM_PROCID", "2"},
              {"SLURM_NTASKS", "4"},
              {"SLURM_LOCALID", "0"},
              {"SLURM_NODEID", "1"},
              {"SLURM_STEP_TASKS_PER_NODE", "2(x2)"},
              {"PMIX_RANK", "2"}},
             2,
             4,
             0,
             2,
             1,
             "Slurm"},
        // mpiexec (Hydra) inside an srun step: its own ranks, even where one matches the step's SLURM_PROCID.
        Case{"mpiexec inside an srun step",
             {{"SLURM_STEP_ID", "0"},
              {"SLURM_PROCID", "0"},
              {"SLURM_NTASKS", "1"},
              {"SLURM_LOCALID", "0"},
              {"SLURM_NODEID", "0"},
              {"PMI_RANK", "0"},
              {"PMI_SIZE", "4"},
              {"MPI_LOCALRANKID", "0"},
              {"MPI_LOCALNRANKS", "4"}},
             0,
             4,
             0,
             4,
             0,
             "PMI, MPICH"},
        Case{"batch step only: not a rank",
             {{"SLURM_JOB_ID", "7"}, {"SLURM_PROCID", "0"}, {"SLURM_LOCALID", "0"}},
             0,
             1,
             0,
             1,
             0,
             "none"},
        Case{"torchrun / ezpz launch",
             {{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "2"}},
             1,
             2,
             1,
             2,
             0,
             "torchrun"},
        Case{"one rank needs no local variables", {{"PMIX_RANK", "0"}, {"PMI_SIZE", "1"}}, 0, 1, 0, 1, 0, "PMIx"}));

struct Bad {
  const char* what;
  std::map<std::string, std::string> env;
  const char* message;
};

void PrintTo(const Bad& c, std::ostream* out) {
  *out << c.what;
}

class DiscoverRankFails : public ::testing::TestWithParam<Bad> {};

TEST_P(DiscoverRankFails, NamesTheVariables) {
  try {
    discover_rank(table_env(GetParam().env));
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_NE(error.diagnostics()[0].message.find(GetParam().message), std::string::npos)
        << error.diagnostics()[0].message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Problems, DiscoverRankFails,
    ::testing::Values(
        Bad{"PALS and PMI disagree",
            {{"PALS_RANKID", "2"}, {"PMI_RANK", "1"}, {"PMI_SIZE", "4"}},
            "launcher variables disagree on the rank: PALS_RANKID=2 but PMI_RANK=1"},
        Bad{"not a number", {{"PMI_RANK", "x"}, {"PMI_SIZE", "4"}}, "PMI_RANK='x' is not a number"},
        // A number over the cap is not "not a number"; bytes that would drive a terminal are shown escaped.
        Bad{"over the cap", {{"RANK", "2147483647"}, {"WORLD_SIZE", "4"}}, "RANK='2147483647' is over 999999999"},
        Bad{"terminal bytes", {{"PMI_RANK", "\033]0;x\007"}, {"PMI_SIZE", "4"}}, "PMI_RANK='\\x1b]0;x\\x07'"},
        Bad{"rank beyond the world",
            {{"RANK", "4"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "0"}, {"LOCAL_WORLD_SIZE", "1"}},
            "launcher variables contradict each other: RANK=4, WORLD_SIZE=4"},
        Bad{"no local rank",
            {{"PMI_RANK", "1"}, {"PMI_SIZE", "4"}},
            "cannot tell this process's local rank from the PMI launcher: none of 'PALS_LOCAL_RANKID', "
            "'OMPI_COMM_WORLD_LOCAL_RANK', 'PMI_LOCAL_RANK' or 'MPI_LOCALRANKID' is set"},
        Bad{"no world size",
            {{"PMIX_RANK", "1"}},
            "cannot tell this process's world size from the PMIx launcher: none of 'PMI_SIZE' or "
            "'OMPI_COMM_WORLD_SIZE' is set"},
        Bad{"malformed tasks per node",
            {{"SLURM_STEP_ID", "0"},
             {"SLURM_PROCID", "1"},
             {"SLURM_NTASKS", "8"},
             {"SLURM_LOCALID", "1"},
             {"SLURM_NODEID", "0"},
             {"SLURM_STEP_TASKS_PER_NODE", "4(y2)"}},
            "SLURM_STEP_TASKS_PER_NODE='4(y2)' is not a list of task counts"},
        Bad{"Slurm without a node index",
            {{"SLURM_STEP_ID", "0"}, {"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "8"}, {"SLURM_LOCALID", "1"}},
            "it needs 'SLURM_STEP_TASKS_PER_NODE' and 'SLURM_NODEID'"},
        Bad{"torchrun without a world size", {{"RANK", "1"}, {"LOCAL_RANK", "1"}}, "none of 'WORLD_SIZE' is set"}));

}  // namespace
}  // namespace ezpz::core
