// CPU binding and cpus-per-rank from a node's shape.
#pragma once

#include <optional>
#include <string>

#include "ezpz/profile/system_profile.hpp"

namespace ezpz::core {

// A PALS-style "list:a-b:c-d…" binding: ranks placed on the sockets in blocks (place_local_rank,
// resolve/rank_placement.hpp: 3 ranks on 2 sockets are 2 + 1), each socket's usable cores (reserved and
// service cores skipped) split evenly among its ranks, or `cores_per_rank` each when given.
// nullopt when ranks cannot be placed (not enough cores).
std::optional<std::string> generate_cpu_list(const NodeShape& node, long ranks_per_node,
                                             std::optional<long> cores_per_rank = std::nullopt);

// The smallest number of cpus in any group of a "list:" binding; nullopt for other forms.
std::optional<long> cpus_in_list(const std::string& binding);

// The binding for `ranks_per_node` ranks under `launcher`'s table and default.
std::optional<std::string> cpu_binding(const Launcher& launcher, const NodeShape& node, long ranks_per_node);

}  // namespace ezpz::core
