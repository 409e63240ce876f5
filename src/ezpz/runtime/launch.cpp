// Planning a launch inside an allocation through the resolver.
#include "ezpz/runtime/launch.hpp"

#include <algorithm>
#include <map>

#include "ezpz/render/render.hpp"
#include "ezpz/resolve/resolve.hpp"
#include "ezpz/runtime/allocation.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/handoff_variables.hpp"
#include "ezpz/util/hostlist.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

// What lets a second step share the allocation's resources with a running one, by launcher kind. srun(1),
// Slurm 22.05: "--overlap allows steps to share all resources (CPUs, memory, and GRES) with all other
// steps"; without it the step waits for the running one. mpiexec starts no step.
const std::map<LauncherKind, std::vector<std::string>> k_overlap_options = {{LauncherKind::srun, {"--overlap"}}};

// A spec layer as if the user had written `--set key=value`.
void set(JobSpec& spec, const std::string& key, const std::string& value, Diagnostics& d) {
  apply_assignment(spec, key + "=" + value, "ezpz launch", OriginKind::cli, d);
}

}  // namespace

LaunchPlan plan_launch(const Catalog& catalog, const LaunchRequest& request, const EnvLookup& env,
                       const std::string& ezpz_bin) {
  Allocation allocation = current_allocation(env, request.hostfile, catalog.job_variables());
  long hosts = static_cast<long>(allocation.hosts.size());
  long usable = hosts - request.spare_nodes;
  long nodes = request.nodes.value_or(usable > 0 ? usable : 1);
  if (hosts > 0 && nodes > usable) {
    throw UserError(
        "--nodes " + std::to_string(nodes) +
        (request.spare_nodes > 0 ? " and " + std::to_string(request.spare_nodes) + " spare(s) are" : " is") +
        " more than the " + std::to_string(hosts) + " hosts of this allocation (" + allocation.hosts_from + ")");
  }
  std::optional<long> ranks_per_node = request.per_node ? std::optional<long>(1) : request.ranks_per_node;
  if (request.ranks) {
    if (!ranks_per_node) {
      if (*request.ranks % nodes != 0) {
        throw UserError("-n " + std::to_string(*request.ranks) + " does not divide evenly over " +
                            std::to_string(nodes) + " node(s)",
                        "pass --ranks-per-node or --nodes as well");
      }
      ranks_per_node = *request.ranks / nodes;
    } else if (*ranks_per_node * nodes != *request.ranks) {
      throw UserError("-n " + std::to_string(*request.ranks) + " is not --ranks-per-node " +
                      std::to_string(*ranks_per_node) + " x " + std::to_string(nodes) + " node(s)");
    }
  }

  Diagnostics d;
  ResolveInputs inputs;
  inputs.for_launch = true;
  set(inputs.cli, "system", request.system, d);
  set(inputs.cli, "nodes", std::to_string(nodes), d);
  if (ranks_per_node) set(inputs.cli, "ranks_per_node", std::to_string(*ranks_per_node), d);
  if (!request.cpu_bind.empty()) set(inputs.cli, "cpu_bind", request.cpu_bind, d);
  if (request.choose_hosts)
    set(inputs.cli, "supervise.spare_nodes", std::to_string(std::max(1L, request.spare_nodes)), d);
  inputs.cli.run = Sourced<std::vector<std::string>>{request.program, Origin{OriginKind::cli, {}, "ezpz launch"}};
  d.throw_if_any();
  ResolvedJob job = resolve(catalog, inputs);

  LaunchPlan plan;
  plan.kind = job.profile->launcher.kind;
  plan.nodes = nodes;
  plan.ranks_per_node = job.spec.ranks_per_node->value;
  plan.total_ranks = job.total_ranks.value;
  if (plan.kind == LauncherKind::local) return plan;  // run_local_ranks starts the ranks itself

  // --hostfile reaches the ranks as EZPZ_HOSTFILE, so that every rank agrees on the first host.
  std::vector<CommandWord> launcher = !request.per_node      ? job.launcher
                                      : request.choose_hosts ? job.probe_launcher
                                                             : job.stage_launcher;
  if (auto overlap = k_overlap_options.find(plan.kind); request.per_node && overlap != k_overlap_options.end()) {
    for (const auto& word : overlap->second) launcher.insert(launcher.begin() + 1, CommandWord{word, false});
  }
  if (!request.hostfile.empty()) plan.env.emplace_back(k_env_hostfile, request.hostfile);
  const std::string& env_option = job.profile->launcher.env_option;
  if (!env_option.empty()) {
    plan.env.emplace_back(k_env_bin, ezpz_bin);
    for (const auto& pair : handoff_env(job)) plan.env.push_back(pair);
    for (const auto& [name, value] : job.backend_env) {
      if (auto set = env(name); !set || set->empty()) plan.env.emplace_back(name, value.value);
    }
    // Passed by name besides what a rendered script forwards: --hostfile, the end signal's request, and
    // torchrun's restart counts, which `ezpz launch` sets for each attempt (runtime/torchrun_env.hpp).
    std::vector<std::string> names = {
        k_env_job_end_time,           k_env_end_signal,           k_env_signal_before, k_env_label, k_env_log_dir,
        "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS"};
    if (!request.hostfile.empty()) names.insert(names.begin(), k_env_hostfile);
    names.insert(names.end(), request.forward_names.begin(), request.forward_names.end());
    for (const auto& name : names) {
      if (auto value = env(name); name != k_env_hostfile && (!value || value->empty())) continue;
      auto words = expand_option_group(env_option, {{"name", name}}, job.profile->path + ": launcher.env_option");
      if (words) launcher.insert(launcher.end(), words->begin(), words->end());
    }
  }

  for (const auto& word : request.launcher_options) launcher.push_back(CommandWord{word, false});

  bool wrapper = job.profile->launcher.rank_wrapper && !request.per_node;
  for (const auto& word : rank_command(launcher, wrapper, request.program)) {
    if (!word.variable) {
      plan.argv.push_back(word.text);
    } else if (word.text == k_env_bin) {
      plan.argv.push_back(ezpz_bin);
    } else if (!request.hostfile.empty() && word.text == job.scheduler->job_variable("nodefile")) {
      plan.argv.push_back(request.hostfile);
    } else if (auto value = env(word.text); value && !value->empty()) {
      plan.argv.push_back(*value);
    } else {
      throw UserError(std::string("the ") + launcher_kind_name(plan.kind) + " command of system '" + request.system +
                          "' needs $" + word.text + ", which is not set here",
                      "run inside the job's allocation, or pass --hostfile");
    }
  }
  return plan;
}

SupervisedProcess launcher_process(const std::vector<std::string>& argv,
                                   std::vector<std::pair<std::string, std::string>> set) {
  std::string name = argv.front().substr(argv.front().find_last_of('/') + 1);
  return SupervisedProcess{name, argv, {}, std::move(set)};
}

bool names(const std::vector<std::string>& argv, std::string_view name) {
  std::string placeholder = placeholder_word(name);
  return std::any_of(argv.begin(), argv.end(),
                     [&](const std::string& word) { return word.find(placeholder) != std::string::npos; });
}

std::vector<std::string> with_hosts(const std::vector<std::string>& argv, const std::string& host_list,
                                    const std::string& hostfile) {
  std::vector<std::string> words;
  for (const auto& word : argv) {
    words.push_back(expand_placeholders(word, {{k_hosts_key, host_list}, {k_hostfile_key, hostfile}}));
  }
  return words;
}

}  // namespace ezpz::core
