// Reading a command's words the way the Python ezpz's launch does, before CLI11 parses its options.
#include "ezpz/cli/command_words.hpp"

#include <algorithm>
#include <memory>
#include <optional>

#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

// One dash and more than one letter: a name CLI11 2.1 cannot take ("-np").
bool is_dash_name(const std::string& name) {
  return name.size() > 2 && name[0] == '-' && name[1] != '-';
}

// The command's help formatter, which also keeps the dash names of its options (so they live as long as
// the command, and --help shows them: "-n,-np,--ranks,--np").
class DashNameFormatter : public CLI::Formatter {
 public:
  std::vector<std::pair<const CLI::Option*, std::string>> names;

  std::vector<std::string> of(const CLI::Option& option) const {
    std::vector<std::string> found;
    for (const auto& [owner, name] : names) {
      if (owner == &option) found.push_back(name);
    }
    return found;
  }

  std::string make_option_name(const CLI::Option* option, bool positional) const override {
    if (positional || of(*option).empty()) return CLI::Formatter::make_option_name(option, positional);
    std::vector<std::string> all;
    for (const auto& name : option->get_snames()) all.push_back("-" + name);
    for (const auto& name : of(*option)) all.push_back(name);
    for (const auto& name : option->get_lnames()) all.push_back("--" + name);
    return join(all, ",");
  }
};

const DashNameFormatter* dash_formatter(const CLI::App& command) {
  return dynamic_cast<const DashNameFormatter*>(command.get_formatter().get());
}

const CLI::Option* dash_option(const CLI::App& command, const std::string& name) {
  const DashNameFormatter* formatter = dash_formatter(command);
  if (formatter == nullptr) return nullptr;
  for (const auto& [option, dash_name] : formatter->names) {
    if (dash_name == name) return option;
  }
  return nullptr;
}

// A word that names an option of `command`: the option, the name as typed, a value given in the same
// word ("--nproc=2", "-np=2", "-n2"), and the word as CLI11 takes it.
struct NamedOption {
  const CLI::Option* option = nullptr;
  std::string typed;
  std::optional<std::string> value;
  std::string for_cli11;
};

NamedOption named_option(const CLI::App& command, const std::string& word) {
  NamedOption named;
  named.for_cli11 = word;
  auto equals = word.find('=');
  named.typed = word.substr(0, equals);
  if (equals != std::string::npos) named.value = word.substr(equals + 1);
  if (word.compare(0, 2, "--") == 0) {
    named.option = command.get_option_no_throw(named.typed);
    return named;
  }
  if (is_dash_name(named.typed)) {
    if (const CLI::Option* option = dash_option(command, named.typed)) {
      named.option = option;
      named.for_cli11 = "--" + option->get_lnames().front() + (named.value ? "=" + *named.value : "");
      return named;
    }
  }
  // A short option, its value perhaps attached: "-n2".
  named.typed = word.substr(0, 2);
  named.value = word.size() > 2 ? std::optional<std::string>(word.substr(2)) : std::nullopt;
  named.option = command.get_option_no_throw(named.typed);
  return named;
}

std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
    for (const auto& name : dash_names(command, *option)) names.push_back(name);
  }
  return names;
}

}  // namespace

std::string cli11_names(const std::string& names) {
  std::vector<std::string> kept;
  for (const auto& name : split(names, ',')) {
    if (!is_dash_name(name)) kept.push_back(name);
  }
  return join(kept, ",");
}

void add_dash_names(CLI::App& command, CLI::Option* option, const std::string& names) {
  auto formatter = std::dynamic_pointer_cast<DashNameFormatter>(command.get_formatter());
  if (!formatter) {
    formatter = std::make_shared<DashNameFormatter>();
    command.formatter(formatter);
  }
  for (const auto& name : split(names, ',')) {
    if (is_dash_name(name)) formatter->names.emplace_back(option, name);
  }
}

std::vector<std::string> dash_names(const CLI::App& command, const CLI::Option& option) {
  const DashNameFormatter* formatter = dash_formatter(command);
  return formatter ? formatter->of(option) : std::vector<std::string>{};
}

CommandWords read_command_words(const CLI::App& command, const std::vector<std::string>& words) {
  CommandWords out;
  bool separator = std::find(words.begin(), words.end(), "--") != words.end();
  bool passing = false;  // the word before was passed on: a word that is no option is its value
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word == "--") {
      out.program.assign(words.begin() + static_cast<long>(i) + 1, words.end());
      break;
    }
    bool option_word = word.size() > 1 && word[0] == '-';
    // `-m MODULE ARGS…` is a program (python3 -m MODULE), as the Python ezpz's launch lines write it.
    bool module = word == k_module_word && command.get_option_no_throw(word) == nullptr;
    if ((!option_word && !passing) || module) {
      out.program.assign(words.begin() + static_cast<long>(i), words.end());
      break;
    }
    NamedOption named = option_word ? named_option(command, word) : NamedOption{};
    if (named.option == nullptr) {
      if (!separator) {
        std::string name = word.substr(0, word.find('='));
        std::string close = closest_match(name, option_names(command));
        throw CLI::ValidationError(name, "not an option of 'ezpz " + command.get_name() + "'" +
                                             (close.empty() ? "" : " (did you mean '" + close + "'?)") +
                                             "; a launcher's own options go before '--': ezpz " + command.get_name() +
                                             " -x NAME=VALUE -- python3 train.py");
      }
      out.passed_on.push_back(word);
      passing = true;
      continue;
    }
    passing = false;
    out.spellings.emplace_back(named.option->get_name(), named.typed);
    out.options.push_back(named.for_cli11);
    bool takes_value = named.option->get_items_expected_max() > 0;
    if (takes_value && !named.value && i + 1 < words.size() && words[i + 1] != "--") out.options.push_back(words[++i]);
  }
  return out;
}

std::string as_typed(const std::string& message, const CommandWords& words) {
  for (auto it = words.spellings.rbegin(); it != words.spellings.rend(); ++it) {
    const auto& [reported, typed] = *it;
    if (message.compare(0, reported.size() + 1, reported + ":") == 0) return typed + message.substr(reported.size());
  }
  return message;
}

}  // namespace ezpz::core
