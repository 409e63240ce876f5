// Merging named templates.
#include "ezpz/profile/scheduler.hpp"

#include <algorithm>

namespace ezpz {

void merge_templates(NamedTemplates& base, const NamedTemplates& overlay) {
  for (const auto& item : overlay) {
    const auto& [name, value] = item;
    auto existing = std::find_if(base.begin(), base.end(), [&](const auto& entry) { return entry.first == item.first; });
    if (existing == base.end()) {
      if (value) base.emplace_back(name, value);
    } else if (value) {
      existing->second = value;
    } else {
      base.erase(existing);
    }
  }
}

bool Scheduler::ends_at_walltime() const {
  return std::any_of(directives.begin(), directives.end(),
                     [](const auto& directive) { return directive.first == "walltime" && directive.second; });
}

}  // namespace ezpz
