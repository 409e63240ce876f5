// Where a value came from: every resolved value carries one, so `ezpz resolve --explain` can say it.
#pragma once

#include <string>

#include "ezpz/util/source.hpp"

namespace ezpz::core {

// Precedence, lowest to highest: default < profile < spec < env < cli. `derived` values are
// computed from others (total_ranks = nodes x ranks_per_node) and name their inputs in `note`.
enum class OriginKind { default_value, profile, spec, env, cli, derived };

struct Origin {
  OriginKind kind = OriginKind::default_value;
  SourceLoc loc;
  std::string note;

  // "spec job.yaml:4:8", "profile systems/aurora.yaml:40:3", "env EZPZ_NODES", "--set nodes=4",
  // "default", "default (the spec file's name)", "derived from nodes x ranks_per_node".
  std::string describe() const;
};

const char* origin_kind_name(OriginKind kind);

template <class T>
struct Sourced {
  T value;
  Origin origin;
};

}  // namespace ezpz::core
