// Argument parsing and the one place where errors become messages and exit codes.
#include "ezpz/cli/cli.hpp"

#include <algorithm>
#include <iostream>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/runtime_command.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/version.hpp"

namespace ezpz {
namespace {

const CommandRegistrar k_commands[] = {
    add_render_command, add_resolve_command, add_validate_command, add_systems_command, add_schema_command,
    add_submit_command, add_status_command,  add_cancel_command,   add_logs_command,    add_exec_command,
    add_launch_command, add_test_command,    add_hostlist_command, add_yeet_command,
};

void print_errors(const UserError& error) {
  for (const auto& diagnostic : error.diagnostics()) std::cerr << format_diagnostic(diagnostic);
  if (error.diagnostics().size() > 1) std::cerr << "ezpz: " << error.diagnostics().size() << " errors\n";
}

std::vector<std::string>& separated_program() {
  static std::vector<std::string> k_program;
  return k_program;
}

}  // namespace

const std::vector<std::string>& program_after_separator() { return separated_program(); }

int run_cli(int argc, char** argv) {
  // Everything after the first "--" is the program of exec/launch/test, never ezpz's own options.
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) != "--") continue;
    separated_program().assign(argv + i + 1, argv + argc);
    argc = i;
    break;
  }
  CLI::App app{
      "ezpz: portable distributed PyTorch jobs on HPC systems.\n"
      "Write a job spec once; render, submit and launch it on any system with a profile.",
      "ezpz"};
  app.set_version_flag("--version", std::string("ezpz ") + k_version);
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 ok, 1 a problem with the spec, profile or a command, 2 bad usage.\n"
      "Docs: docs/spec-reference.md, docs/adding-a-system.md, docs/runtime-env.md");
  CommandAction action;
  for (auto add : k_commands) add(app, action);

  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  if (argc > 1 && argv[1][0] != '-' && std::find(names.begin(), names.end(), argv[1]) == names.end()) {
    std::cerr << "ezpz: usage error: unknown command '" << argv[1] << "'\n  hint: "
              << suggestion_hint(argv[1], names) << " (see 'ezpz --help')\n";
    return k_exit_usage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ezpz: usage error: " << e.what() << "\n";
    std::cerr << "  hint: run 'ezpz --help' or 'ezpz COMMAND --help'\n";
    return k_exit_usage;
  }

  try {
    return action();
  } catch (const UserError& error) {
    print_errors(error);
    return k_exit_user_error;
  }
}

}  // namespace ezpz
