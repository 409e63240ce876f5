// `ezpz schema`: the JSON Schema of the job spec, for editors (yaml-language-server).
#include <iostream>

#include "ezpz/cli/command.hpp"
#include "ezpz/spec/job_spec.hpp"
#include "ezpz/util/exit_codes.hpp"

namespace ezpz::core {

void add_schema_command(CLI::App& app, CommandAction& action) {
  CLI::App* command = app.add_subcommand("schema", "Print the JSON Schema of the job spec");
  command->footer(
      "Editors: save it as ezpz.schema.json and put\n"
      "  # yaml-language-server: $schema=ezpz.schema.json\n"
      "at the top of job files.");
  command->callback([&action] {
    action = [] {
      std::cout << job_spec_schema();
      return static_cast<int>(k_exit_ok);
    };
  });
}

}  // namespace ezpz::core
