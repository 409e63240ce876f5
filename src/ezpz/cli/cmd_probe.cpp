// `ezpz probe`: the health probe's task on one node (runtime/health_probe.hpp); `ezpz launch
// --spare-nodes` starts one per node through the launcher after a failed attempt.
#include <iostream>

#include "ezpz/cli/command.hpp"
#include "ezpz/runtime/device.hpp"
#include "ezpz/runtime/health_probe.hpp"
#include "ezpz/runtime/kill.hpp"
#include "ezpz/util/exit_codes.hpp"

namespace ezpz::core {

void add_probe_command(CLI::App& app, CommandAction& action) {
  CLI::App* command = app.add_subcommand(
      "probe", "Print this node's name and the devices it sees, as the failover health probe reads them");
  command->footer("Prints one line: ezpz-probe node=NAME devices=KIND:COUNT (docs/failover.md).");
  command->callback([&action] {
    action = [] {
      std::string source;
      Devices seen = probe_devices("/", process_env(), &source);
      std::cout << probe_answer(node_name(process_env()), seen) << std::endl;
      return k_exit_ok;
    };
  });
}

}  // namespace ezpz::core
