// ezpz's rules for the exit code of a program it runs, in one place: a program that cannot start exits
// 127 (not found) or 126 (found but not runnable), as shells do; one a signal ended exits 128 + N.
// docs/runtime-env.md lists them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ezpz::core {

// The exit code of a program that could not start with errno `error`: 127 for ENOENT, else 126.
int start_failure_exit_code(int error);
// A wait status as an exit code: the program's own, or 128 + N when signal N ended it.
int wait_status_exit_code(int status);
// Says on stderr "ezpz: error: cannot run 'PROGRAM': <why>" (and "  hint: HINT" when given); returns
// start_failure_exit_code(error).
int report_start_failure(const std::string& program, int error, std::string_view hint = {});
// execvp's argv: pointers into `words`, which must outlive it, ending with nullptr.
std::vector<char*> exec_argv(std::vector<std::string>& words);
// Replaces this process with `program` (searched on PATH). Returns only when that fails, with
// report_start_failure's code.
int exec_program(const std::vector<std::string>& program, std::string_view hint = {});

}  // namespace ezpz::core
