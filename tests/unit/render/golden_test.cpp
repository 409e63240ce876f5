// Golden scripts: tests/golden/<system>/<case>.yaml renders byte for byte to <case>.sh.
// EZPZ_UPDATE_GOLDEN=1 rewrites the expected scripts instead; review the diff before committing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../test_support.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

const char* k_ezpz_bin = "/opt/ezpz/bin/ezpz";  // fixed, so scripts do not depend on the build tree

std::vector<fs::path> golden_specs() {
  std::vector<fs::path> specs;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(EZPZ_SOURCE_DIR) / "tests" / "golden")) {
    if (entry.path().extension() == ".yaml") specs.push_back(entry.path());
  }
  std::sort(specs.begin(), specs.end());
  return specs;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string render_spec(const fs::path& spec_path) {
  Diagnostics diagnostics;
  ResolveInputs inputs;
  inputs.spec_path = spec_path.string();
  inputs.spec = load_job_spec(spec_path.string(), diagnostics);
  diagnostics.throw_if_any();
  ResolvedJob job = resolve(test::builtin_catalog(), inputs);
  return render(job, test::builtin_catalog(), k_ezpz_bin).text;
}

class Golden : public ::testing::TestWithParam<fs::path> {};

TEST_P(Golden, RendersTheExpectedScript) {
  fs::path spec = GetParam();
  fs::path expected_path = fs::path(spec).replace_extension(".sh");
  std::string actual = render_spec(spec);
  const char* update = std::getenv("EZPZ_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(expected_path, std::ios::binary) << actual;
    GTEST_SKIP() << "updated " << expected_path;
  }
  ASSERT_TRUE(fs::exists(expected_path)) << expected_path << " is missing: run with EZPZ_UPDATE_GOLDEN=1";
  EXPECT_EQ(actual, read(expected_path)) << "re-render differs from " << expected_path;
}

TEST_P(Golden, IsByteStable) {
  EXPECT_EQ(render_spec(GetParam()), render_spec(GetParam()));
}

std::string case_name(const ::testing::TestParamInfo<fs::path>& info) {
  std::string name = info.param.parent_path().filename().string() + "_" + info.param.stem().string();
  for (auto& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Systems, Golden, ::testing::ValuesIn(golden_specs()), case_name);

TEST(GoldenCoverage, EveryShippedSystemHasAGoldenCase) {
  for (const auto& name : test::builtin_catalog().system_names()) {
    fs::path dir = fs::path(EZPZ_SOURCE_DIR) / "tests" / "golden" / name;
    EXPECT_TRUE(fs::is_directory(dir)) << "no golden case for system '" << name << "'";
  }
}

}  // namespace
}  // namespace ezpz::core
