// ezpz/runtime.hpp: what a rank is, from the environment its launcher gave it, and everything it
// needs to join a torch.distributed job: device, backend and rendezvous. The code behind `ezpz exec`
// and ezpz.setup_torch(); no LibTorch.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ezpz/catalog.hpp"

namespace ezpz {

// A process's place in a job.
struct RankInfo {
  long rank = 0;
  long world_size = 1;
  long local_rank = 0;
  long local_world_size = 1;
  long node_rank = 0;
  std::string launcher;                // "PALS", "Open MPI", "MPICH", "Slurm", "torchrun" … "none" for a lone process
  std::vector<std::string> variables;  // the variables the values came from
};

// The rank from the launcher's variables in `env`: MPI launchers (PALS, Open MPI, MPICH, PMI, PMIx)
// first, then a Slurm step, then torchrun's RANK/WORLD_SIZE; a process with none of them is rank 0 of
// 1. Throws Error naming the variables when they are incomplete, malformed or contradict each other.
RankInfo discover_rank(const std::map<std::string, std::string>& env);

// Everything a rank sets up before it joins the job.
struct RankSetup {
  RankInfo rank;
  std::string system;           // the profile whose facts were used
  std::string scheduler;        // its scheduler: "pbs", "slurm", "none" …
  bool generic_system = false;  // a generic profile (local, slurm, pbs: one a named machine's rules did not claim)
  std::string device;           // torch device: "cuda:0", "xpu:3", "cpu"
  std::string backend;          // torch.distributed backend: nccl | xccl | gloo | mpi
  std::string master_addr;      // the rendezvous: rank 0's host
  std::string master_port;
  long nodes = 1;                  // the nodes the job's ranks span: ceil(world_size / local_world_size)
  std::string job_id;              // the scheduler's job id (PBS_JOBID, SLURM_JOB_ID …); "" outside a job
  std::vector<std::string> hosts;  // the allocation's hosts in order, each once; empty outside a job
  long gpus_per_node = 0;          // accelerators of the chosen kind on this node; 0 when the device is the cpu
  // The variables `ezpz exec` exports, in its order: the rank's identity (RANK, LOCAL_RANK, WORLD_SIZE,
  // LOCAL_WORLD_SIZE, NODE_RANK), the rendezvous, the device (its visibility variable when it narrows
  // it, TORCH_DEVICE), TORCH_BACKEND, the profile's backend variables the job has not set, and
  // EZPZ_RANK_MARK (docs/runtime-env.md lists them).
  std::vector<std::pair<std::string, std::string>> exports;
  std::vector<std::string> notes;  // where each decision came from
};

// The setup of the rank whose environment is `env`. The system is $EZPZ_SYSTEM in `env`, else the one
// `catalog` detects from `env` and `hostname` ("" = this machine's name; the `local` profile matches
// any machine no other profile claims). Devices are looked for under `device_root` (/dev and /sys; a
// fake tree in tests). `hosts` are read here only (`ezpz exec` does not need them): a host file that
// cannot be read leaves them empty, with a note. Throws Error for anything that would make ranks
// disagree or hang: contradictory launcher variables, a multi-node job without a host list or
// MASTER_ADDR, an unknown EZPZ_TORCH_BACKEND.
RankSetup rank_setup(const Catalog& catalog, const std::map<std::string, std::string>& env,
                     const std::string& hostname = {}, const std::string& device_root = "/");

}  // namespace ezpz
