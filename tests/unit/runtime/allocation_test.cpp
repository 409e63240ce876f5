// Hosts of the allocation from hostile variables and files: bounded, named, and not read at all when
// MASTER_ADDR already says where the rendezvous is.
#include "ezpz/runtime/allocation.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ezpz/util/error.hpp"
#include "ezpz/util/limits.hpp"
#include "runtime_support.hpp"

namespace ezpz::core {
namespace {

// A FIFO, a directory and a file over the host-file cap (sparse: no disk used) in a fresh directory.
struct HostileFiles {
  std::string dir;
  std::string fifo;
  std::string large;
  HostileFiles() {
    dir = (std::filesystem::temp_directory_path() / ("ezpz-allocation-" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir);
    fifo = dir + "/fifo";
    ::mkfifo(fifo.c_str(), 0600);
    large = dir + "/large";
    std::ofstream(large) << "n1\n";
    std::filesystem::resize_file(large, k_max_hostfile_bytes + 1);
  }
  ~HostileFiles() { std::filesystem::remove_all(dir); }
  std::vector<std::string> all() const { return {fifo, dir, "/dev/zero", large}; }
};

Diagnostic allocation_error(std::map<std::string, std::string> variables) {
  try {
    current_allocation(table_env(std::move(variables)));
  } catch (const UserError& error) {
    return error.diagnostics().front();
  }
  ADD_FAILURE() << "no error";
  return {};
}

// The 213-byte SLURM_JOB_NODELIST expanded to gigabytes and aborted: now counted first, and
// the error names the variable.
TEST(Allocation, AHostListOfBillionsIsAnErrorNamingTheVariable) {
  for (const char* list : {"n[0-99999999999]", "a[0-99999]b[0-99999]", "n[0-999999999999999999],m[0-9]"}) {
    Diagnostic d = allocation_error({{"SLURM_JOB_NODELIST", list}});
    EXPECT_EQ(d.message, "host list expands to more than " + std::to_string(k_max_hosts) + " names") << list;
    ASSERT_TRUE(d.loc.known()) << list;
    EXPECT_EQ(d.loc.file->name, "SLURM_JOB_NODELIST");
  }
  std::string long_names = std::string(190, 'x') + "[0-9999999]";  // 10,000,000 names, 2 GB
  Diagnostic d = allocation_error({{"SLURM_STEP_NODELIST", long_names}});
  EXPECT_NE(d.message.find("host list expands to more than"), std::string::npos) << d.message;
  ASSERT_TRUE(d.loc.known());
  EXPECT_EQ(d.loc.file->name, "SLURM_STEP_NODELIST");
}

TEST(Allocation, AHostFileThatIsNotARegularFileIsAnErrorNamingTheVariable) {
  HostileFiles files;
  for (const auto& path : files.all()) {
    Diagnostic d = allocation_error({{"PBS_NODEFILE", path}});
    EXPECT_EQ(d.message.rfind("cannot read the host file PBS_NODEFILE=" + path + ": ", 0), 0u) << d.message;
  }
}

TEST(Allocation, AHostFileWithTooManyHostsIsAnError) {
  std::string text;
  for (size_t i = 0; i <= k_max_hosts; ++i) text += "n" + std::to_string(i) + "\n";
  std::string path = test::temp_file("ezpz-many-hosts", text);
  Diagnostic d = allocation_error({{"PBS_NODEFILE", path}});
  EXPECT_EQ(d.message, "the host file PBS_NODEFILE=" + path + " names more than " + std::to_string(k_max_hosts) +
                           " different hosts");
}

// `ezpz exec` with MASTER_ADDR set needs no host: a FIFO, a directory, /dev/zero or a huge file as
// PBS_NODEFILE is not even opened (it was, and made exec fail, or hang before files were checked).
TEST(Allocation, ExecWithMasterAddrReadsNoHostFile) {
  HostileFiles files;
  for (const auto& path : files.all()) {
    RankSetup env = test::rank_setup_on("pbs", {{"PMI_RANK", "4"},
                                                {"PMI_SIZE", "8"},
                                                {"PMI_LOCAL_RANK", "0"},
                                                {"PMI_LOCAL_SIZE", "4"},
                                                {"PBS_JOBID", "7.server"},
                                                {"PBS_NODEFILE", path},
                                                {"MASTER_ADDR", "10.0.0.1"}});
    EXPECT_EQ(env.master_addr, "10.0.0.1") << path;
    EXPECT_EQ(env.master_port, std::to_string(port_for_job("7.server"))) << "the job id is still read";
  }
  RankSetup env = test::rank_setup_on("slurm", {{"SLURM_STEP_ID", "0"},
                                                {"SLURM_PROCID", "0"},
                                                {"SLURM_NTASKS", "2"},
                                                {"SLURM_LOCALID", "0"},
                                                {"SLURM_NODEID", "0"},
                                                {"SLURM_STEP_TASKS_PER_NODE", "1(x2)"},
                                                {"SLURM_JOB_NODELIST", "n[0-99999999999]"},
                                                {"MASTER_ADDR", "n0"}});
  EXPECT_EQ(env.master_addr, "n0");
}

// Without MASTER_ADDR the host file is needed, and read through the bounded reader.
TEST(Allocation, ExecWithoutMasterAddrNamesTheBadHostFile) {
  HostileFiles files;
  for (const auto& path : files.all()) {
    try {
      test::rank_setup_on("pbs", {{"PMI_RANK", "4"},
                                  {"PMI_SIZE", "8"},
                                  {"PMI_LOCAL_RANK", "0"},
                                  {"PMI_LOCAL_SIZE", "4"},
                                  {"PBS_NODEFILE", path}});
      ADD_FAILURE() << "no error for " << path;
    } catch (const UserError& error) {
      EXPECT_NE(std::string(error.what()).find("PBS_NODEFILE=" + path), std::string::npos) << error.what();
    }
  }
}

}  // namespace
}  // namespace ezpz::core
