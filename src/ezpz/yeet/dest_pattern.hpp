// Where a node's copy goes: the DEST pattern with %n, %r, %% and environment variables expanded.
#pragma once

#include <string>

#include "ezpz/util/env_lookup.hpp"
#include "ezpz/util/node_name.hpp"

namespace ezpz::core::yeet {

// Expands %n (node name), %r (rank), %% ('%'), $VAR and ${VAR} (shell-style names) in `pattern`.
// Throws UserError for another %-sequence, an unset variable, a result that is not an absolute path,
// or one ending in '/', '.', '..' or being '/' (yeet replaces DEST as a whole).
std::string expand_dest(const std::string& pattern, const std::string& node, int rank, const EnvLookup& env);

// Throws UserError when `dest` is `src` or inside it once symbolic links are resolved (as far as `dest`
// exists): every run would copy the earlier copies again. A `src` that cannot be resolved passes (the
// scan reports it).
void check_dest_outside_src(const std::string& src, const std::string& dest);

}  // namespace ezpz::core::yeet
