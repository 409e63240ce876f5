// The current allocation as the scheduler describes it to the job: its hosts and its job id.
#pragma once

#include <string>
#include <vector>

#include "ezpz/profile/catalog.hpp"
#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

struct Allocation {
  std::vector<std::string> hosts;  // in allocation order, each once
  std::string hosts_from;          // "PBS_NODEFILE=/var/spool/…", "SLURM_JOB_NODELIST=nid[1-2]", "" when none
  std::string job_id;              // "" outside a job
};

// Reads EZPZ_HOSTS (a host list: the hosts a spare-node launch chose), EZPZ_HOSTFILE, else the first
// variable set of the schedulers' job_env.nodefile (a file, one line per slot: PBS_NODEFILE) and
// job_env.nodelist (a host list: SLURM_STEP_NODELIST, SLURM_JOB_NODELIST …); the job id from their
// job_env.job_id (PBS_JOBID, SLURM_JOB_ID), else EZPZ_JOB_ID. `hostfile`, when not empty, replaces all of
// them (ezpz launch --hostfile). Throws UserError naming the variable or file when a named file cannot be
// read, or the hosts are malformed or more than docs/limits.md allows.
Allocation current_allocation(const EnvLookup& env, const std::string& hostfile = {},
                              const JobVariables& variables = Catalog::builtin_job_variables());

// The variables that name an allocation's hosts, for messages: "PBS_NODEFILE, SLURM_STEP_NODELIST, …".
std::string host_variable_names(const JobVariables& variables = Catalog::builtin_job_variables());

// The job id alone ("" outside a job): reads no host file.
std::string current_job_id(const EnvLookup& env, const JobVariables& variables = Catalog::builtin_job_variables());

}  // namespace ezpz::core
