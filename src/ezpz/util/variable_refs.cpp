// Finding, expanding and shell-quoting `$NAME` references in profile environment values.
#include "ezpz/util/variable_refs.hpp"

#include <cctype>
#include <vector>

#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// One piece of a value: literal text, or a reference to the variable `name`.
struct Piece {
  std::string text;  // the literal text, or the variable's name
  bool reference = false;
};

std::vector<Piece> pieces(std::string_view value) {
  std::vector<Piece> out;
  auto literal = [&](std::string_view text) {
    if (out.empty() || out.back().reference) out.push_back({});
    out.back().text += text;
  };
  for (size_t i = 0; i < value.size();) {
    if (value[i] == '$' && i + 1 < value.size()) {
      size_t start = i + 1;
      bool braced = value[start] == '{';
      if (braced) ++start;
      size_t end = start;
      if (end < value.size() && is_name_start(value[end])) {
        while (end < value.size() && is_name_char(value[end])) ++end;
      }
      bool closed = !braced || (end < value.size() && value[end] == '}');
      if (end > start && closed) {
        out.push_back({std::string(value.substr(start, end - start)), true});
        i = braced ? end + 1 : end;
        continue;
      }
    }
    literal(value.substr(i, 1));
    ++i;
  }
  return out;
}

}  // namespace

bool has_variable_refs(std::string_view value) {
  for (const auto& piece : pieces(value)) {
    if (piece.reference) return true;
  }
  return false;
}

std::optional<std::string> text_before_ref(std::string_view value, std::string_view name) {
  std::string before;
  for (const auto& piece : pieces(value)) {
    if (piece.reference && piece.text == name) return before;
    before += piece.reference ? "${" + piece.text + "}" : piece.text;
  }
  return std::nullopt;
}

std::string expand_variable_refs(std::string_view value, const VariableLookup& lookup) {
  std::string out;
  for (const auto& piece : pieces(value)) {
    if (!piece.reference) {
      out += piece.text;
    } else if (auto found = lookup(piece.text)) {
      out += *found;
    }
  }
  return out;
}

std::string shell_quote_expanding(std::string_view value) {
  if (!has_variable_refs(value)) return shell_quote(value);
  std::string out = "\"";
  for (const auto& piece : pieces(value)) {
    if (piece.reference) {
      out += "${" + piece.text + "}";
      continue;
    }
    for (char c : piece.text) {
      if (c == '"' || c == '\\' || c == '`' || c == '$') out += '\\';
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace ezpz::core
