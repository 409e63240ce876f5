// ezpz/catalog.hpp: the systems ezpz knows (compiled in, plus the user's profile directories).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ezpz {

namespace detail {
struct CatalogImpl;
}

// One system profile, as `ezpz systems` lists it.
struct SystemInfo {
  std::string name;         // "aurora"
  std::string description;  // one line
  std::string scheduler;    // "pbs", "slurm" or "none"
  std::string path;         // where it was read from: "systems/aurora.yaml" (compiled in) or a file path
};

// Why detection chose a system.
struct Detection {
  std::string system;
  std::string reason;  // "PBS_JOBID='1.aurora-pbs-0001…' matches '\.aurora-pbs-'"
};

// A Catalog is a cheap handle: copies share one set of profiles, which a Job resolved from it keeps
// alive (a Job may outlive every Catalog handle). Profiles are read on first use and then kept; a
// profile file changed afterwards is not seen by this catalog. All calls are thread-safe.
class Catalog {
 public:
  // The compiled-in profiles with the standard search path in front of them: $EZPZ_SYSTEMS_PATH
  // (colon-separated), ~/.config/ezpz/systems, then <dir of this program>/../share/ezpz/systems.
  Catalog();
  // The compiled-in profiles with `search_path` in front: directories holding <name>.yaml, earlier
  // ones first. A profile found there replaces the compiled-in one of the same name, or extends it
  // (`extends:` its own name). Directories that do not exist are skipped, and so are directories and files
  // that another user owns or could write, or a directory above them (docs/security.md).
  explicit Catalog(std::vector<std::string> search_path);

  // The standard search path (see Catalog()).
  static std::vector<std::string> default_search_path();

  // Every system, sorted by name. Throws Error when a profile file is broken (with every problem).
  std::vector<SystemInfo> systems() const;

  // The system a machine with environment `env` and host name `hostname` is: the rules of each
  // profile's `detect:` section (environment variables first, then host names). nullopt when none
  // matches. Throws Error for a broken profile.
  std::optional<Detection> detect(const std::map<std::string, std::string>& env, const std::string& hostname) const;

  // This process's environment and host name.
  std::optional<Detection> detect_here() const;

 private:
  friend struct detail::CatalogImpl;
  std::shared_ptr<detail::CatalogImpl> m_impl;
};

}  // namespace ezpz
