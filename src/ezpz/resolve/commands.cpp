// The job's scheduler directives, launcher words and backend environment, from option templates.
#include <algorithm>

#include "ezpz/profile/directive_options.hpp"
#include "ezpz/resolve/resolver.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/handoff_variables.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {
std::vector<CommandWord> expand_groups(const std::vector<std::string>& groups,
                                       const std::map<std::string, std::string>& values, const std::string& context) {
  std::vector<CommandWord> words;
  for (const auto& group : groups) {
    if (auto expanded = expand_option_group(group, values, context))
      words.insert(words.end(), expanded->begin(), expanded->end());
  }
  return words;
}

bool Resolver::stages_to_node_local() const {
  std::string local = job.profile->node.node_local;
  local = local.substr(0, local.find_first_of("$%"));
  // "/" is all that is left of a path made of variables ("/$X"): it tells nothing.
  if (local.empty() || local == "/" || !job.spec.stage) return false;
  return std::any_of(job.spec.stage->value.begin(), job.spec.stage->value.end(),
                     [&](const StageEntry& entry) { return path_is_under(entry.dest, local); });
}

long Resolver::requested_nodes() const {
  const auto& spare = job.spec.supervise.spare_nodes;
  return job.spec.nodes->value + (spare ? spare->value : 0);
}

bool Resolver::let_launch_choose_hosts(std::vector<CommandWord>& words, std::map<std::string, std::string> values) {
  const auto& spare = job.spec.supervise.spare_nodes;
  if (!spare) return false;
  bool named = false;
  std::string nodefile = job.scheduler->job_variable("nodefile");
  for (auto& word : words) {
    if (word.variable && !nodefile.empty() && word.text == nodefile) {
      word = {placeholder_word(k_hostfile_key), false};
      named = true;
    }
  }
  const std::string& option = job.profile->launcher.hosts_option;
  values[k_hosts_key] = placeholder_word(k_hosts_key);  // left as it is for ezpz launch
  if (auto added = option.empty()
                       ? std::nullopt
                       : expand_option_group(option, values, job.profile->path + ": launcher.hosts_option")) {
    words.insert(words.end(), added->begin(), added->end());
    named = true;
  }
  if (!named && job.profile->launcher.kind != LauncherKind::local && &words == &job.launcher) {
    d.error(at(spare->origin),
            std::string("'supervise.spare_nodes' needs a launcher that can be told which hosts to use, and the ") +
                launcher_kind_name(job.profile->launcher.kind) + " line of system '" + job.profile->name +
                "' names none (no $" + (nodefile.empty() ? "node file" : nodefile) + " word, no launcher.hosts_option)",
            "add launcher.hosts_option to the profile (docs/failover.md)");
  }
  return named;
}

std::map<std::string, std::string> Resolver::placeholder_values(const Queue* queue) const {
  const JobSpec& s = job.spec;
  auto text = [](const auto& field) { return field ? field->value : std::string(); };
  auto joined = [](const auto& field) { return field ? join(field->value, ":") : std::string(); };
  std::string mail_events;
  if (s.mail.events) {
    std::vector<std::string> words;
    for (const auto& event : s.mail.events->value) {
      auto mapped = job.scheduler->mail_events.find(event);
      if (mapped != job.scheduler->mail_events.end()) words.push_back(mapped->second);
    }
    mail_events = join(words, job.scheduler->mail_events_separator);
  }
  const Devices& devices = job.profile->node.devices;
  return {
      {"name", text(s.name)},
      {"account", text(s.account)},
      {"queue", queue ? queue->name : text(s.queue)},
      {"nodes", std::to_string(s.nodes->value)},
      {"walltime", format_walltime(s.walltime->value)},
      {"walltime_seconds", std::to_string(s.walltime->value)},  // Flux: -t 3600s
      {"filesystems", joined(s.filesystems)},
      {"ranks_per_node", std::to_string(s.ranks_per_node->value)},
      {"cpus_per_rank", std::to_string(s.cpus_per_rank->value)},
      {"cpus_per_node", std::to_string(s.ranks_per_node->value * s.cpus_per_rank->value)},
      {"total_ranks", std::to_string(job.total_ranks.value)},
      {"gpus_per_node", devices.kind == DeviceKind::cpu ? std::string() : std::to_string(devices.count)},
      {"cpu_bind", s.cpu_bind->value == "none" ? std::string() : s.cpu_bind->value},
      {"output", text(s.output)},
      {"error", text(s.error)},
      {"mail.user", text(s.mail.user)},
      {"mail.events", mail_events},
      {"after", joined(s.after)},
      {"supervise.requeue", s.supervise.requeue ? std::to_string(s.supervise.requeue->value) : std::string()},
      {"supervise.spare_nodes",
       s.supervise.spare_nodes ? std::to_string(s.supervise.spare_nodes->value) : std::string()},
      // Output files of a job that starts again keep what the earlier starts wrote.
      {"output_mode", s.supervise.requeue ? "append" : ""},
  };
}

void Resolver::build_commands(const Queue* queue) {
  const SystemProfile& profile = *job.profile;
  auto values = placeholder_values(queue);
  auto directive_values = values;
  directive_values["nodes"] = std::to_string(requested_nodes());  // the spares are asked for too

  NamedTemplates templates = job.scheduler->directives;
  merge_templates(templates, profile.directives);
  if (queue) merge_templates(templates, queue->directives);
  if (stages_to_node_local()) merge_templates(templates, profile.node.node_local_directives);
  for (const auto& [name, text] : templates) {
    // A directive named after a spec key that is not set is left out, placeholders or not.
    if (auto value = directive_values.find(name); value != directive_values.end() && value->second.empty()) continue;
    auto words = expand_option_group(*text, directive_values, profile.path + ": directive '" + name + "'");
    if (!words) continue;
    std::vector<std::string> parts;
    for (const auto& word : *words) parts.push_back(word.text);
    job.directives.push_back(join(parts, " "));
  }
  if (job.spec.scheduler_args) {
    // An escape-hatch argument replaces a generated directive for the same option ("-l place=…").
    const OptionTable& table = job.scheduler->options;
    for (const auto& arg : job.spec.scheduler_args->value) {
      auto replaced = directive_option_names(table, arg);
      auto same = [&](const std::string& line) {
        auto names = directive_option_names(table, line);
        return std::any_of(names.begin(), names.end(), [&](const std::string& name) {
          return std::find(replaced.begin(), replaced.end(), name) != replaced.end();
        });
      };
      job.directives.erase(std::remove_if(job.directives.begin(), job.directives.end(), same), job.directives.end());
    }
    job.directives.insert(job.directives.end(), job.spec.scheduler_args->value.begin(),
                          job.spec.scheduler_args->value.end());
  }

  std::vector<std::string> groups = launcher_groups();
  job.launcher = expand_groups(groups, values, profile.path + ": launcher.args");
  auto stage_values = values;
  stage_values["ranks_per_node"] = "1";
  stage_values["total_ranks"] = std::to_string(job.spec.nodes->value);
  stage_values["cpus_per_rank"] = "";
  stage_values["cpu_bind"] = "";
  let_launch_choose_hosts(job.launcher, values);
  if (job.spec.supervise.spare_nodes) {
    job.probe_launcher = expand_groups(groups, stage_values, profile.path + ": launcher.args");
    let_launch_choose_hosts(job.probe_launcher, stage_values);
  }
  // Staging reaches every node asked for, the spares too: one may take a failed node's place.
  stage_values["nodes"] = std::to_string(requested_nodes());
  stage_values["total_ranks"] = std::to_string(requested_nodes());
  job.stage_launcher = expand_groups(groups, stage_values, profile.path + ": launcher.args");

  for (const auto& entry : profile.backend_env.for_job(job.spec.nodes->value, job.spec.ranks_per_node->value)) {
    job.backend_env.emplace_back(entry.name,
                                 Sourced<std::string>{entry.value, from_profile(profile, {}, entry.section)});
  }
  forward_env(values);
  build_stage_commands();
}

void Resolver::build_stage_commands() {
  if (!job.spec.stage) return;
  for (const auto& entry : job.spec.stage->value) {
    StageCommand command{entry.src, entry.dest, job.stage_launcher, job.stage_launcher.size()};
    command.words.push_back({k_env_bin, true});
    command.words.push_back({"yeet", false});
    if (entry.unpack) command.words.push_back({"--unpack", false});
    if (entry.venv) command.words.push_back({"--venv", false});
    for (const auto& word : {std::string("--"), entry.src, entry.dest}) command.words.push_back({word, false});
    job.stage_commands.push_back(std::move(command));
  }
}

// The profile's launcher.args, launcher.multi_node_args for a job on more than one node, then the
// groups of launcher.filesystem_args for the filesystems the job names (each group once). The staging
// steps get them too: they may read from those filesystems, and they run with the same backend
// environment (Frontier's FI_CXI_RDZV_PROTO=alt_read needs --network=disable_rdzv_get on every step).
std::vector<std::string> Resolver::launcher_groups() const {
  const Launcher& launcher = job.profile->launcher;
  std::vector<std::string> groups = launcher.args;
  if (job.spec.nodes->value > 1)
    groups.insert(groups.end(), launcher.multi_node_args.begin(), launcher.multi_node_args.end());
  if (!job.spec.filesystems) return groups;
  for (const auto& [filesystem, extra] : launcher.filesystem_args) {
    const auto& named = job.spec.filesystems->value;
    if (std::find(named.begin(), named.end(), filesystem) == named.end()) continue;
    for (const auto& group : extra) {
      if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
    }
  }
  return groups;
}

}  // namespace ezpz::core
