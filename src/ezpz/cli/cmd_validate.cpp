// `ezpz validate`: report every problem in a job spec at once, or say it is fine.
#include <iostream>
#include <memory>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/job_options.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {

void add_validate_command(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<JobOptions>();
  CLI::App* command =
      app.add_subcommand("validate", "Check a job spec against its system profile; report every problem");
  options->add_to(*command);
  command->footer(
      "Prints one summary line on success (exit 0); each problem as file:line:col on stderr (exit 1). "
      "Warnings (queue caps, by-request queues) go to stderr and do not change the exit code.");
  command->callback([&action, options] {
    action = [options] {
      Installation installation = Installation::from_process();
      ResolvedJob job = options->resolve_job(installation.catalog);
      for (const auto& warning : job.warnings) std::cerr << format_diagnostic(warning);
      const JobSpec& spec = job.spec;
      std::cout << options->spec_path << ": ok: " << job.profile->name << ", " << spec.nodes->value << " node(s) x "
                << spec.ranks_per_node->value << " rank(s), " << format_walltime(spec.walltime->value)
                << (spec.queue ? ", queue " + spec.queue->value : std::string()) << "\n";
      return static_cast<int>(k_exit_ok);
    };
  });
}

}  // namespace ezpz::core
