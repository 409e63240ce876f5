// CPU binding lists ("list:1-8:9-16"), read once for the spec's checks and the resolver's counts.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ezpz::core {

struct CpuList {
  std::vector<long> cpus_per_group;  // one group per rank, in order
  std::vector<std::string> groups;   // each group as written ("1-8", "0,2-3")
  // Each group's cpu ids as inclusive ranges ({1, 8}; a single id is {4, 4})
  std::vector<std::vector<std::pair<long, long>>> ranges;
  std::string problem;  // "" when well formed, else what is wrong (for an error message)
};

// Reads the part after "list:": colon-separated groups of comma-separated cpu ids (at most 6 digits)
// or ascending ranges.
CpuList parse_cpu_list(std::string_view groups);

// One group of cpu ids in that form: runs of consecutive ids as ranges, joined with ','
// ({48,49,50,51,100} -> "48-51,100"). Ids are taken in the order given.
std::string format_cpu_group(const std::vector<int>& cpus);

}  // namespace ezpz::core
