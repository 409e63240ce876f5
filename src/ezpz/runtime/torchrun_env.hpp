// torchrun's contract with a rank: the variables its elastic agent gives every worker besides the rank's
// identity and the rendezvous, so that a program that asks whether torchrun started it
// (torch.distributed.is_torchelastic_launched()) or reads GROUP_RANK and ROLE_* finds what torchrun
// would have given it. Source: torch/distributed/elastic/agent/server/local_elastic_agent.py
// (_start_workers) and torch/distributed/run.py (OMP_NUM_THREADS), PyTorch 1.13.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ezpz/runtime.hpp"
#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

// What every rank knows of its launch without talking to the others.
struct TorchrunFacts {
  RankInfo rank;
  long nodes = 1;      // torchrun's worker groups: one per node
  std::string job_id;  // "" outside a job
  std::string master_addr;
  std::string master_port;
};

// The run id every rank of a launch agrees on: the job id (as torchrun's documented --rdzv_id=$JOB_ID),
// else the rendezvous "MASTER_ADDR:MASTER_PORT".
std::string torchrun_run_id(const TorchrunFacts& facts);

// Appends to `exports` torchrun's variables for this rank, in its agent's order: GROUP_RANK,
// GROUP_WORLD_SIZE, ROLE_RANK, ROLE_WORLD_SIZE, ROLE_NAME, TORCHELASTIC_RESTART_COUNT,
// TORCHELASTIC_MAX_RESTARTS, TORCHELASTIC_RUN_ID, TORCHELASTIC_USE_AGENT_STORE (False: rank 0 hosts the
// store); then OMP_NUM_THREADS=1 when the node has more than one rank and neither `env` nor `exports`
// sets it. The restart counts are `env`'s when they are whole numbers (`ezpz launch --retries` sets them
// for each attempt), else 0. Under torchrun itself (TORCHELASTIC_RUN_ID set and the rank read from
// torchrun's variables) its agent's values stand and only OMP_NUM_THREADS may be added.
void add_torchrun_exports(std::vector<std::pair<std::string, std::string>>& exports, const TorchrunFacts& facts,
                          const EnvLookup& env);

// The variables only torchrun's agent sets (TORCHELASTIC_*, GROUP_*, ROLE_*): what `ezpz launch`
// clears for the ranks it starts, which are not an outer torchrun's workers.
std::vector<std::string> torchrun_agent_variables();

// The restart variables `ezpz launch` sets before each attempt (attempt 0 is the first).
std::vector<std::pair<std::string, std::string>> torchrun_restart_variables(long attempt, long max_restarts);

}  // namespace ezpz::core
