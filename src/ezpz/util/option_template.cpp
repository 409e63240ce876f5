// Placeholder expansion for option groups.
#include "ezpz/util/option_template.hpp"

#include <regex>

#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz {

std::optional<std::vector<CommandWord>> expand_option_group(const std::string& group,
                                                            const std::map<std::string, std::string>& values,
                                                            const std::string& context) {
  static const std::regex k_variable(R"(\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?)");
  std::vector<CommandWord> words;
  for (const auto& raw : split_words(group)) {
    std::smatch match;
    if (std::regex_match(raw, match, k_variable)) {
      words.push_back(CommandWord{match[1].str(), true});
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

}  // namespace ezpz
