// {placeholders} in the words profiles and scheduler files write: option groups for launchers and
// directives ("-n {total_ranks}", "--cpu-bind={cpu_bind}", "--hostfile $PBS_NODEFILE") and the words of
// scheduler commands ("{job_id}", "{hosts}"). One scanner serves all of them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ezpz::core {

// One word of a command line. A word that was exactly `$NAME` refers to a variable of the job's
// environment and is expanded when the job runs (`variable` holds NAME).
struct CommandWord {
  std::string text;
  bool variable = false;
};

// Expands one group: splits it on spaces and substitutes placeholders from `values`. Returns nullopt
// when a placeholder's value is empty (the whole group is dropped). Throws UserError naming
// `context` when a placeholder is not in `values` at all (a typo in the profile).
std::optional<std::vector<CommandWord>> expand_option_group(const std::string& group,
                                                            const std::map<std::string, std::string>& values,
                                                            const std::string& context);

// `text` with each {name} replaced by values[name]; a '{' without a '}' is text, and a name `values`
// does not hold stays as written (a later step fills it in: ezpz launch's {hosts}).
std::string expand_placeholders(std::string_view text, const std::map<std::string, std::string>& values);

// "{name}", the word expand_placeholders replaces.
std::string placeholder_word(std::string_view name);

// A word as it must appear in a shell script: "$NAME" for variables, else shell_quote(text).
std::string shell_word(const CommandWord& word);

}  // namespace ezpz::core
