// {placeholder} expansion: option groups, scheduler command words, output paths and launch hosts.
#include "ezpz/util/option_template.hpp"

#include <algorithm>
#include <cctype>

#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

// NAME for a word that is exactly "$NAME" or "${NAME}".
std::optional<std::string> variable_reference(const std::string& word) {
  bool braced = word.size() > 3 && starts_with(word, "${") && ends_with(word, "}");
  if (!braced && (word.size() < 2 || word[0] != '$')) return std::nullopt;
  std::string name = braced ? word.substr(2, word.size() - 3) : word.substr(1);
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) ||
      !std::all_of(name.begin(), name.end(), word_char)) {
    return std::nullopt;
  }
  return name;
}

// Calls `literal` for each run of text and `placeholder` for each {name}, in order; a '{' without a
// '}' after it is text, and so is a '{' that another '{' follows before the '}': the placeholder is the
// innermost pair ("${X:-{hosts}}" and "{{hosts}}" hold {hosts}).
template <typename Literal, typename Placeholder>
void scan_placeholders(std::string_view text, Literal&& literal, Placeholder&& placeholder) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = text.find('{', pos);
    size_t close = open == std::string_view::npos ? open : text.find('}', open);
    if (close == std::string_view::npos) {
      literal(text.substr(pos));
      return;
    }
    open = text.rfind('{', close);
    literal(text.substr(pos, open - pos));
    placeholder(std::string(text.substr(open + 1, close - open - 1)));
    pos = close + 1;
  }
}

[[noreturn]] void unknown_placeholder(const std::string& key, std::string_view text,
                                      const std::map<std::string, std::string>& values, const std::string& context) {
  std::vector<std::string> names;
  for (const auto& [name, value] : values) names.push_back(name);
  throw UserError(context + ": unknown placeholder '" + placeholder_word(key) + "' in '" + std::string(text) + "'",
                  suggestion_hint(key, names));
}

}  // namespace

std::string expand_placeholders(std::string_view text, const std::map<std::string, std::string>& values) {
  std::string out;
  scan_placeholders(
      text, [&](std::string_view literal) { out += literal; },
      [&](const std::string& key) {
        auto value = values.find(key);
        out += value != values.end() ? value->second : placeholder_word(key);
      });
  return out;
}

std::string placeholder_word(std::string_view name) {
  return "{" + std::string(name) + "}";
}

std::optional<std::vector<CommandWord>> expand_option_group(const std::string& group,
                                                            const std::map<std::string, std::string>& values,
                                                            const std::string& context) {
  std::vector<CommandWord> words;
  for (const auto& raw : split_words(group)) {
    if (auto name = variable_reference(raw)) {
      words.push_back(CommandWord{*name, true});
      continue;
    }
    // A placeholder without a value drops the whole group ("--cpu-bind={cpu_bind}" with no binding).
    bool empty = false;
    std::string word;
    scan_placeholders(
        raw, [&](std::string_view literal) { word += literal; },
        [&](const std::string& key) {
          auto value = values.find(key);
          if (value == values.end()) unknown_placeholder(key, group, values, context);
          empty = empty || value->second.empty();
          word += value->second;
        });
    if (empty) return std::nullopt;
    words.push_back(CommandWord{word, false});
  }
  return words;
}

std::string shell_word(const CommandWord& word) {
  return word.variable ? "\"$" + word.text + "\"" : shell_quote(word.text);
}

}  // namespace ezpz::core
