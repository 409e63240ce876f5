// The checks about the site: which system this is, its scheduler, the allocation, the rendezvous.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "ezpz/doctor/checks.hpp"
#include "ezpz/profile/detect.hpp"
#include "ezpz/runtime/allocation.hpp"
#include "ezpz/runtime/rank_setup.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

std::string where_it_runs(const JobContext& job) {
  return job.inside() ? "a compute node of job " + job.job_id + " (" + job.variable + ")"
                      : "a login node (no job variable is set)";
}

// Whether a TCP port can be bound on every address here; the error text when it cannot.
std::string bind_problem(long port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return std::strerror(errno);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  int code = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  std::string problem = code == 0 ? std::string() : std::string(std::strerror(errno));
  ::close(fd);
  return problem;
}

}  // namespace

std::vector<Finding> check_system(const DoctorInputs& inputs) {
  const char* name = "system";
  JobContext job = job_context(inputs);
  const SystemProfile* profile = checked_profile(inputs);
  if (profile == nullptr) {
    return {
        error_finding(name, "no system profile matches this machine, on " + where_it_runs(job),
                      "name one with --system NAME (ezpz systems list), or add a profile (docs/adding-a-system.md)")};
  }
  std::vector<Finding> found;
  std::string text = profile->name + " (" + inputs.system_why + "), on " + where_it_runs(job);
  // A profile without a scheduler (local) runs anywhere, inside a job too.
  if (job.inside() && job.scheduler != profile->scheduler && profile->scheduler != "none") {
    found.push_back(
        error_finding(name, text + ", but " + profile->name + " submits with " + profile->scheduler,
                      "this is a " + job.scheduler + " job: choose a system of that scheduler with --system"));
    return found;
  }
  auto detected = detect_system(*inputs.catalog, DetectInput{inputs.env, inputs.node});
  if (detected && detected->system != profile->name) {
    found.push_back(
        warn_finding(name, text + ", but this machine looks like " + detected->system + " (" + detected->reason + ")",
                     "check that --system or EZPZ_SYSTEM names the machine you are on"));
    return found;
  }
  found.push_back(ok_finding(name, text));
  return found;
}

// Only what was skipped: a search path ezpz reads whole is not worth a line.
std::vector<Finding> check_profiles(const DoctorInputs& inputs) {
  std::vector<Finding> found;
  for (const auto& skipped : inputs.catalog->skipped()) {
    found.push_back(warn_finding("profiles", skipped.message(),
                                 "only you or root may own and write a profile directory, its files and the "
                                 "directories above it: chown it, chmod go-w, or take it off the search path"));
  }
  return found;
}

std::vector<Finding> check_scheduler(const DoctorInputs& inputs) {
  const char* name = "scheduler";
  const SystemProfile* profile = checked_profile(inputs);
  if (profile == nullptr) return {};
  const Scheduler& scheduler = inputs.catalog->scheduler(profile->scheduler);
  if (scheduler.ping.empty())
    return {ok_finding(name, profile->name + " has no scheduler: jobs run here (ezpz launch)")};
  auto started = std::chrono::steady_clock::now();
  ProcessResult result = inputs.runner->run(scheduler.ping);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::string command = command_text(scheduler.ping);
  if (result.exit_code == 127) {
    return {error_finding(name,
                          scheduler.ping[0] + " is not on PATH: " + scheduler.name + "'s commands cannot be reached",
                          "run on a login or compute node of " + profile->name + ", or load the scheduler's module")};
  }
  if (result.timed_out) {
    return {
        error_finding(name, command + " did not answer in time",
                      "the " + scheduler.name + " server may be down or unreachable: try again, then ask the site")};
  }
  if (result.exit_code != 0) {
    return {error_finding(
        name, command + " failed (exit code " + std::to_string(result.exit_code) + "): " + first_line(result),
        "the " + scheduler.name + " server refused or is down: ask the site")};
  }
  char took[32];
  std::snprintf(took, sizeof took, "%.2f", seconds);
  return {ok_finding(name, command + " answered in " + took + " s")};
}

std::vector<Finding> check_allocation(const DoctorInputs& inputs) {
  const char* name = "allocation";
  JobContext job = job_context(inputs);
  if (!job.inside()) return {ok_finding(name, "not inside a job: the allocation is checked inside one")};
  Allocation allocation;
  try {
    allocation = current_allocation(inputs.env, {}, inputs.catalog->job_variables());
  } catch (const UserError& error) {
    return {error_finding(name, std::string("cannot read the allocation: ") + error.what(),
                          "see the scheduler's job variables")};
  }
  size_t hosts = allocation.hosts.size();
  if (hosts == 0) {
    return {error_finding(
        name,
        "job " + job.job_id + " names no hosts (none of " + host_variable_names(inputs.catalog->job_variables()) + ")",
        "run the check inside the job's batch script or an interactive job")};
  }
  std::string text = std::to_string(hosts) + " node(s) from " + allocation.hosts_from;
  if (!inputs.job) return {ok_finding(name, text)};
  const ResolvedJob& spec = *inputs.job;
  long wanted = spec.spec.nodes->value;
  std::string asks = "the spec asks for " + std::to_string(wanted) + " node(s) x " +
                     std::to_string(spec.spec.ranks_per_node->value) + " rank(s)";
  if (static_cast<size_t>(wanted) > hosts) {
    return {error_finding(
        name, text + ", but " + asks,
        "ask the scheduler for " + std::to_string(wanted) + " nodes, or set nodes: " + std::to_string(hosts))};
  }
  if (static_cast<size_t>(wanted) < hosts) {
    return {warn_finding(name, text + "; " + asks + ": the rest stay idle",
                         "set nodes: " + std::to_string(hosts) + " to use them")};
  }
  return {ok_finding(name, text + "; " + asks)};
}

std::vector<Finding> check_rendezvous(const DoctorInputs& inputs) {
  const char* name = "rendezvous";
  const SystemProfile* profile = checked_profile(inputs);
  if (profile == nullptr) return {};
  // The address and port every rank of this job would compute (runtime/rank_setup.hpp).
  long nodes = inputs.job ? inputs.job->spec.nodes->value : 1;
  Rendezvous rendezvous;
  try {
    rendezvous = rendezvous_for(inputs.env, profile, nodes, inputs.catalog->job_variables());
  } catch (const UserError& error) {
    return {error_finding(name, error.what(), error.diagnostics().empty() ? "" : error.diagnostics().front().hint)};
  }
  std::string text = "rendezvous at " + rendezvous.addr + ":" + rendezvous.port + " (" + rendezvous.addr_origin + ")";
  // Looked up as the ranks' rendezvous will look it up (ezpz exec checks it the same way).
  if (auto problem = system_host_resolver()(rendezvous.addr)) {
    return {error_finding(name, text + ": the host does not resolve here: " + *problem,
                          "set master_addr in the profile, or MASTER_ADDR, to a name every node resolves")};
  }
  if (std::string problem = bind_problem(std::stol(rendezvous.port)); !problem.empty()) {
    return {warn_finding(name, text + ": the port cannot be bound here (" + problem + ")",
                         "another process holds it; if it is not an earlier run of this job, set MASTER_PORT")};
  }
  return {ok_finding(name, text + ": the host resolves and the port is free")};
}

}  // namespace ezpz::core
