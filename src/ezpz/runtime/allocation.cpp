// Allocation hosts from the variables the schedulers set (their job_env).
#include "ezpz/runtime/allocation.hpp"

#include <fstream>
#include <iterator>

#include "ezpz/util/error.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/handoff_variables.hpp"
#include "ezpz/util/hostlist.hpp"
#include "ezpz/util/limits.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

// Before any scheduler's: EZPZ_HOSTS, the hosts of a spare-node launch's attempt (ezpz launch
// --spare-nodes), and EZPZ_HOSTFILE, which `ezpz launch --hostfile F` exports so every rank agrees on the
// first host.
const JobVariables::Hosts k_ezpz_hosts[] = {{k_env_hosts, false}, {k_env_hostfile, true}};
// After every scheduler's: the id ezpz gives a job no scheduler runs.
const char* const k_ezpz_job_id = k_env_job_id;

std::vector<std::string> read_hostfile(const std::string& path, const std::string& what) {
  std::vector<std::string> hosts = read_nodefile(
      read_regular_file(path, "the host file " + what, k_max_hostfile_bytes, "check that the file exists on this node"),
      "the host file " + what);
  // An empty one would silently become a one-node launch.
  if (hosts.empty())
    throw UserError("the host file " + what + " names no hosts", "a host file has one host name per line");
  return hosts;
}

}  // namespace

std::string host_variable_names(const JobVariables& variables) {
  std::vector<std::string> names;
  for (const auto& source : variables.hosts) names.push_back(source.variable);
  return join(names, ", ");
}

std::string current_job_id(const EnvLookup& env, const JobVariables& variables) {
  for (const auto& variable : variables.job_ids) {
    if (auto id = env(variable); id && !id->empty()) return *id;
  }
  auto id = env(k_ezpz_job_id);
  return id ? *id : std::string();
}

Allocation current_allocation(const EnvLookup& env, const std::string& hostfile, const JobVariables& variables) {
  Allocation allocation;
  allocation.job_id = current_job_id(env, variables);
  if (!hostfile.empty()) {
    allocation.hosts = read_hostfile(hostfile, "'" + hostfile + "'");
    allocation.hosts_from = "--hostfile " + hostfile;
    return allocation;
  }
  std::vector<JobVariables::Hosts> sources(std::begin(k_ezpz_hosts), std::end(k_ezpz_hosts));
  sources.insert(sources.end(), variables.hosts.begin(), variables.hosts.end());
  for (const auto& source : sources) {
    auto value = env(source.variable);
    if (!value || value->empty()) continue;
    std::string what = source.variable + "=" + *value;
    allocation.hosts = source.is_file ? read_hostfile(*value, what) : expand_hostlist(*value, source.variable);
    allocation.hosts_from = what;
    break;
  }
  return allocation;
}

}  // namespace ezpz::core
