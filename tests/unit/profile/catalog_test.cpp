// Every shipped profile loads; the search path overrides and extends compiled-in profiles.
#include "ezpz/profile/catalog.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "../test_support.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

// The profiles in the source tree's systems/ directory, by file name.
std::vector<std::string> shipped_systems() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(EZPZ_SOURCE_DIR) / "systems")) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}
const std::vector<std::string> k_shipped = shipped_systems();

fs::path temp_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("ezpz-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(Catalog, CompilesInEveryProfileOfTheSourceTree) {
  EXPECT_EQ(test::builtin_catalog().system_names(), k_shipped);
  for (const char* name :
       {"aurora", "sunspot", "polaris", "sophia", "frontier", "perlmutter", "slurm", "pbs", "local"}) {
    EXPECT_NE(std::find(k_shipped.begin(), k_shipped.end(), name), k_shipped.end()) << name;
  }
}

TEST(Catalog, EveryShippedProfileLoadsWithAuditDateSourcesAndScheduler) {
  for (const auto& name : k_shipped) {
    const SystemProfile& profile = test::builtin_catalog().system(name);
    EXPECT_FALSE(profile.audited.empty()) << name;
    EXPECT_FALSE(profile.sources.empty()) << name;
    EXPECT_FALSE(profile.description.empty()) << name;
    EXPECT_NO_THROW(test::builtin_catalog().scheduler(profile.scheduler)) << name;
    EXPECT_EQ(profile.node.devices.order.size(), static_cast<size_t>(profile.node.devices.count)) << name;
  }
}

TEST(Catalog, EveryShippedPatternCompiles) {
  for (const auto& name : k_shipped) {
    const SystemProfile& profile = test::builtin_catalog().system(name);
    for (const auto& [variable, pattern] : profile.detect.env) EXPECT_NO_THROW(std::regex{pattern}) << name << " " << variable;
    for (const auto& pattern : profile.detect.hostname) EXPECT_NO_THROW(std::regex{pattern}) << name << " " << pattern;
    EXPECT_NO_THROW(std::regex{test::builtin_catalog().scheduler(profile.scheduler).job_id_pattern}) << name;
    if (!profile.failover.node_key.empty()) {
      EXPECT_NO_THROW(std::regex{profile.failover.node_key}) << name;
    }
    for (const auto& pattern : profile.failover.patterns)
      EXPECT_NO_THROW(std::regex{pattern.regex}) << name << " " << pattern.name;
  }
}

TEST(Catalog, SunspotExtendsAuroraButKeepsItsOwnQueues) {
  const SystemProfile& sunspot = test::builtin_catalog().system("sunspot");
  EXPECT_EQ(sunspot.extends, "aurora");
  EXPECT_EQ(sunspot.node.devices.count, 12);
  EXPECT_EQ(sunspot.queue_names(), std::vector<std::string>{"workq"});
}

TEST(Catalog, UnknownSystemSuggestsTheClosestName) {
  try {
    test::builtin_catalog().system("polarsi");
    FAIL();
  } catch (const UserError& error) {
    EXPECT_EQ(error.diagnostics()[0].message, "unknown system 'polarsi'");
    EXPECT_EQ(error.diagnostics()[0].hint, "did you mean 'polaris'?");
  }
}

TEST(Catalog, SearchPathAddsAndReplacesProfiles) {
  fs::path dir = temp_dir("search");
  write(dir / "mycluster.yaml",
        "extends: slurm\ndescription: mine\nnode: {sockets: 2, cores_per_socket: 16, devices: {kind: cuda, count: 2, "
        "visibility: CUDA_VISIBLE_DEVICES}}\n");
  write(dir / "polaris.yaml", "extends: polaris\ndescription: patched polaris\n");
  Catalog catalog({dir.string(), (dir / "missing").string()});
  const SystemProfile& mine = catalog.system("mycluster");
  EXPECT_EQ(mine.scheduler, "slurm");
  EXPECT_EQ(mine.node.devices.count, 2);
  EXPECT_EQ(mine.path, (dir / "mycluster.yaml").string());
  // A user's polaris.yaml that extends polaris builds on the shipped one.
  const SystemProfile& polaris = catalog.system("polaris");
  EXPECT_EQ(polaris.description, "patched polaris");
  EXPECT_EQ(polaris.node.devices.count, 4);
  fs::remove_all(dir);
}

TEST(Catalog, BrokenUserProfileReportsEveryProblemWithItsFile) {
  fs::path dir = temp_dir("broken");
  write(dir / "bad.yaml", "scheduler: slurm\nnode: {socket: 2}\nlauncher: {kind: mpirun, args: [x]}\n");
  Catalog catalog({dir.string()});
  try {
    catalog.system("bad");
    FAIL();
  } catch (const UserError& error) {
    ASSERT_EQ(error.diagnostics().size(), 2u);
    EXPECT_EQ(error.diagnostics()[0].loc.describe(), (dir / "bad.yaml").string() + ":2:8");
    EXPECT_EQ(error.diagnostics()[0].hint, "did you mean 'sockets'?");
    EXPECT_NE(error.diagnostics()[1].message.find("'launcher.kind' expects one of"), std::string::npos);
  }
  fs::remove_all(dir);
}

// Found by fuzz.profile: a backend_env name with '~' reached the resolved job's JSON as a malformed
// pointer and ended the process (std::terminate). Such a name is now the profile's error, at its key.
TEST(Catalog, BackendEnvNamesMustBeVariableNames) {
  fs::path dir = temp_dir("backend-env");
  write(dir / "odd.yaml", "extends: polaris\nbackend_env:\n  always:\n    FI_CXI_REG~STER: \"1\"\n    A/B: x\n");
  Catalog catalog({dir.string()});
  try {
    catalog.system("odd");
    FAIL();
  } catch (const UserError& error) {
    ASSERT_EQ(error.diagnostics().size(), 2u);
    EXPECT_EQ(error.diagnostics()[0].loc.describe(), (dir / "odd.yaml").string() + ":4:5");
    EXPECT_EQ(error.diagnostics()[0].message,
              "'backend_env.always' holds 'FI_CXI_REG~STER', which is not a variable name");
  }
  fs::remove_all(dir);
}

TEST(Catalog, DefaultSearchPathOrder) {
  auto path = Catalog::default_search_path("/a:/b:", "/home/u", "/opt/ezpz/bin");
  EXPECT_EQ(path, (std::vector<std::string>{"/a", "/b", "/home/u/.config/ezpz/systems",
                                            "/opt/ezpz/bin/../share/ezpz/systems"}));
}

}  // namespace
}  // namespace ezpz::core
