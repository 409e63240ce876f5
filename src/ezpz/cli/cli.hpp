// The ezpz command line: parses arguments, runs one command, maps errors to exit codes.
#pragma once

namespace ezpz::core {

// Returns the process exit code (see util/exit_codes.hpp).
int run_cli(int argc, char** argv);

}  // namespace ezpz::core
