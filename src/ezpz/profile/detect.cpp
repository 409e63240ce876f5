// System detection from environment variables first, hostname patterns second.
#include "ezpz/profile/detect.hpp"

#include <algorithm>

#include "ezpz/util/regex.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

Regex compile(const std::string& pattern, const SystemProfile& profile) {
  return compile_regex(pattern, SourceLoc{profile.source, 0, 0, 1}, "detect");
}

std::optional<std::string> env_match(const SystemProfile& profile, const DetectInput& input) {
  for (const auto& [variable, pattern] : profile.detect.env) {
    std::optional<std::string> value = input.env(variable);
    if (value && compile(pattern, profile).search(*value)) {
      return variable + "=" + quoted_cut(*value) + " matches '" + pattern + "'";
    }
  }
  return std::nullopt;
}

std::optional<std::string> hostname_match(const SystemProfile& profile, const DetectInput& input) {
  std::string short_name = input.hostname.substr(0, input.hostname.find('.'));
  for (const auto& pattern : profile.detect.hostname) {
    Regex compiled = compile(pattern, profile);
    for (const auto& name : {input.hostname, short_name}) {
      if (!name.empty() && compiled.search(name)) {
        return "hostname " + quoted_cut(name) + " matches '" + pattern + "'";
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Detection> detect_system(const Catalog& catalog, const DetectInput& input) {
  std::vector<const SystemProfile*> profiles;
  for (const auto& name : catalog.system_names()) profiles.push_back(&catalog.system(name));
  std::stable_sort(profiles.begin(), profiles.end(), [](const SystemProfile* a, const SystemProfile* b) {
    return a->detect.fallback < b->detect.fallback;
  });
  for (size_t begin = 0; begin < profiles.size();) {
    int tier = profiles[begin]->detect.fallback;
    size_t end = begin;
    while (end < profiles.size() && profiles[end]->detect.fallback == tier) ++end;
    for (auto matcher : {env_match, hostname_match}) {
      for (size_t i = begin; i < end; ++i) {
        if (auto reason = matcher(*profiles[i], input)) return Detection{profiles[i]->name, *reason};
      }
    }
    if (tier > 0) {
      for (size_t i = begin; i < end; ++i) {
        const DetectRules& rules = profiles[i]->detect;
        if (rules.env.empty() && rules.hostname.empty()) {
          return Detection{profiles[i]->name,
                           "no other profile matched; '" + profiles[i]->name + "' matches any machine"};
        }
      }
    }
    begin = end;
  }
  return std::nullopt;
}

std::optional<Detection> detect_here(const Catalog& catalog) {
  return detect_system(catalog, DetectInput{process_env(), host_name()});
}

Detection chosen_system(const Catalog& catalog, const std::string& named, const EnvLookup& env,
                        const std::string& hostname) {
  if (!named.empty()) return {named, "by --system"};
  if (auto exported = setting(env, "EZPZ_SYSTEM")) return {*exported, "by EZPZ_SYSTEM"};
  auto detection = detect_system(catalog, DetectInput{env, hostname});
  if (!detection) throw UserError("no system profile matches this machine", "pass --system NAME or export EZPZ_SYSTEM");
  return {detection->system, "by detection (" + detection->reason + ")"};
}

std::string runtime_system(const Catalog& catalog, const std::string& named, const EnvLookup& env,
                           const std::string& hostname) {
  return chosen_system(catalog, named, env, hostname).system;
}

}  // namespace ezpz::core
