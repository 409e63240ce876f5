// Where a node's copy goes: the DEST pattern with %n, %r, %% and environment variables expanded.
#pragma once

#include <string>

#include "ezpz/runtime/environment.hpp"

namespace ezpz::yeet {

// The node name %n stands for: EZPZ_NODE_NAME (an explicit choice, e.g. for tests that run several
// "nodes" on one machine), else SLURMD_NODENAME (set by slurmd, also for its virtual nodes), else the
// host name.
std::string node_name(const EnvLookup& env);

// Expands %n (node name), %r (rank), %% ('%'), $VAR and ${VAR} (shell-style names) in `pattern`.
// Throws UserError for another %-sequence, an unset variable, a result that is not an absolute path,
// or one ending in '/', '.', '..' or being '/' (yeet replaces DEST as a whole).
std::string expand_dest(const std::string& pattern, const std::string& node, int rank, const EnvLookup& env);

}  // namespace ezpz::yeet
