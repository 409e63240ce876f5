// `ezpz kill`: signal the ranks ezpz started, on this node or on every node of the allocation.
#include <signal.h>

#include <iostream>
#include <map>
#include <memory>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/runtime_command.hpp"
#include "ezpz/runtime/allocation.hpp"
#include "ezpz/runtime/kill.hpp"
#include "ezpz/runtime/launch.hpp"
#include "ezpz/submit/process.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/signals.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

struct KillOptions {
  std::string system;
  std::string signal = "TERM";
  std::string job;
  bool all_nodes = false;
  bool dry_run = false;
};

int kill_here(const KillOptions& options) {
  int sig = *signal_number(options.signal, SignalUse::kill);
  std::string job = options.job.empty()
                        ? current_job_id(process_env(), Installation::from_process().catalog.job_variables())
                        : options.job;
  std::string node = node_name(process_env());
  auto processes = find_marked_processes(job, node);
  std::string where = "ezpz kill on " + node + ": ";
  if (processes.empty()) {
    std::cout << where << "no rank process of yours" << (job.empty() ? "" : " in job " + job) << "\n";
    return k_exit_ok;
  }
  // A listed rank may end before its signal comes (the launch stops the others once one is gone).
  const std::map<SignalSent, const char*> k_said = {{SignalSent::sent, "sent "},
                                                    {SignalSent::gone, "found ended, did not send "},
                                                    {SignalSent::failed, "could not send "}};
  int failed = 0;
  for (const auto& process : processes) {
    SignalSent sent = options.dry_run ? SignalSent::sent : send_signal(process.pid, sig);
    if (sent == SignalSent::failed) ++failed;
    std::cout << where << (options.dry_run ? "would send " : k_said.at(sent)) << signal_name(sig) << " to "
              << process.pid << " (job " << process.job_id << ", rank " << process.rank
              << "): " << printable(process.command) << "\n";
  }
  return failed == 0 ? k_exit_ok : k_exit_user_error;
}

// --all-nodes: `ezpz kill` once on every node, through the allocation's own launcher (no SSH).
int kill_everywhere(const KillOptions& options) {
  Installation installation = Installation::from_process();
  LaunchRequest request;
  request.system = runtime_system(installation, options.system);
  request.per_node = true;
  request.program = {installation.ezpz_bin, "kill", "--signal", options.signal};
  std::string job =
      options.job.empty() ? current_job_id(process_env(), installation.catalog.job_variables()) : options.job;
  if (!job.empty()) request.program.insert(request.program.end(), {"--job", job});
  if (options.dry_run) request.program.push_back("--dry-run");
  LaunchPlan plan = plan_launch(installation.catalog, request, process_env(), installation.ezpz_bin);
  if (plan.kind == LauncherKind::local) return kill_here(options);  // one node: this one
  std::cerr << "ezpz kill: " << command_text(plan.argv) << "\n";
  return supervise_processes({launcher_process(plan.argv, plan.env)}, Supervision{}).code;
}

}  // namespace

void add_kill_command(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<KillOptions>();
  CLI::App* command =
      app.add_subcommand("kill", "Signal the ranks that ezpz started: on this node, or with --all-nodes on every node");
  command
      ->add_option("--signal", options->signal,
                   "the signal to send (default TERM): " + join(signal_names(SignalUse::kill), ", "))
      ->check(CLI::Validator([](const std::string& text) { return signal_problem(text, SignalUse::kill); }, "SIGNAL"));
  command->add_option("--job", options->job, "only the ranks of this job (default: the allocation's, when inside one)");
  command->add_option("--system", options->system,
                      "system profile for --all-nodes (default: $EZPZ_SYSTEM, else detected)");
  command->add_flag("--all-nodes", options->all_nodes,
                    "on every node of the allocation, through its own launcher (one task per node; no SSH)");
  command->add_flag("--dry-run", options->dry_run, "list the processes, send nothing");
  command->footer(
      "Only your own processes that ezpz exec started (marked with EZPZ_RANK_MARK) and their children are\n"
      "signalled, never ezpz kill itself or what started it. One line per process on stdout.\n"
      "Exit codes: 0 (also when there was nothing to signal), 1 when a signal could not be sent or\n"
      "the launcher failed, 2 for bad options.");
  command->callback([&action, options] {
    action = [options] { return options->all_nodes ? kill_everywhere(*options) : kill_here(*options); };
  });
}

}  // namespace ezpz::core
