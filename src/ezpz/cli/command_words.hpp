// What ezpz reads of a command's words before CLI11 parses them, for a command that takes them as the
// Python ezpz's launch does: option names of one dash and several letters ("-np", "-ppn", "-nh", which
// CLI11 2.1 reads as "-n p"), a program that starts at the first word that is not an option, and options
// passed on to the launcher. Errors name the option as the user typed it.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

namespace ezpz::core {

// The names in `names` ("-n,-np,--ranks") that CLI11 takes itself: "-n,--ranks".
std::string cli11_names(const std::string& names);

// Gives `option` of `command` the names of `names` that CLI11 cannot take ("-np"). --help, the man page
// and the completions show them beside its other names, and read_command_words reads them.
void add_dash_names(CLI::App& command, CLI::Option* option, const std::string& names);

// The names add_dash_names gave `option` of `command`, in order; none for other options.
std::vector<std::string> dash_names(const CLI::App& command, const CLI::Option& option);

// An option of `command` with every name of `names`, those CLI11 cannot take too.
template <typename T>
CLI::Option* add_named_option(CLI::App& command, const std::string& names, T& variable, const std::string& help) {
  CLI::Option* option = command.add_option(cli11_names(names), variable, help);
  add_dash_names(command, option, names);
  return option;
}

// The word that starts a program which is a Python module: `-m MODULE ARGS…`.
inline constexpr const char* k_module_word = "-m";

struct CommandWords {
  std::vector<std::string> options;    // for CLI11: the command's options and values (a dash name as its long name)
  std::vector<std::string> program;    // the program and its arguments
  std::vector<std::string> passed_on;  // options that are not the command's, with their values, in order
  // For messages: the name CLI11 reports for an option ("--ranks") and the name it was given by ("-np").
  std::vector<std::pair<std::string, std::string>> spellings;
};

// Reads `words` (those after the command's name) as the Python ezpz's launch takes them:
// - "--" ends the options, and what follows it is the program;
// - otherwise the program starts at the first word that is neither an option of `command` nor the value
//   of one, and everything after it is the program's (a later "--" too): `launch python3 train.py --lr 1`;
// - "-m" (when `command` has no such option) starts the program too: `launch -n 2 -m pkg.train --lr 1`
//   gives the program "-m pkg.train --lr 1", which the command runs with a Python interpreter;
// - a word that starts with '-' and is no option of `command`, and the words after it up to the next
//   option of `command`, are passed on (`-x FOO=bar`) when a "--" ends the options; without one such a
//   word is an error (CLI::ValidationError naming it).
CommandWords read_command_words(const CLI::App& command, const std::vector<std::string>& words);

// `message` (a CLI11 error) with the option named as it was typed: "--ranks: Value 0 not in range …"
// becomes "-np: Value 0 not in range …" after `-np 0`.
std::string as_typed(const std::string& message, const CommandWords& words);

}  // namespace ezpz::core
