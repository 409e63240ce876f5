// Argument parsing and the one place where errors become messages and exit codes.
#include "ezpz/cli/cli.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <new>
#include <string_view>
#include <system_error>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/command_words.hpp"
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
// `words`: how its words are read. `options`: "--" only ends the options, as usual, so `ezpz status -- 123`
// and an id that starts with '-' (`ezpz cancel -- -1`) reach the command. `program`: what follows the
// first "--" is a program (the job's `run`, a rank's command, yeet's SRC DEST), set aside before parsing.
// `launch_words`: as the Python ezpz's launch reads them (command_words.hpp): the program also starts at
// the first word that is no option, names like -np are read, and other options before "--" are passed on.
enum class Words { options, program, launch_words };
struct Command {
  const char* name;
  CommandRegistrar add;
  Words words;
};

const Command k_commands[] = {
    {"init", add_init_command, Words::options},
    {"doctor", add_doctor_command, Words::program},
    {"render", add_render_command, Words::program},
    {"resolve", add_resolve_command, Words::program},
    {"validate", add_validate_command, Words::program},
    {"systems", add_systems_command, Words::options},
    {"schema", add_schema_command, Words::options},
    {"submit", add_submit_command, Words::program},
    {"status", add_status_command, Words::options},
    {"cancel", add_cancel_command, Words::options},
    {"logs", add_logs_command, Words::options},
    {"exec", add_exec_command, Words::program},
    {"launch", add_launch_command, Words::launch_words},
    {"kill", add_kill_command, Words::options},
    {"test", add_test_command, Words::program},
    {"hostlist", add_hostlist_command, Words::options},
    {"yeet", add_yeet_command, Words::program},
    {"probe", add_probe_command, Words::options},
    {"api", add_api_command, Words::options},
    {"completion", add_completion_command, Words::options},
    {"man", add_man_command, Words::options},
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

// The words of this command line that are not ezpz's own options (one command line per process).
CommandWords& command_words() {
  static CommandWords k_words;
  return k_words;
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
  return command_words().program;
}

const std::vector<std::string>& options_passed_on() {
  return command_words().passed_on;
}

// Every exception ends here, once; each kind has its exit code (util/exit_codes.hpp, README.md).
int run_cli(int argc, char** argv) {
  try {
    return run_command(argc, argv);
  } catch (const SystemError& error) {
    print_errors(error);
    return k_exit_system_error;
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
  std::vector<std::string> words(argv, argv + argc);
  // Everything after the first "--" is the program of exec/launch/test …, never ezpz's own options.
  if (chosen == nullptr || chosen->words == Words::program) {
    auto separator = std::find(words.begin() + 1, words.end(), "--");
    if (separator != words.end()) {
      command_words().program.assign(separator + 1, words.end());
      words.erase(separator, words.end());
    }
  }
  if (words.size() > 1 && words[1][0] != '-' && chosen == nullptr) {
    std::vector<std::string> names;
    for (const auto& command : k_commands) names.emplace_back(command.name);
    std::cerr << "ezpz: usage error: unknown command '" << words[1] << "'\n  hint: " << suggestion_hint(words[1], names)
              << " (see 'ezpz --help')\n";
    return k_exit_usage;
  }
  CommandAction action;
  std::unique_ptr<CLI::App> root = chosen != nullptr ? make_root_app() : make_full_app(action);
  CLI::App& app = *root;
  if (chosen != nullptr) chosen->add(app, action);
  try {
    if (chosen != nullptr && chosen->words == Words::launch_words) {
      command_words() = read_command_words(*app.get_subcommand(chosen->name), {words.begin() + 2, words.end()});
      words.resize(2);
      words.insert(words.end(), command_words().options.begin(), command_words().options.end());
    }
    std::vector<char*> parsed;
    for (auto& word : words) parsed.push_back(word.data());
    app.parse(static_cast<int>(parsed.size()), parsed.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ezpz: usage error: " << as_typed(e.what(), command_words()) << "\n";
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
