// Every shipped profile loads; the search path overrides and extends compiled-in profiles.
#include "ezpz/profile/catalog.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../cannot_run.hpp"
#include "../test_support.hpp"
#include "ezpz/util/regex.hpp"

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
       {"aurora", "sunspot", "polaris", "sophia", "crux", "frontier", "perlmutter", "slurm", "pbs", "local"}) {
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

// Every pattern of the shipped profiles and scheduler files is RE2's (util/regex.hpp).
TEST(Catalog, EveryShippedPatternCompiles) {
  for (const auto& name : k_shipped) {
    const SystemProfile& profile = test::builtin_catalog().system(name);
    for (const auto& [variable, pattern] : profile.detect.env)
      EXPECT_EQ(regex_problem(pattern), "") << name << " " << variable;
    for (const auto& pattern : profile.detect.hostname) EXPECT_EQ(regex_problem(pattern), "") << name << " " << pattern;
    EXPECT_EQ(regex_problem(test::builtin_catalog().scheduler(profile.scheduler).job_id_pattern), "") << name;
    EXPECT_EQ(regex_problem(profile.failover.node_key), "") << name;
    for (const auto& pattern : profile.failover.patterns)
      EXPECT_EQ(regex_problem(pattern.regex), "") << name << " " << pattern.name;
  }
}

// What the job id patterns take from real answers (schedulers/*.yaml), and what they refuse.
TEST(Catalog, JobIdPatternsTakeTheIdOfRealAnswers) {
  auto id = [](const std::string& scheduler, const std::string& line) -> std::optional<std::string> {
    auto groups = compile_regex(test::builtin_catalog().scheduler(scheduler).job_id_pattern, {}, "job_id_pattern")
                      .full_match_groups(line);
    if (!groups || !(*groups)[1]) return std::nullopt;
    return *(*groups)[1];
  };
  EXPECT_EQ(id("slurm", "4242;cluster"), "4242");
  EXPECT_EQ(id("slurm", "4242_7"), "4242_7");
  EXPECT_EQ(id("slurm", "Submitted batch job 12"), std::nullopt);
  EXPECT_EQ(id("pbs", "8414055.aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov"),
            "8414055.aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov");
  EXPECT_EQ(id("pbs", "31[].server"), "31[].server");
  EXPECT_EQ(id("pbs", "qsub: error"), std::nullopt);
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

// An installed copy of the shipped data (cmake --install, the tarball, the wheel) is the profile of that
// path, read as the compiled-in one; a copy that differs by one value is read from its own text.
TEST(Catalog, InstalledCopiesOfShippedProfilesAreTheirFiles) {
  fs::path dir = temp_dir("installed");
  fs::create_directories(dir / "schedulers");
  // Copied as an installation has them (0644): copy_file keeps the source's mode, and a checkout made
  // with umask 002 (git archive's default too) has group-writable files, which the catalog does not
  // trust (docs/security.md).
  auto install = [](const fs::path& from, const fs::path& to) {
    fs::copy_file(from, to);
    fs::permissions(to,
                    fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  };
  for (const char* name : {"polaris", "aurora"}) {
    install(fs::path(EZPZ_SOURCE_DIR) / "systems" / (std::string(name) + ".yaml"), dir / (std::string(name) + ".yaml"));
  }
  install(fs::path(EZPZ_SOURCE_DIR) / "schedulers" / "pbs.yaml", dir / "schedulers" / "pbs.yaml");
  std::ifstream shipped(fs::path(EZPZ_SOURCE_DIR) / "systems" / "aurora.yaml");
  std::string text((std::istreambuf_iterator<char>(shipped)), std::istreambuf_iterator<char>());
  std::string old_description = Catalog().system("aurora").description;
  size_t at = text.find(old_description);
  ASSERT_NE(at, std::string::npos);
  write(dir / "aurora.yaml", text.replace(at, old_description.size(), "an edited aurora"));
  Catalog installed({dir.string()});
  Catalog builtin;
  const SystemProfile& polaris = installed.system("polaris");
  EXPECT_EQ(polaris.path, (dir / "polaris.yaml").string());
  EXPECT_EQ(polaris.description, builtin.system("polaris").description);
  EXPECT_EQ(polaris.queues.size(), builtin.system("polaris").queues.size());
  EXPECT_EQ(installed.scheduler("pbs").submit, builtin.scheduler("pbs").submit);
  EXPECT_EQ(installed.system("aurora").description, "an edited aurora");
  EXPECT_EQ(installed.system("aurora").path, (dir / "aurora.yaml").string());
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

// node.devices.sockets gives one socket of the node per device, for the node's devices and for those of
// a by_ranks_per_node entry.
TEST(Catalog, DeviceSocketsNameOneSocketPerDevice) {
  fs::path dir = temp_dir("device-sockets");
  write(dir / "odd.yaml",
        "extends: aurora\nnode:\n  devices:\n    sockets: [0, 2]\n    by_ranks_per_node:\n"
        "      6: {count: 6, sockets: [0, 0, 0, 1, 1]}\n");
  Catalog catalog({dir.string()});
  try {
    catalog.system("odd");
    FAIL();
  } catch (const UserError& error) {
    ASSERT_EQ(error.diagnostics().size(), 3u);
    EXPECT_EQ(error.diagnostics()[0].loc.describe(), (dir / "odd.yaml").string() + ":4:14");
    EXPECT_EQ(error.diagnostics()[0].message, "'node.devices.sockets' lists 2 socket(s) for 12 device(s)");
    EXPECT_EQ(error.diagnostics()[1].message,
              "'node.devices.sockets' names socket 2, but a node has 2 socket(s) (node.sockets), numbered from 0");
    EXPECT_EQ(error.diagnostics()[2].message,
              "'node.devices.by_ranks_per_node.6.sockets' lists 5 socket(s) for 6 device(s)");
  }
  const SystemProfile& aurora = test::builtin_catalog().system("aurora");
  EXPECT_EQ(aurora.node.devices.for_ranks_per_node(6).count, 6);
  EXPECT_EQ(aurora.node.devices.for_ranks_per_node(6).order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(aurora.node.devices.for_ranks_per_node(4).count, 12);
  fs::remove_all(dir);
}

// A scheduler is data: a file in <dir>/schedulers/ adds one (or replaces a shipped one), and what it
// tells its jobs (job_env) is where the runtime looks for the job id and the hosts.
TEST(Catalog, SearchPathAddsSchedulersAndTheirJobVariables) {
  fs::path dir = temp_dir("schedulers");
  fs::create_directories(dir / "schedulers");
  write(dir / "schedulers" / "lsf.yaml",
        "description: LSF\ntemplate: batch\ndirective_prefix: \"#BSUB\"\ndirectives: {nodes: \"-nnodes {nodes}\"}\n"
        "job_env: {job_id: LSB_JOBID, nodefile: LSB_DJOB_HOSTFILE, nodelist: [LSB_HOSTS, LSB_MCPU_HOSTS]}\n"
        "submit: [bsub]\nstatus: [bjobs, -noheader, -o, \"stat exit_code\", \"{job_id}\"]\nstatus_format: columns\n"
        "status_columns: [state, exit_code]\nstates: {PEND: queued, RUN: running, DONE: completed, EXIT: ended}\n"
        "options: {short: \"n:W:\"}\n");
  write(dir / "schedulers" / "pbs.yaml", "description: my pbs\ntemplate: batch\njob_env: {job_id: MY_PBS_ID}\n");
  Catalog catalog({dir.string()});
  EXPECT_EQ(catalog.scheduler_names(), (std::vector<std::string>{"lsf", "none", "pbs", "slurm"}));
  EXPECT_EQ(catalog.scheduler("lsf").source->name, (dir / "schedulers" / "lsf.yaml").string());
  EXPECT_EQ(catalog.scheduler("pbs").description, "my pbs");
  JobVariables variables = catalog.job_variables();
  EXPECT_EQ(variables.job_ids, (std::vector<std::string>{"LSB_JOBID", "MY_PBS_ID", "SLURM_JOB_ID"}));
  std::vector<std::string> hosts;
  for (const auto& source : variables.hosts) hosts.push_back(source.variable + (source.is_file ? " (file)" : ""));
  EXPECT_EQ(hosts, (std::vector<std::string>{"LSB_DJOB_HOSTFILE (file)", "LSB_HOSTS", "LSB_MCPU_HOSTS",
                                             "SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"}));
  // The shipped schedulers alone: PBS's node file, then Slurm's host lists, as before job_env was read.
  const JobVariables& builtin = Catalog::builtin_job_variables();
  EXPECT_EQ(builtin.job_ids, (std::vector<std::string>{"PBS_JOBID", "SLURM_JOB_ID"}));
  ASSERT_EQ(builtin.hosts.size(), 4u);
  EXPECT_EQ(builtin.hosts[0].variable, "PBS_NODEFILE");
  EXPECT_TRUE(builtin.hosts[0].is_file);
  fs::remove_all(dir);
}

// Issue 27: what another user owns, or could write, is not read (util/trust.hpp); the caller is uid
// 64101 here, and uid 64102 the other user (chown needs root, as the tests have in CI).
TEST(Catalog, SkipsProfilesAndSchedulersAnotherUserCouldHaveWritten) {
  if (::geteuid() != 0) EZPZ_CANNOT_RUN("chown to another user needs root");
  const TrustedUsers users{64101, {0}};
  fs::path dir = temp_dir("trust");
  fs::create_directories(dir / "schedulers");
  write(dir / "mine.yaml", "extends: local\ndescription: mine\n");
  write(dir / "theirs.yaml", "extends: local\ndescription: theirs\n");
  write(dir / "schedulers" / "slurm.yaml", "description: theirs\ntemplate: batch\nstatus: [touch, planted]\n");
  write(dir / "schedulers" / "lsf.yaml", "description: theirs\ntemplate: batch\n");
  for (const char* mine : {"", "mine.yaml", "schedulers"}) ASSERT_EQ(::chown((dir / mine).c_str(), 64101, 64101), 0);
  for (const char* theirs : {"theirs.yaml", "schedulers/lsf.yaml", "schedulers/slurm.yaml"})
    ASSERT_EQ(::chown((dir / theirs).c_str(), 64102, 64102), 0);
  fs::path group = temp_dir("trust-group");
  write(group / "grouped.yaml", "extends: local\ndescription: grouped\n");
  fs::permissions(group, fs::perms::group_write, fs::perm_options::add);

  Catalog catalog({dir.string(), group.string()}, users);
  EXPECT_TRUE(catalog.has_system("mine"));
  EXPECT_FALSE(catalog.has_system("theirs"));
  EXPECT_FALSE(catalog.has_system("grouped"));
  EXPECT_EQ(catalog.scheduler("slurm").source->name, "schedulers/slurm.yaml");  // the compiled-in one
  std::vector<std::string> skipped;
  for (const auto& entry : catalog.skipped()) skipped.push_back(entry.message());
  std::string not_you = ", not by you (uid 64101) or root";
  EXPECT_EQ(skipped,
            (std::vector<std::string>{
                "skipped '" + (dir / "theirs.yaml").string() + "': '" + (dir / "theirs.yaml").string() +
                    "' is owned by uid 64102" + not_you,
                "skipped '" + (dir / "schedulers/lsf.yaml").string() + "': '" + (dir / "schedulers/lsf.yaml").string() +
                    "' is owned by uid 64102" + not_you,
                "skipped '" + (dir / "schedulers/slurm.yaml").string() + "': '" +
                    (dir / "schedulers/slurm.yaml").string() + "' is owned by uid 64102" + not_you,
                "skipped '" + group.string() + "': '" + group.string() + "' is writable by its group (mode 0775)"}));
  // Asked for by name, a skipped profile is named with the reason.
  try {
    catalog.system("theirs");
    ADD_FAILURE() << "no error for a skipped profile";
  } catch (const UserError& error) {
    EXPECT_EQ(error.diagnostics().front().message, "unknown system 'theirs'");
    const std::string& hint = error.diagnostics().front().hint;
    EXPECT_EQ(hint.rfind("ezpz skipped '" + (dir / "theirs.yaml").string() + "'", 0), 0u) << hint;
  }
  try {
    catalog.scheduler("lsf");
    ADD_FAILURE() << "no error for a skipped scheduler";
  } catch (const UserError& error) {
    const std::string& hint = error.diagnostics().front().hint;
    EXPECT_EQ(hint.rfind("ezpz skipped '" + (dir / "schedulers/lsf.yaml").string() + "'", 0), 0u) << hint;
  }
  fs::remove_all(dir);
  fs::remove_all(group);
}

// Every problem of a scheduler file is its own located error.
TEST(Catalog, BrokenSchedulerFileReportsEveryProblem) {
  fs::path dir = temp_dir("bad-scheduler");
  fs::create_directories(dir / "schedulers");
  write(dir / "schedulers" / "odd.yaml",
        "template: batch\njob_env: {job_idd: X, nodelist: [OK, \"A-B\"]}\nstatus: [q, \"{job_id}\"]\n"
        "status_columns: [state, exitcode]\nstatus_fallback_format: xml\njob_id_pattern: \"^([0-9]+\"\n");
  write(dir / "schedulers" / "notemplate.yaml", "template: pbs\n");
  Catalog catalog({dir.string()});
  try {
    catalog.scheduler("odd");
    FAIL();
  } catch (const UserError& error) {
    std::vector<std::string> messages;
    for (const auto& d : error.diagnostics()) messages.push_back(d.loc.describe() + ": " + d.message);
    std::string file = (dir / "schedulers" / "odd.yaml").string();
    EXPECT_EQ(
        messages,
        (std::vector<std::string>{
            file + ":2:11: unknown key 'job_idd' in 'job_env'; expected one of 'end_time', 'job_id', "
                   "'nodefile', 'nodelist', 'restart_count' or 'submit_dir'",
            file + ":2:38: 'job_env.nodelist' holds 'A-B', which is not a variable name",
            file + ":4:17: 'status_columns' holds 'exitcode'; expected one of 'state', 'exit_code', 'reason' or '-'",
            file + ":5:25: 'status_fallback_format' expects one of 'columns', 'pbs-json', 'slurm-sacct' or "
                   "'slurm-scontrol', found 'xml'",
            file + ":6:17: 'job_id_pattern' is not a regular expression: " + regex_problem("^([0-9]+"),
            file + ":3:9: 'status' needs 'status_format'",
        }));
  }
  // The template a scheduler names must be built in: a wrong name is an error at load, not at render.
  try {
    catalog.scheduler("notemplate");
    FAIL();
  } catch (const UserError& error) {
    EXPECT_EQ(error.diagnostics().at(0).loc.describe() + ": " + error.diagnostics().at(0).message,
              (dir / "schedulers" / "notemplate.yaml").string() +
                  ":1:11: no template 'templates/pbs.sh.mustache' is built in");
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
