// How commands plug into the CLI: each command file adds its subcommand and sets the action to run.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ezpz::core {

// What a command does once arguments are parsed; returns the exit code. Throws UserError for
// problems the user can fix.
using CommandAction = std::function<int()>;

// Adds one subcommand to `app`; stores into `action` what to run when it is chosen.
using CommandRegistrar = void (*)(CLI::App& app, CommandAction& action);

void add_render_command(CLI::App& app, CommandAction& action);
void add_resolve_command(CLI::App& app, CommandAction& action);
void add_validate_command(CLI::App& app, CommandAction& action);
void add_systems_command(CLI::App& app, CommandAction& action);
void add_schema_command(CLI::App& app, CommandAction& action);
void add_exec_command(CLI::App& app, CommandAction& action);
void add_launch_command(CLI::App& app, CommandAction& action);
void add_kill_command(CLI::App& app, CommandAction& action);
void add_probe_command(CLI::App& app, CommandAction& action);
void add_test_command(CLI::App& app, CommandAction& action);
void add_submit_command(CLI::App& app, CommandAction& action);
void add_status_command(CLI::App& app, CommandAction& action);
void add_cancel_command(CLI::App& app, CommandAction& action);
void add_logs_command(CLI::App& app, CommandAction& action);
void add_hostlist_command(CLI::App& app, CommandAction& action);
void add_yeet_command(CLI::App& app, CommandAction& action);
void add_init_command(CLI::App& app, CommandAction& action);
void add_doctor_command(CLI::App& app, CommandAction& action);
void add_api_command(CLI::App& app, CommandAction& action);
void add_completion_command(CLI::App& app, CommandAction& action);
void add_man_command(CLI::App& app, CommandAction& action);

// The whole command line as `ezpz --help` sees it: the top-level app with every command added (cli.cpp).
// `ezpz completion` and `ezpz man` are generated from it, so they follow the parser. Parsing with it
// stores the chosen command's action in `action`, which must outlive the app.
std::unique_ptr<CLI::App> make_full_app(CommandAction& action);

}  // namespace ezpz::core
