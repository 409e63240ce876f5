// Exit codes of the ezpz command, in one place (documented in README.md).
#pragma once

namespace ezpz {

enum ExitCode : int {
  k_exit_ok = 0,
  k_exit_user_error = 1,  // bad spec, unknown system, failed scheduler command …
  k_exit_usage = 2,       // bad command line
};

}  // namespace ezpz
