// Merging named templates.
#include "ezpz/profile/scheduler.hpp"

#include <algorithm>

namespace ezpz::core {

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

bool Scheduler::has_directive(std::string_view name) const {
  return std::any_of(directives.begin(), directives.end(),
                     [&](const auto& directive) { return directive.first == name && directive.second; });
}

}  // namespace ezpz::core
