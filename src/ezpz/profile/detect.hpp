// Which system profile describes the machine we run on, and why.
#pragma once

#include <optional>
#include <string>

#include "ezpz/profile/catalog.hpp"
#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

struct DetectInput {
  EnvLookup env;         // usually process_env()
  std::string hostname;                            // as gethostname() returns it (short or full)
};

struct Detection {
  std::string system;
  std::string reason;  // "PBS_JOBID='1.aurora-pbs-0001…' matches '\.aurora-pbs-'"
};

// Order: environment rules of specific systems, then their hostname rules (an allocation's variables
// are better evidence than a name pattern), then fallback tiers in increasing order; within a step,
// profiles in name order. A fallback profile with no rules matches any machine.
std::optional<Detection> detect_system(const Catalog& catalog, const DetectInput& input);

}  // namespace ezpz::core
