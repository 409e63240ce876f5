// The hand-off table (util/handoff_variables.hpp) and docs/runtime-env.md agree: the page names every
// hand-off variable, and every `EZPZ_*` name on the page is one ezpz has (a hand-off variable, a setting,
// a spec key's override or a CMake option).
#include "ezpz/util/handoff_variables.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "ezpz/spec/field_table.hpp"
#include "ezpz/spec/job_spec.hpp"

namespace ezpz::core {
namespace {

std::string source_file(const std::string& path) {
  std::ifstream in(std::filesystem::path(EZPZ_SOURCE_DIR) / path);
  EXPECT_TRUE(in) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every whole `EZPZ_NAME` in `text`; a bare prefix (`EZPZ_*`, `EZPZ_<KEY>`, `EZPZ_…`) is none.
std::set<std::string> ezpz_names(const std::string& text) {
  std::set<std::string> names;
  auto word = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; };
  for (std::size_t at = text.find("EZPZ_"); at != std::string::npos; at = text.find("EZPZ_", at + 1)) {
    if (at > 0 && (word(text[at - 1]) || (text[at - 1] >= 'a' && text[at - 1] <= 'z'))) continue;
    std::size_t end = at + 5;
    while (end < text.size() && word(text[end])) ++end;
    std::string name = text.substr(at, end - at);
    if (name.back() != '_') names.insert(name);
  }
  return names;
}

TEST(HandoffVariables, NamesAreUniqueAndEzpzs) {
  std::set<std::string> seen;
  auto check = [&](const EnvVariable& variable) {
    EXPECT_EQ(std::string(variable.name).rfind("EZPZ_", 0), 0u) << variable.name;
    EXPECT_TRUE(seen.insert(variable.name).second) << variable.name << " is in the tables twice";
    EXPECT_NE(std::string(variable.writer), "") << variable.name;
    EXPECT_NE(std::string(variable.reader), "") << variable.name;
  };
  for (const auto& variable : k_handoff_variables) check(variable);
  for (const auto& variable : k_setting_variables) check(variable);
  EXPECT_EQ(seen.size(), std::size(k_handoff_variables) + std::size(k_setting_variables));
}

TEST(HandoffVariables, RuntimeEnvDocNamesEveryOne) {
  std::set<std::string> documented = ezpz_names(source_file("docs/runtime-env.md"));
  for (const auto& variable : k_handoff_variables) {
    EXPECT_EQ(documented.count(variable.name), 1u) << "docs/runtime-env.md does not name " << variable.name;
  }
}

TEST(HandoffVariables, RuntimeEnvDocNamesNoneThatDoesNotExist) {
  std::set<std::string> known;
  for (const auto& variable : k_handoff_variables) known.insert(variable.name);
  for (const auto& variable : k_setting_variables) known.insert(variable.name);
  for (const auto& field : fields()) {
    if (std::string name = env_override_name(field.path); !name.empty()) known.insert(name);
  }
  std::string cmake = source_file("CMakeLists.txt");
  for (const auto& name : ezpz_names(source_file("docs/runtime-env.md"))) {
    bool cmake_option =
        cmake.find("option(" + name + " ") != std::string::npos || cmake.find("set(" + name + " ") != std::string::npos;
    EXPECT_TRUE(known.count(name) == 1 || cmake_option)
        << "docs/runtime-env.md names " << name
        << ", which is no hand-off variable, setting (util/handoff_variables.hpp), spec override or CMake option";
  }
}

// The batch script's templates export hand-off variables only (the rest of the script is rendered
// through the writers above).
TEST(HandoffVariables, TemplatesNameOnlyHandoffVariables) {
  std::set<std::string> handoff;
  for (const auto& variable : k_handoff_variables) handoff.insert(variable.name);
  std::size_t templates = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(EZPZ_SOURCE_DIR) / "templates")) {
    ++templates;
    for (const auto& name : ezpz_names(source_file("templates/" + entry.path().filename().string()))) {
      EXPECT_EQ(handoff.count(name), 1u) << entry.path().filename() << " exports " << name << ", no hand-off variable";
    }
  }
  EXPECT_GT(templates, 0u);
}

// The page's own checks find what they look for: a name it lacks, and one it invents.
TEST(HandoffVariables, NameScanFindsWholeNamesOnly) {
  EXPECT_EQ(ezpz_names("export EZPZ_BIN=x; EZPZ_* and EZPZ_<KEY>, `EZPZ_SYSTEM`, MY_EZPZ_NOT"),
            (std::set<std::string>{"EZPZ_BIN", "EZPZ_SYSTEM"}));
}

}  // namespace
}  // namespace ezpz::core
