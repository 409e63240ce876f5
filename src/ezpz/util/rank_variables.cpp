// A rank's identity as variables.
#include "ezpz/util/rank_variables.hpp"

namespace ezpz::core {

std::vector<std::pair<std::string, std::string>> rank_variables(const RankInfo& rank) {
  return {
      {"RANK", std::to_string(rank.rank)},
      {"LOCAL_RANK", std::to_string(rank.local_rank)},
      {"WORLD_SIZE", std::to_string(rank.world_size)},
      {"LOCAL_WORLD_SIZE", std::to_string(rank.local_world_size)},
      {"NODE_RANK", std::to_string(rank.node_rank)},
  };
}

}  // namespace ezpz::core
