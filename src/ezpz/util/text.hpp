// Small string helpers: splitting, joining, shell quoting and "did you mean" suggestions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ezpz::core {

std::vector<std::string> split(std::string_view text, char separator);
// Splits on runs of spaces; no empty words.
std::vector<std::string> split_words(std::string_view text);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
// Numbers joined the same way: {1, 2, 4} with ", " is "1, 2, 4".
std::string join(const std::vector<int>& numbers, std::string_view separator);
std::string trim(std::string_view text);
inline bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}
inline bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}
// The rest of `text` after `prefix` ("NodeName=n1" less "NodeName=" is "n1"), or nullopt without it.
inline std::optional<std::string_view> strip_prefix(std::string_view text, std::string_view prefix) {
  if (!starts_with(text, prefix)) return std::nullopt;
  return text.substr(prefix.size());
}
// `text` as a column of a plain-text table: padded with blanks to `width`, or followed by one blank when
// it is as long or longer, so that columns never run together.
std::string column(std::string_view text, size_t width);
std::string to_upper(std::string_view text);
// `text` with every `from` (not empty) replaced by `to`.
std::string replace_all(std::string text, std::string_view from, std::string_view to);

// Quotes `word` for a POSIX shell so it is always taken literally: plain words stay as they are,
// everything else is wrapped in single quotes ('it'\''s').
std::string shell_quote(std::string_view word);

// A shell variable name: letters, digits and '_', not starting with a digit.
bool valid_env_name(std::string_view name);

// Edit distance counting an adjacent transposition ("nodse" → "nodes") as one edit.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, when it is close enough to be a likely typo; else "".
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

// "did you mean 'x'?" when a close candidate exists, else "expected one of 'a', 'b', 'c'".
std::string suggestion_hint(std::string_view word, const std::vector<std::string>& candidates);

// `text` with control characters shown as escapes ("\n", "\x1b"), for quoting values in messages.
std::string printable(std::string_view text);

// A value someone else wrote, quoted for a message: "'value'" printable, or when longer than
// `max_bytes`, "'its first max_bytes bytes…' (N bytes)".
std::string quoted_cut(std::string_view text, std::size_t max_bytes = 100);

// Whether `text` is well-formed UTF-8 (no stray continuation bytes, overlong forms or surrogates).
bool is_valid_utf8(std::string_view text);

// Why `text` cannot be a value of a spec or profile ("is not valid UTF-8", "holds a NUL byte", "holds
// a carriage return"), or "" when it can.
std::string text_problem(std::string_view text);

// "'a', 'b' or 'c'"
std::string quoted_list(const std::vector<std::string>& items, std::string_view last_separator = " or ");

}  // namespace ezpz::core

namespace ezpz::core {

// Splits a command line into words the way a POSIX shell would, but without any expansion:
// quotes and backslashes group and escape, `$`, `;`, `|` … stay literal characters of the words.
// Returns nullopt (with `why`) on an unterminated quote.
std::optional<std::vector<std::string>> split_command_words(std::string_view text, std::string* why);

}  // namespace ezpz::core
