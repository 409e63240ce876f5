// How commands plug into the CLI: each command file adds its subcommand and sets the action to run.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
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

}  // namespace ezpz::core
