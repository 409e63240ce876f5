// System detection from environment variables first, hostname patterns second, an installed scheduler
// third.
#include "ezpz/profile/detect.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "ezpz/util/handoff_variables.hpp"
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

// `path` in the input's file system tree (an absolute path below its root; a relative one as it is).
std::string in_tree(const DetectInput& input, const std::string& path) {
  if (path.empty() || path.front() != '/' || input.root.empty() || input.root == "/") return path;
  return (input.root.back() == '/' ? input.root.substr(0, input.root.size() - 1) : input.root) + path;
}

bool is_file(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// Where PATH finds `program` (the first directory holding an executable file of that name, as execvp
// looks), or "". Empty and relative entries are skipped: what they find depends on the directory the
// command happens to run in.
std::string on_path(const std::string& program, const DetectInput& input) {
  for (const auto& directory : split(setting(input.env, "PATH").value_or(""), ':')) {
    if (directory.empty() || directory.front() != '/') continue;
    std::string path = directory + (directory.back() == '/' ? "" : "/") + program;
    if (is_file(in_tree(input, path)) && access(in_tree(input, path).c_str(), X_OK) == 0) return path;
  }
  return "";
}

// detect.installed: the scheduler's configuration file, then every command on PATH. With `named`, only
// a file that rules.config_env names counts; without it, only the usual paths, and only while that
// variable is unset (the scheduler's commands read the file it names, and no other).
std::optional<std::string> installed_match(const SystemProfile& profile, const DetectInput& input, bool named) {
  const InstalledRules& rules = profile.detect.installed;
  if (!input.installed || rules.commands.empty()) return std::nullopt;
  std::optional<std::string> file = rules.config_env.empty() ? std::nullopt : setting(input.env, rules.config_env);
  std::string config;
  if (named && file && is_file(in_tree(input, *file))) {
    config = rules.config_env + "=" + quoted_cut(*file);
  } else if (!named && !file) {
    auto found = std::find_if(rules.config.begin(), rules.config.end(),
                              [&](const std::string& path) { return is_file(in_tree(input, path)); });
    if (found != rules.config.end()) config = *found;
  }
  if (config.empty()) return std::nullopt;
  std::vector<std::string> commands;
  for (const auto& command : rules.commands) {
    std::string path = on_path(command, input);
    if (path.empty()) return std::nullopt;
    commands.push_back(quoted_cut(path));
  }
  return join(commands, ", ") + " on PATH, configuration " + config;
}

std::optional<std::string> configured_by_env_match(const SystemProfile& profile, const DetectInput& input) {
  return installed_match(profile, input, true);
}

std::optional<std::string> configured_match(const SystemProfile& profile, const DetectInput& input) {
  return installed_match(profile, input, false);
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
    for (auto matcher : {env_match, hostname_match, configured_by_env_match, configured_match}) {
      for (size_t i = begin; i < end; ++i) {
        if (auto reason = matcher(*profiles[i], input)) return Detection{profiles[i]->name, *reason};
      }
    }
    if (tier > 0) {
      for (size_t i = begin; i < end; ++i) {
        const DetectRules& rules = profiles[i]->detect;
        if (rules.env.empty() && rules.hostname.empty() && rules.installed.commands.empty()) {
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

namespace {

Detection choose(const Catalog& catalog, const std::string& named, const DetectInput& input) {
  if (!named.empty()) return {named, "by --system"};
  if (auto exported = setting(input.env, k_env_system)) return {*exported, "by EZPZ_SYSTEM"};
  auto detection = detect_system(catalog, input);
  if (!detection) throw UserError("no system profile matches this machine", "pass --system NAME or export EZPZ_SYSTEM");
  return {detection->system, "by detection (" + detection->reason + ")"};
}

}  // namespace

Detection chosen_system(const Catalog& catalog, const std::string& named, const EnvLookup& env,
                        const std::string& hostname) {
  return choose(catalog, named, DetectInput{env, hostname});
}

std::string runtime_system(const Catalog& catalog, const std::string& named, const EnvLookup& env,
                           const std::string& hostname) {
  DetectInput input{env, hostname};
  input.installed = false;
  return choose(catalog, named, input).system;
}

}  // namespace ezpz::core
