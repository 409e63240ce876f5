// The resolver's internals, shared by the files of resolve/: one Resolver per resolve() call.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ezpz/resolve/resolve.hpp"

namespace ezpz::core {

inline Origin default_value(std::string note = {}) {
  return Origin{OriginKind::default_value, {}, std::move(note)};
}
inline Origin derived(std::string note) {
  return Origin{OriginKind::derived, {}, std::move(note)};
}
// A value taken from the profile, located at `loc` or, when unknown, at the profile file itself.
inline Origin from_profile(const SystemProfile& profile, SourceLoc loc, std::string note) {
  if (!loc.known()) loc = SourceLoc{profile.source, 0, 0, 1};
  return Origin{OriginKind::profile, std::move(loc), std::move(note)};
}

// The launcher words of `groups` expanded with `values` (see util/option_template.hpp).
std::vector<CommandWord> expand_groups(const std::vector<std::string>& groups,
                                       const std::map<std::string, std::string>& values, const std::string& context);

struct Resolver {
  const Catalog& catalog;
  const ResolveInputs& inputs;
  Diagnostics d;
  ResolvedJob job;

  // Where to point an error about a value: its own location, else the spec file (built-in defaults
  // have no location of their own).
  SourceLoc at(const Origin& origin) const { return origin.loc.known() ? origin.loc : inputs.spec.loc; }

  // resolve.cpp: the pipeline
  ResolvedJob run();
  const SystemProfile* choose_profile(const JobSpec& upper);

  // checks.cpp: problems the user can fix, all collected in `d`
  void check_run();
  void check_name();
  void check_directive_values();
  // The options that spec keys own, by their one name ("--nodes"), each with its key.
  std::map<std::string, std::string> owned_options() const;
  void check_scheduler_args();
  void check_scheduler_arg(const std::string& arg, const std::map<std::string, std::string>& owned);
  void check_workdir();
  void check_required();
  std::string fitting_queues(long nodes, long walltime) const;
  const Queue* check_queue();
  void warn_queue_rules(const Queue& queue);
  void check_queue_ranks(const Queue* queue);

  // resources.cpp: ranks, cpus, binding and torch device/backend
  void resolve_ranks();
  // Sets spec.cpu_bind to the binding the launcher gets ("none" for none).
  void resolve_cpu_bind(std::optional<long> explicit_cpus);
  // Each local rank's device beside its cpus; a warning where a binding puts them on different sockets.
  void resolve_rank_devices();
  void resolve_torch();

  // supervise.cpp: the supervise keys against the walltime; the default signal
  void resolve_supervise();

  // stage_checks.cpp: staging destinations against node-local storage
  void check_stage();

  // commands.cpp: directives, launcher and backend environment
  bool stages_to_node_local() const;
  // The nodes asked of the scheduler: `nodes` plus supervise.spare_nodes.
  long requested_nodes() const;
  // With spare nodes, `ezpz launch` chooses each attempt's hosts: the words of `words` that name them
  // become {hostfile} (the scheduler's node file variable) and {hosts} (launcher.hosts_option).
  // Returns whether they name their hosts that way (only `launcher`'s failure is reported).
  bool let_launch_choose_hosts(std::vector<CommandWord>& words, std::map<std::string, std::string> values);
  std::map<std::string, std::string> placeholder_values(const Queue* queue) const;
  std::vector<std::string> launcher_groups() const;
  void build_commands(const Queue* queue);
  // The commands of the spec's `stage:` entries, after forward_env has completed stage_launcher.
  void build_stage_commands();

  // forward_env.cpp: launcher.env_option groups for the variables the ranks need by name
  void forward_env(std::map<std::string, std::string> values);
};

}  // namespace ezpz::core
