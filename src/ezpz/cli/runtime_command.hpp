// What the runtime commands (exec, launch, test) share: the system they run on and the exec step.
#pragma once

#include <string>
#include <vector>

#include "ezpz/cli/job_options.hpp"

namespace ezpz::core {

// The system name for runtime commands: --system, else EZPZ_SYSTEM (exported by rendered scripts),
// else detection on this machine.
std::string runtime_system(const Installation& installation, const std::string& flag);

// Exports this rank's environment (runtime/rank_setup.hpp) and replaces the process with
// `program` (same PID, so signals and the exit code pass straight through). With `print_only`, prints
// the exports as shell lines on stdout and how they were decided on stderr, and returns 0.
// Returns 127 when the program is not found, 126 when it cannot be executed (as shells do).
int exec_rank(const Installation& installation, const std::string& system, const std::vector<std::string>& program,
              bool print_only);

// A program installed beside the ezpz binary (ezpz-torch-test, ezpz-yeet-mpi), or the one the
// environment variable `variable` names. Throws UserError with `hint` (how to get it) when missing.
std::string companion_program(const Installation& installation, const std::string& name, const char* variable,
                              const std::string& hint);

}  // namespace ezpz::core
