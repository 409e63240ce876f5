// Which rank this process is, from the variables its launcher set (PALS, Open MPI, MPICH/PMI, PMIx,
// Slurm, torchrun), read from one table.
#pragma once

#include <string>
#include <vector>

#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

struct RankInfo {
  long rank = 0;
  long world_size = 1;
  long local_rank = 0;
  long local_world_size = 1;
  long node_rank = 0;
  std::string launcher;               // "MPICH", "Slurm" … or "none" for a lone process
  std::vector<std::string> variables;  // the variables the values came from, for messages and --print
};

// Discovers this process's rank. The launcher that started the process sets its variables last, so
// families are tried innermost first: MPI launchers (PALS, Open MPI, MPICH, PMI, PMIx), then a Slurm
// step (only where no MPI launcher ran inside it), then torchrun-style RANK/WORLD_SIZE. Within a
// family every variable that is set must agree. A process without any launcher variable is rank 0 of 1.
// Throws UserError naming the variables when they are incomplete, malformed or contradict each other.
RankInfo discover_rank(const EnvLookup& env);

// Every variable of the table above (plus Slurm's step markers): what a launcher nested inside another
// one clears for its ranks, so they do not inherit the outer launcher's identity.
std::vector<std::string> launcher_rank_variables();

}  // namespace ezpz::core
