// Reads the CLI11 app tree into CommandDoc values, skipping what `--help` hides.
#include "ezpz/cli/command_tree.hpp"

#include "ezpz/cli/command_words.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

OptionDoc describe_option(const CLI::App& app, const CLI::Option& option) {
  OptionDoc doc;
  if (option.get_positional() && !option.nonpositional()) {
    doc.positional = option.get_name(true, false);
  } else {
    for (const auto& name : option.get_snames()) doc.names.push_back("-" + name);
    for (const auto& name : dash_names(app, option)) doc.names.push_back(name);  // -np, as --help shows them
    for (const auto& name : option.get_lnames()) doc.names.push_back("--" + name);
  }
  if (option.get_type_size_max() != 0) {
    // A validator's description follows the type after ':' ("KEY=VALUE:KEY=VALUE"); the type names it.
    std::string type = option.get_type_name();
    doc.value = type.substr(0, type.find(':'));
  }
  doc.help = option.get_description();
  doc.required = option.get_required();
  doc.repeats = option.get_items_expected_max() >= CLI::detail::expected_max_vector_size;
  return doc;
}

CommandDoc describe(const CLI::App& app, std::vector<std::string> path) {
  CommandDoc doc;
  doc.path = std::move(path);
  doc.description = app.get_description();
  doc.footer = app.get_footer();
  doc.needs_command = app.get_require_subcommand_min() > 0;
  doc.takes_extras = app.get_allow_extras();
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_group().empty()) continue;  // hidden from --help: internal
    OptionDoc described = describe_option(app, *option);
    (described.positional.empty() ? doc.options : doc.positionals).push_back(std::move(described));
  }
  for (const CLI::App* command : app.get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); })) {
    std::vector<std::string> sub_path = doc.path;
    sub_path.push_back(command->get_name());
    doc.commands.push_back(describe(*command, std::move(sub_path)));
    // CLI11 gives a subcommand its parent's footer; it says nothing of its own then.
    if (doc.commands.back().footer == doc.footer) doc.commands.back().footer.clear();
  }
  return doc;
}

}  // namespace

std::string CommandDoc::full_name() const {
  std::vector<std::string> words = {"ezpz"};
  words.insert(words.end(), path.begin(), path.end());
  return join(words, " ");
}

CommandDoc describe_command_tree(const CLI::App& app) {
  return describe(app, {});
}

}  // namespace ezpz::core
