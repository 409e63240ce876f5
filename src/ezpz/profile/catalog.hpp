// The set of known systems, schedulers and templates: compiled-in copies plus the user's search path.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ezpz/profile/scheduler.hpp"
#include "ezpz/profile/system_profile.hpp"
#include "ezpz/util/trust.hpp"

namespace ezpz::core {

// A directory or file of the search path that was not read because a user ezpz does not trust could
// have written it (util/trust.hpp).
struct SkippedProfilePath {
  std::string path;  // as found on the search path: "/tmp/x/../share/ezpz/systems", "<dir>/slurm.yaml"
  Distrust why;

  std::string message() const;  // "skipped '/tmp/x/../share/ezpz/systems': '/tmp/share' is owned by uid 1002, …"
};

class Catalog {
 public:
  // `search_path`: directories holding `<name>.yaml` profiles and, in their `schedulers/` folder,
  // `<name>.yaml` schedulers; earlier ones first. A file found there replaces the compiled-in one of the
  // same name. Missing directories are skipped, and so is every directory and file that `users` may not
  // trust (why_untrusted: another user owns it, or could write it or a directory above it); skipped()
  // says which and why.
  explicit Catalog(std::vector<std::string> search_path = {}, const TrustedUsers& users = TrustedUsers::of_process());

  // The default search path: $EZPZ_SYSTEMS_PATH (colon-separated), ~/.config/ezpz/systems,
  // then <exe_dir>/../share/ezpz/systems.
  static std::vector<std::string> default_search_path(const char* systems_path_env, const char* home_env,
                                                      const std::string& exe_dir);

  // What the search path held that was not read, in search-path order.
  const std::vector<SkippedProfilePath>& skipped() const { return m_skipped; }

  std::vector<std::string> system_names() const;  // sorted
  bool has_system(const std::string& name) const;

  // The profile named `name`, merged along `extends:`. Throws UserError when it is unknown (at
  // `where`, with a "did you mean") or broken (with every problem in it).
  const SystemProfile& system(const std::string& name, const SourceLoc& where = {}) const;
  const Scheduler& scheduler(const std::string& name, const SourceLoc& where = {}) const;
  std::vector<std::string> scheduler_names() const;  // sorted
  // What every scheduler tells its jobs (job_env), in scheduler_names() order. Throws UserError when a
  // scheduler file is broken.
  JobVariables job_variables() const;
  // job_variables() of the compiled-in schedulers alone, read once.
  static const JobVariables& builtin_job_variables();
  // The text of templates/<name>.sh.mustache.
  std::string template_text(const std::string& name) const;

 private:
  // `level` indexes the files found for `name`, highest priority first: a profile that extends its
  // own name builds on the next one (a user's aurora.yaml extending the shipped aurora).
  YamlNode load_merged(const std::string& name, size_t level, int depth) const;

  // A profile's text and, for compiled-in ones, its tree parsed at build time.
  struct ProfileFile {
    SourceRef source;
    std::string_view tree;

    YamlNode parse() const;
  };
  // A file of the search path (`folder` is "systems/" or "schedulers/", as compiled-in paths begin).
  static ProfileFile search_path_file(const std::string& path, const std::string& folder);

  // A hint naming what was skipped that may have held system (or `scheduler`) `name` ("" when nothing was).
  std::string skipped_hint(const std::string& name, bool scheduler) const;

  std::map<std::string, std::vector<ProfileFile>> m_system_files;
  std::map<std::string, ProfileFile> m_scheduler_files;  // the first file of each name
  mutable std::map<std::string, std::unique_ptr<SystemProfile>> m_systems;
  mutable std::map<std::string, std::unique_ptr<Scheduler>> m_schedulers;
  std::vector<SkippedProfilePath> m_skipped;
};

}  // namespace ezpz::core
