// CPU binding lists.
#include "ezpz/util/cpu_list.hpp"

#include <algorithm>

#include "ezpz/util/text.hpp"

namespace ezpz::core {

CpuList parse_cpu_list(std::string_view groups) {
  CpuList list;
  auto is_id = [](const std::string& text) {
    return !text.empty() && text.size() <= 6 &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  for (const auto& group : split(groups, ':')) {
    long count = 0;
    list.groups.push_back(group);
    list.ranges.emplace_back();
    for (const auto& range : split(group, ',')) {
      auto dash = range.find('-');
      std::string first = range.substr(0, dash);
      std::string last = dash == std::string::npos ? first : range.substr(dash + 1);
      if (!is_id(first) || !is_id(last)) {
        list.problem = "'" + range + "' is not a cpu id or a range of them (such as 4 or 1-8)";
        return list;
      }
      if (std::stol(first) > std::stol(last)) {
        list.problem = "the range '" + range + "' runs backwards";
        return list;
      }
      count += std::stol(last) - std::stol(first) + 1;
      list.ranges.back().emplace_back(std::stol(first), std::stol(last));
    }
    list.cpus_per_group.push_back(count);
  }
  return list;
}

std::string format_cpu_group(const std::vector<int>& cpus) {
  std::string text;
  for (size_t start = 0, i = 1; start < cpus.size(); ++i) {
    if (i == cpus.size() || cpus[i] != cpus[i - 1] + 1) {
      if (!text.empty()) text += ",";
      text += std::to_string(cpus[start]);
      if (i - 1 > start) text += "-" + std::to_string(cpus[i - 1]);
      start = i;
    }
  }
  return text;
}

}  // namespace ezpz::core
