// `ezpz launch --spare-nodes K`: the failover loop (runtime/failover.hpp) wired to this allocation, its
// scheduler, its launcher and the job's record.
#pragma once

#include <string>
#include <vector>

#include "ezpz/cli/job_options.hpp"
#include "ezpz/runtime/failover.hpp"

namespace ezpz::core {

struct SpareNodeLaunch {
  std::string system;
  std::vector<std::string> command;                      // the launcher command with {hostfile} / {hosts}
  std::vector<std::pair<std::string, std::string>> env;  // set for the launcher (LaunchPlan::env)
  std::string hostfile;                                  // --hostfile: the allocation's hosts from there
  long probe_timeout = 60;                               // seconds; 0: no health probe
  FailoverPolicy policy;
};

// Runs the launch with spare nodes; returns its exit code. Prints one line per decision and records
// it with the job (submit/job_record.hpp, decisions_path) when there is a job id.
int launch_with_spare_nodes(const Installation& installation, const SpareNodeLaunch& launch,
                            const Supervision& supervision);

}  // namespace ezpz::core
