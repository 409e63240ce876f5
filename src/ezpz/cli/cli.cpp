// Argument parsing and the one place where errors become messages and exit codes.
#include "ezpz/cli/cli.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <new>
#include <string_view>
#include <system_error>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/runtime_command.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/version.hpp"

namespace ezpz::core {
namespace {

// Every command, by the name that chooses it (the name its registrar gives its subcommand). When the
// first argument names a command, only that registrar runs: CLI11 builds every option eagerly, and
// building all of them was most of ezpz's start-up (bench/README.md, hostlist). Otherwise (no command,
// --help, --version) every registrar runs, so the top-level help lists them all.
// `takes_program`: what follows the first "--" is a program (the job's `run`, a rank's command, yeet's
// SRC DEST), set aside before parsing. For the other commands "--" only ends the options, as usual, so
// `ezpz status -- 123` and an id that starts with '-' (`ezpz cancel -- -1`) reach the command.
struct Command {
  const char* name;
  CommandRegistrar add;
  bool takes_program;
};

const Command k_commands[] = {
    {"init", add_init_command, false},        {"doctor", add_doctor_command, true},
    {"render", add_render_command, true},     {"resolve", add_resolve_command, true},
    {"validate", add_validate_command, true}, {"systems", add_systems_command, false},
    {"schema", add_schema_command, false},    {"submit", add_submit_command, true},
    {"status", add_status_command, false},    {"cancel", add_cancel_command, false},
    {"logs", add_logs_command, false},        {"exec", add_exec_command, true},
    {"launch", add_launch_command, true},     {"kill", add_kill_command, false},
    {"test", add_test_command, true},         {"hostlist", add_hostlist_command, false},
    {"yeet", add_yeet_command, true},         {"probe", add_probe_command, false},
    {"api", add_api_command, false},          {"completion", add_completion_command, false},
    {"man", add_man_command, false},
};

const Command* find_command(std::string_view name) {
  for (const auto& command : k_commands) {
    if (name == command.name) return &command;
  }
  return nullptr;
}

void print_errors(const UserError& error) {
  for (const auto& diagnostic : error.diagnostics()) std::cerr << format_diagnostic(diagnostic);
  if (error.diagnostics().size() > 1) std::cerr << "ezpz: " << error.diagnostics().size() << " errors\n";
}

std::vector<std::string>& separated_program() {
  static std::vector<std::string> k_program;
  return k_program;
}

int run_command(int argc, char** argv);

// The top-level app, before any command is added.
std::unique_ptr<CLI::App> make_root_app() {
  auto app = std::make_unique<CLI::App>(
      "ezpz: portable distributed PyTorch jobs on HPC systems.\n"
      "Write a job spec once; render, submit and launch it on any system with a profile.",
      "ezpz");
  app->set_version_flag("--version", std::string("ezpz ") + k_version);
  app->require_subcommand(1);
  app->footer(
      "Exit codes: 0 ok, 1 a problem with the spec, profile or a command, 2 bad usage, 3 the operating\n"
      "system refused (a file, a process, memory), 70 a bug in ezpz.\n"
      "Docs: docs/spec-reference.md, docs/adding-a-system.md, docs/runtime-env.md");
  return app;
}

}  // namespace

std::unique_ptr<CLI::App> make_full_app(CommandAction& action) {
  std::unique_ptr<CLI::App> app = make_root_app();
  for (const auto& command : k_commands) command.add(*app, action);
  return app;
}

const std::vector<std::string>& program_after_separator() {
  return separated_program();
}

// Every exception ends here, once; each kind has its exit code (util/exit_codes.hpp, README.md).
int run_cli(int argc, char** argv) {
  try {
    return run_command(argc, argv);
  } catch (const UserError& error) {
    print_errors(error);
    return k_exit_user_error;
  } catch (const std::system_error& error) {  // std::filesystem::filesystem_error is one
    std::cerr << "ezpz: error: " << error.what()
              << "\n  hint: the operating system refused; check the path, its permissions and free space\n";
    return k_exit_system_error;
  } catch (const std::bad_alloc&) {
    std::cerr << "ezpz: error: out of memory\n";
    return k_exit_system_error;
  } catch (const std::exception& error) {
    std::cerr << "ezpz: internal error: " << error.what() << "\n  hint: this is a bug in ezpz; please report it\n";
    return k_exit_internal_error;
  } catch (...) {
    std::cerr << "ezpz: internal error: an unknown exception\n  hint: this is a bug in ezpz; please report it\n";
    return k_exit_internal_error;
  }
}

namespace {

int run_command(int argc, char** argv) {
  const Command* chosen = argc > 1 ? find_command(argv[1]) : nullptr;
  // Everything after the first "--" is the program of exec/launch/test …, never ezpz's own options.
  for (int i = 1; i < argc && (chosen == nullptr || chosen->takes_program); ++i) {
    if (std::string(argv[i]) != "--") continue;
    separated_program().assign(argv + i + 1, argv + argc);
    argc = i;
    break;
  }
  if (argc > 1 && argv[1][0] != '-' && chosen == nullptr) {
    std::vector<std::string> names;
    for (const auto& command : k_commands) names.emplace_back(command.name);
    std::cerr << "ezpz: usage error: unknown command '" << argv[1] << "'\n  hint: " << suggestion_hint(argv[1], names)
              << " (see 'ezpz --help')\n";
    return k_exit_usage;
  }
  CommandAction action;
  std::unique_ptr<CLI::App> root = chosen != nullptr ? make_root_app() : make_full_app(action);
  CLI::App& app = *root;
  if (chosen != nullptr) chosen->add(app, action);
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

  int code = action();
  // A full disk or a closed pipe behind stdout must not pass for success with a truncated script.
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::cerr << "ezpz: error: cannot write to standard output: " << std::strerror(errno) << "\n";
    return k_exit_user_error;
  }
  return code;
}

}  // namespace
}  // namespace ezpz::core
