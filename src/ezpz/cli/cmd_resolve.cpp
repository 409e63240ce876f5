// `ezpz resolve`: the fully resolved job, optionally with where every value came from.
#include <iostream>
#include <memory>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/job_options.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

std::string value_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {
    std::vector<std::string> items;
    bool spaced = false;  // items with spaces of their own ("local rank 0: xpu:0 …") are set apart with "; "
    for (const auto& item : value) {
      items.push_back(value_text(item));
      spaced = spaced || items.back().find(' ') != std::string::npos;
    }
    return "[" + join(items, spaced ? "; " : " ") + "]";
  }
  return value.dump();
}

void print_table(const ResolvedJob& job, bool with_origins) {
  auto values = explain(job);
  size_t key_width = 0;
  size_t value_width = 0;
  for (const auto& item : values) {
    key_width = std::max(key_width, item.key.size());
    value_width = std::max(value_width, std::min<size_t>(48, value_text(item.value).size()));
  }
  for (const auto& item : values) {
    std::string text = value_text(item.value);
    for (size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at)) text.replace(at, 1, "\\n");
    std::cout << item.key << std::string(key_width - item.key.size() + 2, ' ') << text;
    if (with_origins) {
      size_t pad = text.size() < value_width ? value_width - text.size() : 0;
      std::cout << std::string(pad + 2, ' ') << "# " << item.origin.describe();
    }
    std::cout << "\n";
  }
}

}  // namespace

void add_resolve_command(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<JobOptions>();
  auto as_json = std::make_shared<bool>(false);
  auto with_origins = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand("resolve", "Print the resolved job: every value after defaults and overrides");
  options->add_to(*command);
  command->add_flag("--json", *as_json, "print JSON instead of a table");
  command->add_flag("--explain", *with_origins,
                    "show where each value came from (default < profile < spec < EZPZ_* env < --set)");
  command->callback([&action, options, as_json, with_origins] {
    action = [options, as_json, with_origins] {
      Installation installation = Installation::from_process();
      ResolvedJob job = options->resolve_job(installation.catalog);
      if (*as_json) {
        std::cout << resolved_json(job, *with_origins).dump(2) << "\n";
      } else {
        print_table(job, *with_origins);
      }
      return static_cast<int>(k_exit_ok);
    };
  });
}

}  // namespace ezpz::core
