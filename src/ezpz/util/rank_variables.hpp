// The variables that hand a rank its identity, under PyTorch's env:// names. Written here once, for
// `ezpz exec`, the local ranks of `ezpz launch` and the environment ezpz::torch::init() checks; read
// back by runtime/rank (the torchrun family) and torch/env.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ezpz/runtime.hpp"

namespace ezpz::core {

// RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE and NODE_RANK of `rank`, in that order.
std::vector<std::pair<std::string, std::string>> rank_variables(const RankInfo& rank);

}  // namespace ezpz::core
