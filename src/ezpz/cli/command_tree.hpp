// The command line as plain data (commands, options, help texts), read from the CLI11 app tree that
// parses it: what `ezpz completion` and `ezpz man` are generated from.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace ezpz::core {

struct OptionDoc {
  std::vector<std::string> names;  // as typed, short ones first: "-n", "-np", "--ranks"; empty for a positional
  std::string positional;          // a positional argument's name ("spec"); empty for an option
  std::string value;               // the value's name ("N", "TIME", "TEXT"); empty for a flag
  std::string help;
  bool required = false;
  bool repeats = false;  // takes any number of values (a positional list, or an option given again)
};

struct CommandDoc {
  std::vector<std::string> path;  // the command words after "ezpz": {"systems", "show"}; empty for ezpz
  std::string description;
  std::string footer;
  std::vector<OptionDoc> options;  // named options, in the order they were added (--help first)
  std::vector<OptionDoc> positionals;
  std::vector<CommandDoc> commands;
  bool needs_command = false;  // a subcommand must follow
  bool takes_extras = false;   // takes arguments it declares only in its footer (hostlist expand)

  std::string name() const { return path.empty() ? "ezpz" : path.back(); }
  std::string full_name() const;  // "ezpz systems show"
};

// The tree under `app`, without what its help hides (an empty group): the same commands and options
// that `--help` shows.
CommandDoc describe_command_tree(const CLI::App& app);

}  // namespace ezpz::core
