// Regular expressions from profiles, specs and options (RE2's syntax), compiled with their place and
// matched in time linear in the text: the one place ezpz matches a pattern.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ezpz/util/source.hpp"

namespace re2 {
class RE2;
}

namespace ezpz::core {

// A compiled pattern. Patterns are RE2's dialect (docs/limits.md, "Regular expressions"): no
// backreferences, no lookaround; the text is bytes, as std::regex read it. A match takes time linear
// in the text and memory bounded by the pattern, and never recurses on the text, whoever wrote it (a
// scheduler's answer, an environment value, a rank's output line). Copies share the compiled program;
// matching is thread-safe.
class Regex {
 public:
  // The groups of one match: [0] the whole match, [i] group i, nullopt for a group that took no part.
  using Groups = std::vector<std::optional<std::string>>;

  // Throws UserError at `loc`, naming `what` ("failover.patterns 'x'"), when `pattern` is not one.
  Regex(const std::string& pattern, const SourceLoc& loc, const std::string& what);

  // Whether the pattern matches somewhere in `text`; ^ and $ are its ends unless the pattern sets (?m).
  bool search(std::string_view text) const;
  // The first (leftmost) match in `text`, or nullopt.
  std::optional<Groups> search_groups(std::string_view text) const;
  // The match of all of `text`, or nullopt.
  std::optional<Groups> full_match_groups(std::string_view text) const;
  // `text` with every match replaced by `rewrite`, where \1 … \9 stand for groups and \\ for a backslash.
  std::string replace_all(std::string_view text, std::string_view rewrite) const;

 private:
  std::optional<Groups> match(std::string_view text, bool whole) const;
  std::shared_ptr<const re2::RE2> m_re2;
};

// What to say with a pattern RE2 refuses.
inline constexpr const char* k_regex_hint =
    "RE2's syntax: no backreferences or lookaround (docs/limits.md#regular-expressions)";

// Why `pattern` is not a regular expression (RE2's reason, "missing ): ((" …), or "".
std::string regex_problem(const std::string& pattern);

// Regex(pattern, loc, what).
Regex compile_regex(const std::string& pattern, const SourceLoc& loc, const std::string& what);

}  // namespace ezpz::core
