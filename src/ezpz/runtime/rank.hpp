// Which rank this process is, from the variables its launcher set (PALS, Open MPI, MPICH/PMI, PMIx,
// Slurm, torchrun), read from one table.
#pragma once

#include <string>
#include <vector>

#include "ezpz/runtime.hpp"
#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

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
