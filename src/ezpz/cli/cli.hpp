// The ezpz command line: parses arguments, runs one command, maps errors to exit codes.
#pragma once

#include <string>
#include <vector>

namespace ezpz::core {

// The words after the first "--" of the command line: the program a command runs (exec, launch, test,
// or a job's run key).
const std::vector<std::string>& program_after_separator();

// The options before "--" that are not the command's own, with their values, in order: what `ezpz
// launch` passes on to the launcher (`-x FOO=bar`; see command_words.hpp).
const std::vector<std::string>& options_passed_on();

// Returns the process exit code (see util/exit_codes.hpp).
int run_cli(int argc, char** argv);

}  // namespace ezpz::core
