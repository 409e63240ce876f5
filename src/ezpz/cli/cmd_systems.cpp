// `ezpz systems list|show|detect`: the known system profiles, one in detail, and which one is here.
#include <iostream>
#include <memory>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/job_options.hpp"
#include "ezpz/profile/detect.hpp"
#include "ezpz/util/cpu_list.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {
namespace {

constexpr const char* k_skipped_hint =
    "only you or root may own and write a profile directory, its files and the directories above it: "
    "chown it, chmod go-w, or take it off the search path (docs/security.md)";

int list_systems() {
  Installation installation = Installation::from_process();
  std::cout << column("NAME", 12) << column("SCHEDULER", 11) << column("DEVICES", 10) << "DESCRIPTION\n";
  for (const auto& skipped : installation.catalog.skipped()) {
    std::cerr << format_diagnostic({{}, skipped.message(), k_skipped_hint, Severity::warning});
  }
  int status = k_exit_ok;
  for (const auto& name : installation.catalog.system_names()) {
    const SystemProfile* loaded = nullptr;
    try {
      loaded = &installation.catalog.system(name);
    } catch (const UserError& error) {
      std::cout << column(name, 12) << "broken: " << error.diagnostics().front().loc.describe() << ": "
                << error.diagnostics().front().message << " (see 'ezpz systems show " << name << "')\n";
      status = k_exit_user_error;
      continue;
    }
    const SystemProfile& profile = *loaded;
    const Devices& devices = profile.node.devices;
    std::string device_text =
        devices.kind == DeviceKind::cpu ? "cpu" : std::to_string(devices.count) + "x" + device_kind_name(devices.kind);
    std::string where = starts_with(profile.path, "systems/") ? "" : "  [" + profile.path + "]";
    std::cout << column(name, 12) << column(profile.scheduler, 11) << column(device_text, 10) << profile.description
              << where << "\n";
  }
  return status;
}

void print_list(const char* title, const std::vector<std::string>& items) {
  if (items.empty()) return;
  std::cout << title << ":\n";
  for (const auto& item : items) std::cout << "  - " << item << "\n";
}

void print_variables(const char* title, const std::vector<std::pair<std::string, std::string>>& vars) {
  if (vars.empty()) return;
  std::cout << title << ":\n";
  for (const auto& [name, value] : vars) std::cout << "  " << name << "=" << value << "\n";
}

int show_system(const std::string& name) {
  Installation installation = Installation::from_process();
  const SystemProfile& p = installation.catalog.system(name);
  const NodeShape& node = p.node;
  std::cout << p.name << ": " << p.description << "\n";
  std::cout << "file:       " << p.path << (p.extends.empty() ? "" : " (extends " + p.extends + ")") << "\n";
  std::cout << "scheduler:  " << p.scheduler << "\n";
  std::cout << "audited:    " << (p.audited.empty() ? "never" : p.audited) << "\n";
  if (node.usable_cores() == 0) {
    std::cout << "node:       shape unknown (no cpu checks; cpus_per_rank defaults to 1)";
  } else {
    std::cout << "node:       " << node.sockets << " socket(s) x " << node.cores_per_socket << " cores x "
              << node.threads_per_core << " thread(s), " << node.usable_cores() << " usable cores";
  }
  if (!node.reserved_cores.empty()) std::cout << " (reserved: " << format_cpu_group(node.reserved_cores) << ")";
  if (!node.service_cores.empty()) {
    std::cout << "\nservice:    cores " << format_cpu_group(node.service_cores) << " left out of generated cpu lists";
  }
  std::cout << "\n";
  const Devices& devices = node.devices;
  std::cout << "devices:    " << devices.count << " x " << device_kind_name(devices.kind);
  if (!devices.visibility.empty())
    std::cout << " via " << devices.visibility << " (" << devices.select << ", order " << join(devices.order, ",")
              << ")";
  std::cout << "\n";
  if (!devices.sockets.empty()) std::cout << "  on sockets: " << join(devices.sockets, ",") << "\n";
  for (const auto& [ranks, layout] : devices.by_ranks_per_node) {
    std::cout << "  for " << ranks << " ranks/node: " << layout.count << " devices";
    if (!layout.sockets.empty()) std::cout << " on sockets " << join(layout.sockets, ",");
    std::cout << "\n";
  }
  std::cout << "launcher:   " << join(p.launcher.args, " ") << "\n";
  if (!p.launcher.multi_node_args.empty())
    std::cout << "  on more than one node: " << join(p.launcher.multi_node_args, " ") << "\n";
  for (const auto& [ranks, binding] : p.launcher.cpu_bind)
    std::cout << "  cpu-bind for " << ranks << " ranks/node: " << binding << "\n";
  for (const auto& [filesystem, groups] : p.launcher.filesystem_args)
    std::cout << "  with filesystem " << filesystem << ": " << join(groups, " ") << "\n";
  if (!p.launcher.env_option.empty()) {
    std::vector<std::string> names = {"the script's exports"};
    names.insert(names.end(), p.launcher.env_names.begin(), p.launcher.env_names.end());
    std::cout << "  passes to the ranks, each with " << p.launcher.env_option << ": " << join(names, ", ") << "\n";
  }
  if (!node.node_local.empty()) std::cout << "node-local: " << node.node_local << "\n";
  std::cout << "master:     " << p.master_addr
            << (p.master_port ? ":" + std::to_string(*p.master_port) : std::string(", port from the job id")) << "\n";
  if (!p.queues.empty()) {
    std::cout << "queues:\n";
    for (const auto& queue : p.queues) {
      std::string nodes =
          std::to_string(queue.min_nodes) + "-" + (queue.max_nodes ? std::to_string(*queue.max_nodes) : "");
      std::string walltime = queue.max_walltime ? format_walltime(*queue.max_walltime) : "-";
      for (const auto& step : queue.walltime_by_nodes) {
        walltime += " (<=" + std::to_string(step.max_nodes) + " nodes: " + format_walltime(step.max_walltime) + ")";
      }
      if (queue.min_walltime) walltime += " (min " + format_walltime(*queue.min_walltime) + ")";
      std::cout << "  " << column(queue.name, 15) << column("nodes " + nodes, 18) << "walltime " << walltime
                << (queue.description.empty() ? "" : "  " + queue.description) << "\n";
      if (queue.by_request) std::cout << "    by request only\n";
      if (!queue.ranks_per_node.empty())
        std::cout << "    ranks_per_node: only " << join(queue.ranks_per_node, ", ") << "\n";
      if (!queue.routes_to.empty()) std::cout << "    routes to: " << join(queue.routes_to, ", ") << "\n";
      for (const auto& cap : queue.caps) std::cout << "    cap: " << cap.describe() << "\n";
    }
  }
  print_list("required", p.required);
  print_list("filesystems", p.filesystems);
  print_variables("backend environment (always)", p.backend_env.always);
  print_variables("backend environment (single node)", p.backend_env.single_node);
  print_variables("backend environment (multi node)", p.backend_env.multi_node);
  for (const auto& [ranks, vars] : p.backend_env.by_ranks_per_node) {
    print_variables(("backend environment (" + std::to_string(ranks) + " ranks per node)").c_str(), vars);
  }
  print_list("sources", p.sources);
  print_list("UNVERIFIED", p.unverified);
  print_list("notes", p.notes);
  return k_exit_ok;
}

int detect_here_command() {
  Installation installation = Installation::from_process();
  auto detection = detect_here(installation.catalog);
  if (!detection) throw UserError("no system profile matches this machine", "pass --system NAME or add a profile");
  std::cout << detection->system << "\n";
  std::cerr << "ezpz: detected '" << detection->system << "': " << detection->reason << "\n";
  // An installed scheduler is evidence for submitting, not for where ranks run (DetectInput::installed).
  DetectInput ranks{process_env(), host_name()};
  ranks.installed = false;
  auto here = detect_system(installation.catalog, ranks);
  if (here && here->system != detection->system) {
    std::cerr << "ezpz: ranks started here (ezpz launch, ezpz exec, ezpz.setup_torch()) outside a job use '"
              << here->system << "': " << here->reason << "\n";
  }
  return k_exit_ok;
}

}  // namespace

void add_systems_command(CLI::App& app, CommandAction& action) {
  CLI::App* command = app.add_subcommand("systems", "List, show and detect system profiles");
  command->require_subcommand(1);
  command->footer(
      "Profiles: compiled in, and searched in $EZPZ_SYSTEMS_PATH, ~/.config/ezpz/systems, "
      "<prefix>/share/ezpz/systems.");
  command->add_subcommand("list", "List the known systems")->callback([&action] { action = list_systems; });
  auto name = std::make_shared<std::string>();
  CLI::App* show = command->add_subcommand("show", "Show one system profile: node shape, launcher, queues, sources");
  show->add_option("name", *name, "system name")->required();
  show->callback([&action, name] { action = [name] { return show_system(*name); }; });
  command->add_subcommand("detect", "Print the system this machine matches (stdout) and why (stderr)")
      ->callback([&action] { action = detect_here_command; });
}

}  // namespace ezpz::core
