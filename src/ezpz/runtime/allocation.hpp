// The current allocation as the scheduler describes it to the job: its hosts and its job id.
#pragma once

#include <string>
#include <vector>

#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

struct Allocation {
  std::vector<std::string> hosts;  // in allocation order, each once
  std::string hosts_from;          // "PBS_NODEFILE=/var/spool/…", "SLURM_JOB_NODELIST=nid[1-2]", "" when none
  std::string job_id;              // "" outside a job
};

// Reads EZPZ_HOSTS (a host list: the hosts a spare-node launch chose), PBS_NODEFILE (a file, one line per slot), else
// SLURM_STEP_NODELIST / SLURM_JOB_NODELIST (host lists); the job id from PBS_JOBID, SLURM_JOB_ID or EZPZ_JOB_ID.
// `hostfile`, when not empty, replaces all of them (ezpz launch --hostfile). Throws UserError naming the variable or
// file when a named file cannot be read, or the hosts are malformed or more than docs/limits.md allows.
Allocation current_allocation(const EnvLookup& env, const std::string& hostfile = {});

// The job id alone (PBS_JOBID, SLURM_JOB_ID or EZPZ_JOB_ID; "" outside a job): reads no host file.
std::string current_job_id(const EnvLookup& env);

}  // namespace ezpz::core
