// Directive lines read with getopt's rules and a scheduler's option table.
#include "ezpz/profile/directive_options.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

using Value = OptionTable::Value;

bool blank(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

// The words of one line, consumed left to right as getopt consumes argv.
struct LineParser {
  const OptionTable& table;
  std::vector<std::string> words;
  size_t next = 0;
  ParsedDirective result;

  void fail(std::string why) {
    if (result.problem.empty()) result.problem = std::move(why);
  }
  // The spelling with a list item's name in lower case when the scheduler ignores its case.
  std::string folded(const std::string& spelled) const {
    size_t space = spelled.find(' ');
    if (!table.list_names_ignore_case || space == std::string::npos) return spelled;
    std::string key = spelled;
    std::transform(key.begin() + static_cast<long>(space), key.end(), key.begin() + static_cast<long>(space),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return key;
  }
  std::string name_of(const std::string& spelled) const {
    std::string key = folded(spelled);
    for (const auto& [spelling, name] : table.same_as) {
      if (folded(spelling) == key) return name;
    }
    return key;
  }
  bool is_list(const std::string& spelled) const {
    auto listed = [&](const std::string& option) {
      return std::find(table.lists.begin(), table.lists.end(), option) != table.lists.end();
    };
    return listed(spelled) || listed(name_of(spelled));
  }
  std::optional<std::string> next_word() {
    if (next == words.size()) return std::nullopt;
    return words[next++];
  }

  // qsub -l a=1,b=2 sets the resources a and b (set_resources; -W: parse_equal_string).
  void add(const std::string& spelled, std::vector<std::string> names, const std::optional<std::string>& value) {
    if (value && is_list(spelled)) {
      bool any = false;
      for (const auto& item : split(*value, ',')) {
        size_t equals = item.find('=');
        std::string name = trim(item.substr(0, equals));
        if (name.empty()) continue;
        std::string option = spelled + " " + name;
        std::optional<std::string> item_value;
        if (equals != std::string::npos) item_value = item.substr(equals + 1);
        result.options.push_back({option, {name_of(option)}, item_value});
        any = true;
      }
      if (any) return;
    }
    result.options.push_back({spelled, std::move(names), value});
  }

  // "-abc", "-N5", "-N 5": getopt's short options, each letter from the table.
  void short_options(const std::string& word) {
    for (size_t i = 1; i < word.size(); ++i) {
      std::string spelled = std::string("-") + word[i];
      auto found = table.short_options.find(word[i]);
      if (found == table.short_options.end()) return fail("'" + spelled + "' is not an option");
      std::string rest = word.substr(i + 1);
      if (found->second == Value::none) {
        add(spelled, {name_of(spelled)}, std::nullopt);
        continue;
      }
      std::optional<std::string> value = rest.empty() ? std::nullopt : std::optional<std::string>(rest);
      if (!value && found->second == Value::required) value = next_word();
      if (!value && found->second == Value::required) fail("'" + spelled + "' needs a value");
      return add(spelled, {name_of(spelled)}, value);
    }
  }

  // Long names that `name` may mean: itself, else (getopt_long) every name it abbreviates.
  std::vector<std::string> long_matches(const std::string& name) const {
    if (table.long_options.count(name) != 0) return {name};
    std::vector<std::string> matches;
    if (!table.long_prefixes || name.empty()) return matches;
    for (const auto& [option, value] : table.long_options) {
      if (starts_with(option, name)) matches.push_back(option);
    }
    return matches;
  }

  // "--name=value", "--name value", "--nam=value".
  void long_option(const std::string& word) {
    size_t equals = word.find('=');
    std::string spelled = word.substr(0, equals);
    std::optional<std::string> value;
    if (equals != std::string::npos) value = word.substr(equals + 1);
    if (table.long_options.empty()) return fail("'" + spelled + "' is not an option");  // getopt, not getopt_long
    auto matches = long_matches(spelled.substr(2));
    if (matches.empty()) {
      // Not in the table: a site's own option (a SPANK plugin's). A following word that is no
      // option is taken as its value.
      if (!value && next < words.size() && !starts_with(words[next], "-")) value = next_word();
      return add(spelled, {name_of(spelled)}, value);
    }
    std::vector<std::string> names;
    for (const auto& match : matches) {
      std::string name = name_of("--" + match);
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    if (names.size() > 1) fail("'" + spelled + "' is ambiguous: it abbreviates " + join(names, ", "));
    Value kind = table.long_options.at(matches.front());
    if (kind == Value::none && value) fail("'" + spelled + "' takes no value");
    if (kind == Value::required && !value) value = next_word();
    if (kind == Value::required && !value) fail("'" + spelled + "' needs a value");
    add(spelled, std::move(names), value);
  }

  void run() {
    while (auto word = next_word()) {
      if (word->size() > 2 && starts_with(*word, "--")) {
        long_option(*word);
      } else if (word->size() > 1 && word->front() == '-' && *word != "--") {
        short_options(*word);
      } else {
        fail("'" + *word + "' is not an option");
      }
    }
  }
};

}  // namespace

std::vector<std::string> directive_words(std::string_view line, std::string* problem) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '"' || c == '\'') {
      size_t close = line.find(c, i + 1);
      if (close == std::string_view::npos) {
        if (problem != nullptr) *problem = std::string("unmatched quote (") + c + ")";
        close = line.size();
      }
      word.append(line.substr(i + 1, close - i - 1));
      in_word = true;
      i = close;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (blank(c)) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

ParsedDirective parse_directive(const OptionTable& table, std::string_view line) {
  std::string problem;
  LineParser parser{table, directive_words(line, &problem), 0, {}};
  parser.run();
  if (!problem.empty()) parser.result.problem = problem;
  return std::move(parser.result);
}

std::vector<std::string> directive_option_names(const OptionTable& table, std::string_view line) {
  std::vector<std::string> names;
  for (const auto& option : parse_directive(table, line).options) names.push_back(option.options.front());
  return names;
}

}  // namespace ezpz::core
