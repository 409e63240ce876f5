// `ezpz render`: print the batch script (and nothing else) on stdout, or write it with -o.
#include <iostream>
#include <memory>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/job_options.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/file.hpp"

namespace ezpz::core {

void add_render_command(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<JobOptions>();
  auto output = std::make_shared<std::string>();
  CLI::App* command =
      app.add_subcommand("render", "Print the batch script for a job spec (ezpz render job.yaml | qsub)");
  options->add_to(*command);
  command->add_option("-o,--output", *output, "write the script to FILE instead of stdout (made executable)");
  command->footer("Only the script goes to stdout; diagnostics go to stderr.");
  command->callback([&action, options, output] {
    action = [options, output] {
      Installation installation = Installation::from_process();
      Script script = render(options->resolve_job(installation.catalog), installation.catalog, installation.ezpz_bin);
      if (output->empty()) {
        std::cout << script.text << std::flush;
      } else {
        write_file_atomically(*output, script.text, true);
      }
      return static_cast<int>(k_exit_ok);
    };
  });
}

}  // namespace ezpz::core
