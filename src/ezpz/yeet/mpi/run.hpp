// One yeet run over MPI_COMM_WORLD: rank 0 scans and reads the source, every rank stages its own copy.
#pragma once

#include "ezpz/yeet/options.hpp"

namespace ezpz::core::yeet {

// Collective over MPI_COMM_WORLD (MPI must be initialised). Every rank returns the same exit code:
// 0 when at least --min-success nodes succeeded, 1 otherwise. Rank 0 prints progress and the summary
// on stderr.
int run_yeet(const Options& options);

}  // namespace ezpz::core::yeet
