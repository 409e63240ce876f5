// Reading a directive line as the scheduler reads it: its words, then its options by the scheduler's table.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ezpz/profile/scheduler.hpp"

namespace ezpz::core {

// One option that a directive line sets.
struct DirectiveOption {
  std::string spelled;               // as written: "-N", "--partitio", "-l walltime"
  std::vector<std::string> options;  // its one name ("--nodes"); every option an abbreviation may mean
  std::optional<std::string> value;  // its value ("-l walltime=1:00:00": "1:00:00"); none for a flag
};

struct ParsedDirective {
  std::vector<DirectiveOption> options;  // in line order
  std::string problem;                   // why the scheduler would refuse the line; "" if it reads it
};

// The words of a directive line as sbatch (get_argument) and qsub (make_argv) split it: blanks
// separate words, '…' and "…" group, '\' takes the next character literally. `problem` is set for an
// unmatched quote.
std::vector<std::string> directive_words(std::string_view line, std::string* problem);

// Parses `line` (without the "#PBS"/"#SBATCH" prefix) with getopt's rules and `table`: short options
// with attached or separate values and combined flags, `--name=value` and `--name value`,
// abbreviated long names when the table allows them, and list options split on ',' into one option
// per name. A long name the table does not know is kept as it is (sites add sbatch options through
// SPANK plugins); an unknown short letter, a missing value and a word that is no option are problems.
ParsedDirective parse_directive(const OptionTable& table, std::string_view line);

// The one name of every option `line` sets (the first meaning of an abbreviation).
std::vector<std::string> directive_option_names(const OptionTable& table, std::string_view line);

}  // namespace ezpz::core
