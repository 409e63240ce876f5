// Staging destinations against the profile's node-local storage.
#include <algorithm>
#include <filesystem>

#include "ezpz/resolve/resolver.hpp"
#include "ezpz/util/regex.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

// The components of an absolute path, lexically normal ("a/../b" is "b"), with "${NAME}" written "$NAME".
std::vector<std::string> components(const std::string& path) {
  static const Regex k_braced = compile_regex(R"(\$\{([A-Za-z_][A-Za-z0-9_]*)\})", {}, "a braced variable");
  std::string normal = std::filesystem::path(k_braced.replace_all(path, R"($\1)")).lexically_normal().string();
  std::vector<std::string> parts;
  for (auto& part : split(normal, '/')) {
    if (!part.empty() && part != ".") parts.push_back(std::move(part));
  }
  return parts;
}

// Whether `parts` begins with the first `count` components of `prefix`.
bool has_leading_components(const std::vector<std::string>& parts, const std::vector<std::string>& prefix,
                            size_t count) {
  return parts.size() >= count && std::equal(prefix.begin(), prefix.begin() + static_cast<long>(count), parts.begin());
}

std::string path_of(const std::vector<std::string>& parts, size_t from = 0) {
  std::string path;
  for (size_t i = from; i < parts.size(); ++i) path += "/" + parts[i];
  return path;
}

}  // namespace

// A node_local with a variable (Frontier's /mnt/bb/$USER) names the one writable place on the storage
// above it (/mnt/bb): a destination on that storage but outside node_local cannot be written (OLCF
// user guide, NVMe usage). Elsewhere (/tmp …) ezpz knows nothing and the destination is the job's call.
void Resolver::check_stage() {
  const std::string& local = job.profile->node.node_local;
  if (local.empty() || !job.spec.stage) return;
  std::vector<std::string> local_parts = components(local);
  auto variable = std::find_if(local_parts.begin(), local_parts.end(),
                               [](const std::string& part) { return part.find_first_of("$%") != std::string::npos; });
  // No variable, or one at the top ("$TMPDIR"): the storage above node_local is not known.
  if (variable == local_parts.end() || variable == local_parts.begin()) return;
  size_t fixed = static_cast<size_t>(variable - local_parts.begin());
  for (const auto& entry : job.spec.stage->value) {
    std::vector<std::string> dest = components(entry.dest);
    if (!has_leading_components(dest, local_parts, fixed) ||
        has_leading_components(dest, local_parts, local_parts.size()))
      continue;
    std::string storage = path_of(std::vector<std::string>(local_parts.begin(), variable));
    // What follows the writable place: '/mnt/bb/env' → '/env', '/mnt/bb/alice/env' → '/env'.
    size_t from = dest.size() > local_parts.size() ? local_parts.size() : fixed;
    std::string rest = dest.size() > from ? path_of(dest, from) : "/env";
    d.error(entry.dest_loc.known() ? entry.dest_loc : entry.loc,
            "'stage.dest' must be under node_local '" + local + "' of system '" + job.profile->name + "', found '" +
                entry.dest + "'",
            "only '" + local + "' can be written on '" + storage + "'; stage to '" + local + rest + "'");
  }
}

}  // namespace ezpz::core
