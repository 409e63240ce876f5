// Placeholder expansion for option groups.
#include "ezpz/util/option_template.hpp"

#include <algorithm>
#include <cctype>

#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

// NAME for a word that is exactly "$NAME" or "${NAME}".
std::optional<std::string> variable_reference(const std::string& word) {
  bool braced = word.size() > 3 && word.compare(0, 2, "${") == 0 && word.back() == '}';
  if (!braced && (word.size() < 2 || word[0] != '$')) return std::nullopt;
  std::string name = braced ? word.substr(2, word.size() - 3) : word.substr(1);
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) ||
      !std::all_of(name.begin(), name.end(), word_char)) {
    return std::nullopt;
  }
  return name;
}

}  // namespace

std::optional<std::vector<CommandWord>> expand_option_group(const std::string& group,
                                                            const std::map<std::string, std::string>& values,
                                                            const std::string& context) {
  std::vector<CommandWord> words;
  for (const auto& raw : split_words(group)) {
    if (auto name = variable_reference(raw)) {
      words.push_back(CommandWord{*name, true});
      continue;
    }
    std::string word;
    size_t pos = 0;
    while (pos < raw.size()) {
      size_t open = raw.find('{', pos);
      size_t close = open == std::string::npos ? open : raw.find('}', open);
      if (close == std::string::npos) {
        word += raw.substr(pos);
        break;
      }
      word += raw.substr(pos, open - pos);
      std::string key = raw.substr(open + 1, close - open - 1);
      auto value = values.find(key);
      if (value == values.end()) {
        std::vector<std::string> names;
        for (const auto& [name, text] : values) names.push_back(name);
        throw UserError(context + ": unknown placeholder '{" + key + "}' in '" + group + "'",
                        suggestion_hint(key, names));
      }
      if (value->second.empty()) return std::nullopt;
      word += value->second;
      pos = close + 1;
    }
    words.push_back(CommandWord{word, false});
  }
  return words;
}

std::string shell_word(const CommandWord& word) {
  return word.variable ? "\"$" + word.text + "\"" : shell_quote(word.text);
}

}  // namespace ezpz::core
