// `$NAME` and `${NAME}` in a profile's environment values: references to the job's environment,
// expanded when the job runs (by the script's shell, and by `ezpz exec`).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace ezpz::core {

using VariableLookup = std::function<std::optional<std::string>(const std::string&)>;

// Whether `value` holds a reference: '$' followed by a shell-style name, or '${' name '}'. Any other
// '$' is a literal character.
bool has_variable_refs(std::string_view value);

// The part of `value` before its first reference to `name` ("/x:" for "/x:$LD_LIBRARY_PATH" and
// LD_LIBRARY_PATH; other references in it written as "${NAME}"), or nullopt when `value` does not
// refer to `name`.
std::optional<std::string> text_before_ref(std::string_view value, std::string_view name);

// `value` with each reference replaced by the variable's value (an unset variable is empty, as in
// the shell).
std::string expand_variable_refs(std::string_view value, const VariableLookup& lookup);

// `value` as one shell word that expands exactly its references and nothing else: plain words and
// values without references as shell_quote() gives them, else in double quotes with every '"', '\',
// '`' and literal '$' escaped and each reference written as "${NAME}".
std::string shell_quote_expanding(std::string_view value);

}  // namespace ezpz::core
