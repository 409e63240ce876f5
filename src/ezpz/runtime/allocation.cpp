// Allocation hosts from the scheduler's variables, in one table.
#include "ezpz/runtime/allocation.hpp"

#include <fstream>
#include <iterator>

#include "ezpz/runtime/hostlist.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/limits.hpp"

namespace ezpz::core {
namespace {

struct HostSource {
  const char* variable;
  bool is_file;  // a nodefile path, else a Slurm host list
};

// EZPZ_HOSTFILE first: `ezpz launch --hostfile F` exports it so every rank agrees on the first host.
// EZPZ_HOSTS: the hosts of a spare-node launch's attempt (ezpz launch --spare-nodes).
const HostSource k_host_sources[] = {{"EZPZ_HOSTS", false},         {"EZPZ_HOSTFILE", true},
                                     {"PBS_NODEFILE", true},        {"SLURM_STEP_NODELIST", false},
                                     {"SLURM_JOB_NODELIST", false}, {"SLURM_NODELIST", false}};
const char* const k_job_id_variables[] = {"PBS_JOBID", "SLURM_JOB_ID", "EZPZ_JOB_ID"};

std::vector<std::string> read_hostfile(const std::string& path, const std::string& what) {
  std::vector<std::string> hosts = read_nodefile(
      read_regular_file(path, "the host file " + what, k_max_hostfile_bytes, "check that the file exists on this node"),
      "the host file " + what);
  // An empty one would silently become a one-node launch.
  if (hosts.empty()) throw UserError("the host file " + what + " names no hosts", "a host file has one host name per line");
  return hosts;
}

}  // namespace

std::string current_job_id(const EnvLookup& env) {
  for (const char* variable : k_job_id_variables) {
    if (auto id = env(variable); id && !id->empty()) return *id;
  }
  return {};
}

Allocation current_allocation(const EnvLookup& env, const std::string& hostfile) {
  Allocation allocation;
  allocation.job_id = current_job_id(env);
  if (!hostfile.empty()) {
    allocation.hosts = read_hostfile(hostfile, "'" + hostfile + "'");
    allocation.hosts_from = "--hostfile " + hostfile;
    return allocation;
  }
  for (const auto& source : k_host_sources) {
    auto value = env(source.variable);
    if (!value || value->empty()) continue;
    std::string what = std::string(source.variable) + "=" + *value;
    allocation.hosts = source.is_file ? read_hostfile(*value, what) : expand_hostlist(*value, source.variable);
    allocation.hosts_from = what;
    break;
  }
  return allocation;
}

}  // namespace ezpz::core
