// The docs that list the keys of profiles and schedulers, and the placeholders of their templates, name
// exactly what the code reads: the keys come from the readers' own tables (read_section, seen through
// observe_sections), the placeholders from Resolver::placeholder_values, the job_env keys from
// job_env_keys().
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "../test_support.hpp"
#include "ezpz/profile/read_profile.hpp"
#include "ezpz/resolve/resolver.hpp"

namespace ezpz::core {
namespace {

std::string read_doc(const std::string& relative) {
  std::ifstream in(std::filesystem::path(EZPZ_SOURCE_DIR) / relative);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << relative;
  return text.str();
}

// A section's name as the docs write it: a queue's or rule's name is `<name>`, a list item or a
// ranks-per-node entry is dropped (the docs give their keys as `{a, b}` on the row of the list).
std::string doc_section(std::string what) {
  what = std::regex_replace(what, std::regex(R"(\[[0-9]+\])"), "");
  what = std::regex_replace(what, std::regex(R"(^(queues|value_rules)\.probe\b)"), "$1.<name>");
  what = std::regex_replace(what, std::regex(R"(\.by_ranks_per_node\.1\b)"), ".by_ranks_per_node");
  return what;
}

// Keys of a set that no other key of the set extends ("node.devices" goes when "node.devices.kind" is there).
std::set<std::string> leaves(const std::set<std::string>& keys) {
  std::set<std::string> out;
  for (const auto& key : keys) {
    auto next = keys.upper_bound(key);
    if (next == keys.end() || next->rfind(key + ".", 0) != 0) out.insert(key);
  }
  return out;
}

// Every key the reader accepts, dotted, leaves only. `probe` holds each section once (as a map, a list
// item or a named entry) so that the reader reads every table; a new nested section needs a line there.
template <class Read>
std::set<std::string> reader_keys(const std::string& root, const std::string& probe, Read read) {
  std::set<std::string> keys;
  struct Observing {
    SectionObserver previous;
    ~Observing() { observe_sections(std::move(previous)); }
  } observing{observe_sections([&](std::string_view what, const std::vector<std::string>& names) {
    std::string section = what == root ? std::string() : doc_section(std::string(what)) + ".";
    for (const auto& name : names) keys.insert(section + name);
  })};
  Diagnostics diagnostics;
  read(parse_yaml(make_source("probe.yaml", probe)), diagnostics);  // errors expected: the probe is empty
  return leaves(keys);
}

std::set<std::string> profile_keys() {
  const std::string probe = R"(
detect: {installed: {}}
node: {devices: {by_ranks_per_node: {1: {}}}}
launcher: {}
queues: {probe: {walltime_by_nodes: [{}]}}
failover: {patterns: [{}]}
backend_env: {}
)";
  return reader_keys("profile", probe,
                     [](const YamlNode& root, Diagnostics& d) { read_system_profile(root, "probe", d); });
}

std::set<std::string> scheduler_keys() {
  const std::string probe = R"(
node_state: {}
job_list: {}
options: {long: {}}
value_rules: {probe: {}}
)";
  return reader_keys("scheduler", probe,
                     [](const YamlNode& root, Diagnostics& d) { read_scheduler(root, "probe", d); });
}

// The placeholders of launcher.args and directives, from the resolver's own map of them.
std::set<std::string> placeholders() {
  Diagnostics diagnostics;
  ResolveInputs inputs =
      test::make_inputs({"system: polaris\naccount: A\nnodes: 2\nrun: [x]\n", {}, {}, ""}, diagnostics);
  Resolver resolver{test::builtin_catalog(), inputs, {}, {}};
  resolver.job = resolver.run();
  std::set<std::string> names;
  for (const auto& [name, value] : resolver.placeholder_values(nullptr)) names.insert(name);
  return names;
}

// The backquoted names in `text` that look like keys (`walltime`, `mail.user`, `queues.<name>.caps`).
std::vector<std::string> quoted_names(const std::string& text) {
  static const std::regex k_quoted(R"(`([a-z_][a-z0-9_.<>]*)`)");
  std::vector<std::string> names;
  for (std::sregex_iterator it(text.begin(), text.end(), k_quoted), end; it != end; ++it) names.push_back((*it)[1]);
  return names;
}

// The names a list sentence gives, without its asides: "`walltime` (`HH:MM:SS`)" gives walltime.
std::set<std::string> listed_names(std::string text) {
  text = std::regex_replace(text, std::regex(R"(\([^()]*\))"), "");
  std::vector<std::string> names = quoted_names(text);
  return {names.begin(), names.end()};
}

// The text of `doc` from `start` up to the next `stop` (both must be there).
std::string between(const std::string& doc, const std::string& start, const std::string& stop) {
  size_t from = doc.find(start);
  EXPECT_NE(from, std::string::npos) << start;
  if (from == std::string::npos) return {};
  size_t to = doc.find(stop, from + start.size());
  EXPECT_NE(to, std::string::npos) << stop;
  return doc.substr(from + start.size(), to == std::string::npos ? std::string::npos : to - from - start.size());
}

// systems/README.md's key table: the first cell of each row (`queues.<name>.min_nodes` / `max_nodes`:
// a name without a dot shares the first one's section), and the keys of a list's or map's items given as
// `{a, b}` in the type cell.
std::set<std::string> readme_keys(const std::string& readme) {
  std::set<std::string> keys;
  std::istringstream lines(between(readme, "## Keys", "\n### "));
  std::string line;
  static const std::regex k_items(R"(`\{([a-z_]+(, [a-z_]+)+)\}`)");
  while (std::getline(lines, line)) {
    if (line.rfind("| `", 0) != 0) continue;
    size_t bar = line.find('|', 1);
    auto names = quoted_names(line.substr(1, bar - 1));
    if (names.empty()) continue;
    std::string section = names[0].substr(0, names[0].rfind('.') + 1);
    if (names[0].find('.') == std::string::npos) section.clear();
    keys.insert(names[0]);
    for (size_t i = 1; i < names.size(); ++i)
      keys.insert(names[i].find('.') == std::string::npos ? section + names[i] : names[i]);
    std::string type = line.substr(bar + 1, line.find('|', bar + 1) - bar - 1);
    std::smatch items;
    if (std::regex_search(type, items, k_items)) {
      std::istringstream words(items[1].str());
      std::string word;
      while (std::getline(words, word, ',')) keys.insert(names[0] + "." + word.substr(word.find_first_not_of(' ')));
    }
  }
  return leaves(keys);
}

std::set<std::string> as_set(const std::vector<std::string>& names) {
  return {names.begin(), names.end()};
}

TEST(ProfileKeys, ReadmeKeyTableNamesExactlyTheKeysTheReaderAccepts) {
  std::set<std::string> code = profile_keys();
  EXPECT_GT(code.size(), 50u) << "the probe reaches every section";
  EXPECT_EQ(readme_keys(read_doc("systems/README.md")), code);
}

TEST(ProfileKeys, ReadmePlaceholderListNamesExactlyTheResolversPlaceholders) {
  std::string list = between(read_doc("systems/README.md"), "\nPlaceholders", "`master_addr` takes");
  EXPECT_EQ(listed_names(list), placeholders());
}

TEST(SchedulerKeys, AddingASchedulerNamesExactlyTheResolversPlaceholders) {
  std::string list = between(read_doc("docs/adding-a-scheduler.md"), "The placeholders", "An unknown placeholder");
  EXPECT_EQ(listed_names(list), placeholders());
}

TEST(SchedulerKeys, AddingASchedulerNamesExactlyTheJobEnvKeys) {
  std::string list = between(read_doc("docs/adding-a-scheduler.md"), "The keys are", ";");
  EXPECT_EQ(listed_names(list), as_set(job_env_keys()));
}

// The walk-through is prose, so only one way: every key the reader accepts is named there, as itself
// (`job_env`) or, in its section's paragraph, by its last part (`command` of `node_state`, `long.value`).
TEST(SchedulerKeys, AddingASchedulerNamesEveryKeyTheReaderAccepts) {
  std::set<std::string> named;
  for (const auto& name : quoted_names(read_doc("docs/adding-a-scheduler.md"))) {
    named.insert(name);
    named.insert(name.substr(name.rfind('.') + 1));
  }
  std::set<std::string> code = scheduler_keys();
  EXPECT_GT(code.size(), 35u) << "the probe reaches every section";
  for (const auto& key : code) {
    std::string last = key.substr(key.rfind('.') + 1);
    EXPECT_TRUE(named.count(key) || named.count(last)) << key << " is not in docs/adding-a-scheduler.md";
  }
}

}  // namespace
}  // namespace ezpz::core
