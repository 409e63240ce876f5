// MPI_Finalize that cannot hang yeet after its work is done.
#pragma once

#include <chrono>

namespace ezpz::core::yeet {

// How long MPI_Finalize may take before the process leaves without it.
inline constexpr std::chrono::seconds k_finalize_deadline{5};

// Calls MPI_Finalize and returns `code`. When MPI_Finalize has not returned after `deadline`, says so
// on stderr (each rank that leaves: the one that hangs need not be rank 0), flushes the standard
// streams and ends the process with `code`. By then every rank
// has its copy committed and knows the exit code all ranks agreed on, so nothing is lost; but a rank can
// wait in MPI_Finalize forever: UCX 1.13's TCP transport (MPICH's ch4:ucx over Ethernet) stops
// progressing an interface before its last endpoint is flushed (openucx/ucx#8738), seen here with
// MPICH 4.0.2 in 13 of 45 runs on 2-16 simulated nodes (bench/README.md, "scale"). The launcher sees exit `code`,
// unless ranks that left at different moments make Hydra's mpiexec fail its last PMI exchange (exit 255; docs/yeet.md).
int finalize_within(std::chrono::milliseconds deadline, int rank, int code);

}  // namespace ezpz::core::yeet
