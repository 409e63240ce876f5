// Compiling and matching regular expressions with RE2, the only file that includes it.
#include "ezpz/util/regex.hpp"

#include <re2/re2.h>

#include "ezpz/util/error.hpp"

namespace ezpz::core {
namespace {

// Latin-1: every byte is one character, as std::regex read text before (a rank's output line or an
// environment value need not be UTF-8, and RE2's UTF-8 mode matches no invalid byte with '.').
re2::RE2::Options options() {
  re2::RE2::Options options;
  options.set_encoding(re2::RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  return options;
}

re2::StringPiece piece(std::string_view text) {
  return {text.data(), text.size()};
}

}  // namespace

Regex::Regex(const std::string& pattern, const SourceLoc& loc, const std::string& what)
    : m_re2(std::make_shared<const re2::RE2>(pattern, options())) {
  if (!m_re2->ok()) {
    throw UserError(loc, "'" + what + "' is not a regular expression: '" + pattern + "': " + m_re2->error(),
                    k_regex_hint);
  }
}

bool Regex::search(std::string_view text) const {
  return m_re2->Match(piece(text), 0, text.size(), re2::RE2::UNANCHORED, nullptr, 0);
}

std::optional<Regex::Groups> Regex::match(std::string_view text, bool whole) const {
  std::vector<re2::StringPiece> pieces(static_cast<std::size_t>(m_re2->NumberOfCapturingGroups()) + 1);
  if (!m_re2->Match(piece(text), 0, text.size(), whole ? re2::RE2::ANCHOR_BOTH : re2::RE2::UNANCHORED, pieces.data(),
                    static_cast<int>(pieces.size()))) {
    return std::nullopt;
  }
  Groups groups;
  for (const auto& group : pieces) {
    groups.push_back(group.data() == nullptr ? std::nullopt : std::optional(std::string(group.data(), group.size())));
  }
  return groups;
}

std::optional<Regex::Groups> Regex::search_groups(std::string_view text) const {
  return match(text, false);
}

std::optional<Regex::Groups> Regex::full_match_groups(std::string_view text) const {
  return match(text, true);
}

std::string Regex::replace_all(std::string_view text, std::string_view rewrite) const {
  std::string out(text);
  re2::RE2::GlobalReplace(&out, *m_re2, piece(rewrite));
  return out;
}

std::string regex_problem(const std::string& pattern) {
  re2::RE2 compiled(pattern, options());
  return compiled.ok() ? std::string() : compiled.error();
}

Regex compile_regex(const std::string& pattern, const SourceLoc& loc, const std::string& what) {
  return Regex(pattern, loc, what);
}

}  // namespace ezpz::core
