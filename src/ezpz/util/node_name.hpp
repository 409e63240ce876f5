// This machine's names: its host name, and the node name ezpz uses for it everywhere (yeet's %n, the
// rank marks `ezpz kill` finds, the torch helpers' reports).
#pragma once

#include <string>

#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

// gethostname() ("" when it fails).
std::string host_name();

// EZPZ_NODE_NAME (an explicit choice, e.g. for tests that run several "nodes" on one machine), else
// SLURMD_NODENAME (set by slurmd, also for its virtual nodes, which share one host name), else the
// host name. Empty values count as unset.
std::string node_name(const EnvLookup& env);

}  // namespace ezpz::core
