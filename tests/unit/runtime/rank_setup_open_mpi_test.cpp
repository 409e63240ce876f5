// What `ezpz exec` exports under Open MPI's mpirun on a simulated Sophia (PBS Pro, DGX A100 nodes):
// rank variables OMPI_COMM_WORLD_*, the PBS host file, 8 GPUs per node, nccl, MASTER_ADDR on lab.alcf.anl.gov.
#include "ezpz/runtime/rank_setup.hpp"

#include <gtest/gtest.h>

#include "runtime_support.hpp"

namespace ezpz::core {
namespace {

// Host names are examples in the form the Python ezpz recognises ('sophia…'); the job id is made up.
const char* const k_job_id = "31415.sophia-pbs-01.lab.alcf.anl.gov";

std::map<std::string, std::string> open_mpi_rank(long rank, long size, long local_rank, long local_size,
                                                 const std::string& nodefile) {
  return {{"OMPI_COMM_WORLD_RANK", std::to_string(rank)},
          {"OMPI_COMM_WORLD_SIZE", std::to_string(size)},
          {"OMPI_COMM_WORLD_LOCAL_RANK", std::to_string(local_rank)},
          {"OMPI_COMM_WORLD_LOCAL_SIZE", std::to_string(local_size)},
          {"PBS_JOBID", k_job_id},
          {"PBS_NODEFILE", nodefile}};
}

std::map<std::string, std::string> exports_on_sophia(std::map<std::string, std::string> variables) {
  auto env = test::rank_setup_on("sophia", std::move(variables));
  return {env.exports.begin(), env.exports.end()};
}

TEST(RankSetupOpenMpi, SophiaRankOnTheSecondNode) {
  std::string hosts = test::temp_file("ezpz-sophia-nodes", "sophia-gpu-07\nsophia-gpu-11\n");
  auto env = exports_on_sophia(open_mpi_rank(9, 16, 1, 8, hosts));
  EXPECT_EQ(env["RANK"], "9");
  EXPECT_EQ(env["LOCAL_RANK"], "1");
  EXPECT_EQ(env["WORLD_SIZE"], "16");
  EXPECT_EQ(env["LOCAL_WORLD_SIZE"], "8");
  EXPECT_EQ(env["NODE_RANK"], "1") << "Open MPI names no node index: rank / ranks per node";
  EXPECT_EQ(env["MASTER_ADDR"], "sophia-gpu-07.lab.alcf.anl.gov");
  EXPECT_EQ(env["MASTER_PORT"], std::to_string(port_for_job(k_job_id)));
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "1");
  EXPECT_EQ(env["TORCH_DEVICE"], "cuda:0");
  EXPECT_EQ(env["TORCH_BACKEND"], "nccl");
}

TEST(RankSetupOpenMpi, EveryLocalRankGetsItsOwnGpu) {
  std::string hosts = test::temp_file("ezpz-sophia-one", "sophia-gpu-03\n");
  for (long local = 0; local < 8; ++local) {
    auto env = exports_on_sophia(open_mpi_rank(local, 8, local, 8, hosts));
    EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], std::to_string(local));
    EXPECT_EQ(env["NODE_RANK"], "0");
  }
}

TEST(RankSetupOpenMpi, AFullyQualifiedHostFileGivesTheSameMasterAddr) {
  std::string hosts =
      test::temp_file("ezpz-sophia-fqdn", "sophia-gpu-07.lab.alcf.anl.gov\nsophia-gpu-11.lab.alcf.anl.gov\n");
  auto env = exports_on_sophia(open_mpi_rank(0, 16, 0, 8, hosts));
  EXPECT_EQ(env["MASTER_ADDR"], "sophia-gpu-07.lab.alcf.anl.gov");
}

TEST(RankSetupOpenMpi, ByGpuJobChoosesAmongTheGpusPbsGave) {
  // by-gpu: PBS gives the job some GPUs of a node; the ranks share them out by local rank.
  std::string hosts = test::temp_file("ezpz-sophia-by-gpu", "sophia-gpu-05\n");
  auto variables = open_mpi_rank(1, 4, 1, 4, hosts);
  variables["CUDA_VISIBLE_DEVICES"] = "4,5,6,7";
  auto env = exports_on_sophia(variables);
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "5");
  EXPECT_EQ(env["TORCH_DEVICE"], "cuda:0");
}

TEST(RankSetupOpenMpi, OpenMpiVariablesWinOverAStaleOuterRank) {
  // A torchrun-style RANK left in the job's environment must not override the launcher's own rank.
  std::string hosts = test::temp_file("ezpz-sophia-stale", "sophia-gpu-01\nsophia-gpu-02\n");
  auto variables = open_mpi_rank(12, 16, 4, 8, hosts);
  variables["RANK"] = "0";
  variables["WORLD_SIZE"] = "16";
  auto env = exports_on_sophia(variables);
  EXPECT_EQ(env["RANK"], "12");
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "4");
}

}  // namespace
}  // namespace ezpz::core
