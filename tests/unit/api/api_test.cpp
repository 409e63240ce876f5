// The public API through its installed headers only (<ezpz/ezpz.hpp>): what an embedder can do.
#include <ezpz/ezpz.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

namespace {

const ezpz::Value k_polaris = ezpz::Value::map({
    {"system", "polaris"},
    {"account", "MyProject"},
    {"nodes", 2},
    {"walltime", "30m"},
    {"filesystems", ezpz::Value::list({"home", "eagle"})},
    {"run", ezpz::Value::list({"python3", "train.py"})},
});

// A scheduler that answers from a script, and remembers what it was asked.
class ScriptedRunner : public ezpz::ProcessRunner {
 public:
  std::vector<std::vector<std::string>> calls;
  std::vector<ezpz::ProcessResult> answers;
  ezpz::ProcessResult run(const std::vector<std::string>& argv, const std::string&) override {
    calls.push_back(argv);
    ezpz::ProcessResult answer = answers.empty() ? ezpz::ProcessResult{} : answers.front();
    if (!answers.empty()) answers.erase(answers.begin());
    return answer;
  }
};

// A new directory named after `name` and this process, removed with what it holds when the test program
// exits (tests may leave files in it; nothing is left in the temporary directory).
std::string temp_dir(const std::string& name) {
  struct Dirs {
    std::vector<std::filesystem::path> paths;
    ~Dirs() {
      std::error_code error;
      for (const auto& path : paths) std::filesystem::remove_all(path, error);
    }
  };
  static Dirs s_dirs;
  auto dir = std::filesystem::temp_directory_path() / ("ezpz-api-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  s_dirs.paths.push_back(dir);
  return dir.string();
}

TEST(PublicApi, VersionIsTheHeadersVersion) {
  EXPECT_STREQ(ezpz::version(), ezpz::k_version);
  EXPECT_EQ(std::to_string(EZPZ_VERSION_MAJOR) + "." + std::to_string(EZPZ_VERSION_MINOR) + "." +
                std::to_string(EZPZ_VERSION_PATCH),
            ezpz::k_version);
}

TEST(PublicApi, CatalogListsAndDetectsSystems) {
  ezpz::Catalog catalog(std::vector<std::string>{});
  auto systems = catalog.systems();
  ASSERT_GE(systems.size(), 8u);
  EXPECT_TRUE(
      std::is_sorted(systems.begin(), systems.end(), [](const auto& a, const auto& b) { return a.name < b.name; }));
  auto aurora = std::find_if(systems.begin(), systems.end(), [](const auto& s) { return s.name == "aurora"; });
  ASSERT_NE(aurora, systems.end());
  EXPECT_EQ(aurora->scheduler, "pbs");
  auto detected = catalog.detect({{"PBS_JOBID", "1.aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov"}}, "x4000c0s0b0n0");
  ASSERT_TRUE(detected);
  EXPECT_EQ(detected->system, "aurora");
  EXPECT_FALSE(detected->reason.empty());
}

TEST(PublicApi, AnUnreadableProfileIsAnError) {
  // A directory where a profile file should be: the catalog cannot read it, and says so as ezpz::Error
  // (not as an internal type the caller cannot name).
  std::string dir = temp_dir("profiles");
  std::filesystem::create_directories(dir + "/broken.yaml");
  EXPECT_THROW(
      {
        ezpz::Catalog catalog(std::vector<std::string>{dir});
        catalog.systems();
      },
      ezpz::Error);
}

TEST(PublicApi, ASpecFromTextFromValuesAndFromAFileRendersTheSameScript) {
  ezpz::Catalog catalog(std::vector<std::string>{});
  std::string text =
      "system: polaris\naccount: MyProject\nnodes: 2\nwalltime: 30m\nfilesystems: [home, eagle]\n"
      "run: [python3, train.py]\n";
  std::string dir = temp_dir("spec");
  std::ofstream(dir + "/job.yaml") << text;
  auto from_text = ezpz::render(ezpz::resolve(catalog, ezpz::Spec::from_text(text)));
  auto from_values = ezpz::render(ezpz::resolve(catalog, ezpz::Spec::from_values(k_polaris)));
  auto from_file = ezpz::render(ezpz::resolve(catalog, ezpz::Spec::from_file(dir + "/job.yaml")));
  EXPECT_EQ(from_text.text, from_values.text);
  EXPECT_NE(from_file.text.find("#PBS -N job"), std::string::npos);  // the default name is the file's
  EXPECT_NE(from_text.text.find("#PBS -A MyProject"), std::string::npos);
  EXPECT_EQ(from_text.submit_argv.front(), "qsub");
}

TEST(PublicApi, OverridesAndTheirOrigins) {
  ezpz::Catalog catalog(std::vector<std::string>{});
  ezpz::ResolveOptions options;
  options.set = {"nodes=3"};
  options.env = {{"EZPZ_QUEUE", "debug-scaling"}, {"EZPZ_NODES", "9"}};
  ezpz::Job job = ezpz::resolve(catalog, ezpz::Spec::from_values(k_polaris), options);
  EXPECT_EQ(job.system(), "polaris");
  EXPECT_EQ(job.scheduler(), "pbs");
  std::map<std::string, ezpz::ExplainedValue> values;
  for (const auto& value : job.explain()) values[value.key] = value;
  EXPECT_EQ(values["nodes"].value, "3");  // --set beats EZPZ_NODES
  EXPECT_EQ(values["nodes"].origin_kind, "cli");
  EXPECT_EQ(values["queue"].value, "\"debug-scaling\"");
  EXPECT_EQ(values["queue"].origin_kind, "env");
  EXPECT_EQ(values["account"].origin_kind, "spec");
  EXPECT_NE(job.to_json(true).find("\"kind\":\"env\""), std::string::npos);
  EXPECT_EQ(job.hash().size(), 16u);
}

TEST(PublicApi, ValidateReturnsEveryLocatedProblem) {
  ezpz::Catalog catalog(std::vector<std::string>{});
  auto problems = ezpz::validate(
      catalog, ezpz::Spec::from_text("system: polaris\nnodez: 2\nwalltime: 99h\nrun: [true]\n", "bad.yaml"));
  ASSERT_GE(problems.size(), 2u);
  auto unknown = std::find_if(problems.begin(), problems.end(),
                              [](const auto& d) { return d.message.find("nodez") != std::string::npos; });
  ASSERT_NE(unknown, problems.end());
  EXPECT_EQ(unknown->file, "bad.yaml");
  EXPECT_EQ(unknown->line, 2);
  EXPECT_EQ(unknown->column, 1);
  EXPECT_EQ(unknown->where, "bad.yaml:2:1");
  EXPECT_EQ(unknown->hint, "did you mean 'nodes'?");
  EXPECT_FALSE(unknown->warning);
  EXPECT_EQ(unknown->text.rfind("ezpz: bad.yaml:2:1: error: unknown key 'nodez'", 0), 0u);
  EXPECT_NE(unknown->text.find("\n  nodez: 2\n  ^~~~~\n"), std::string::npos);  // the source line and a caret
  EXPECT_TRUE(ezpz::validate(catalog, ezpz::Spec::from_values(k_polaris)).empty());
}

TEST(PublicApi, ResolveThrowsOneErrorWithEveryProblem) {
  ezpz::Catalog catalog(std::vector<std::string>{});
  try {
    ezpz::resolve(catalog, ezpz::Spec::from_values(ezpz::Value::map({{"system", "polaris"}, {"nodes", "x"}})));
    FAIL() << "no error";
  } catch (const ezpz::Error& error) {
    ASSERT_GE(error.diagnostics().size(), 2u);
    EXPECT_EQ(error.diagnostics().front().where, "<values> nodes=x");
    EXPECT_EQ(std::string(error.what()), error.diagnostics().front().text);
  }
  EXPECT_THROW(ezpz::Spec::from_text("a: [unclosed\n"), ezpz::Error);
  EXPECT_THROW(ezpz::Spec::from_file("/nonexistent/job.yaml"), ezpz::Error);
  EXPECT_THROW(ezpz::Spec::from_values(ezpz::Value::list({1})), ezpz::Error);
}

TEST(PublicApi, SubmitStatusAndCancelGoThroughTheCallersRunner) {
  ezpz::Catalog catalog(std::vector<std::string>{});
  ezpz::Job job = ezpz::resolve(catalog, ezpz::Spec::from_values(k_polaris));
  ScriptedRunner runner;
  runner.answers.push_back({0, "123.polaris-pbs-01\n", "", false});
  ezpz::SubmitOptions options;
  options.records_dir = temp_dir("records");
  ezpz::Submission submission = ezpz::submit(job, ezpz::render(job), runner, options);
  EXPECT_EQ(submission.job_id, "123.polaris-pbs-01");
  ASSERT_EQ(runner.calls.size(), 1u);
  EXPECT_EQ(runner.calls[0].front(), "qsub");
  EXPECT_EQ(std::filesystem::path(runner.calls[0].back()).filename(), "job.sh");
  EXPECT_EQ(std::filesystem::path(submission.script).parent_path(), submission.record_dir);
  EXPECT_TRUE(std::filesystem::exists(submission.script));  // filed under the job id once submitted

  runner.answers.push_back({0, R"({"Jobs": {"123.polaris-pbs-01": {"job_state": "R"}}})", "", false});
  ezpz::JobStatus status = ezpz::status(catalog, {submission.job_id, options.records_dir, ""}, runner);
  EXPECT_EQ(runner.calls[1].front(), "qstat");
  EXPECT_EQ(status.state, "running");
  EXPECT_FALSE(status.done);

  runner.answers.push_back({0, "", "", false});
  ezpz::cancel(catalog, {submission.job_id, options.records_dir, ""}, runner);
  EXPECT_EQ(runner.calls[2].front(), "qdel");

  runner.answers.push_back({1, "", "qsub: cannot connect to server\n", false});
  try {
    ezpz::submit(job, ezpz::render(job), runner, options);
    FAIL() << "no error";
  } catch (const ezpz::Error& error) {
    EXPECT_NE(std::string(error.what()).find("cannot connect to server"), std::string::npos);
  }
}

TEST(PublicApi, TheRealRunnerTakesTheCommandsTimeLimit) {
  // Without a timeout, $EZPZ_SCHEDULER_TIMEOUT as for the ezpz command (it was a fixed 120 s).
  ::setenv("EZPZ_SCHEDULER_TIMEOUT", "0.2", 1);
  auto runner = ezpz::make_process_runner();
  ezpz::ProcessResult slow = runner->run({"sleep", "5"});
  EXPECT_TRUE(slow.timed_out);
  ::setenv("EZPZ_SCHEDULER_TIMEOUT", "soon", 1);
  EXPECT_THROW(ezpz::make_process_runner(), ezpz::Error);
  ::unsetenv("EZPZ_SCHEDULER_TIMEOUT");
  EXPECT_FALSE(ezpz::make_process_runner(std::chrono::milliseconds(5000))->run({"true"}).timed_out);
}

TEST(PublicApi, RankSetupFromAGivenEnvironment) {
  ezpz::Catalog catalog(std::vector<std::string>{});
  ezpz::RankInfo rank = ezpz::discover_rank({{"OMPI_COMM_WORLD_RANK", "5"},
                                             {"OMPI_COMM_WORLD_SIZE", "8"},
                                             {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                             {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}});
  EXPECT_EQ(rank.rank, 5);
  EXPECT_EQ(rank.world_size, 8);
  EXPECT_EQ(rank.local_rank, 1);
  EXPECT_EQ(rank.local_world_size, 4);
  EXPECT_THROW(ezpz::discover_rank({{"PMI_RANK", "9"}, {"PMI_SIZE", "4"}}), ezpz::Error);

  ezpz::RankSetup setup = ezpz::rank_setup(catalog,
                                           {{"EZPZ_SYSTEM", "local"},
                                            {"RANK", "1"},
                                            {"WORLD_SIZE", "2"},
                                            {"LOCAL_RANK", "1"},
                                            {"LOCAL_WORLD_SIZE", "2"},
                                            {"MASTER_ADDR", "127.0.0.1"},
                                            {"MASTER_PORT", "29999"}},
                                           "somehost", "/nonexistent-device-root");
  EXPECT_EQ(setup.system, "local");
  EXPECT_EQ(setup.rank.rank, 1);
  EXPECT_EQ(setup.device, "cpu");
  EXPECT_EQ(setup.backend, "gloo");
  EXPECT_EQ(setup.master_addr, "127.0.0.1");
  EXPECT_EQ(setup.master_port, "29999");
  auto exported = [&](const std::string& name) {
    for (const auto& [key, value] : setup.exports)
      if (key == name) return value;
    return std::string("<unset>");
  };
  EXPECT_EQ(exported("RANK"), "1");
  EXPECT_EQ(exported("TORCH_BACKEND"), "gloo");
  EXPECT_EQ(setup.job_id, "");
  EXPECT_TRUE(setup.hosts.empty());
  EXPECT_EQ(setup.gpus_per_node, 0);
}

// The job id and the allocation's hosts in order, each once, as the runtime reads them (Slurm's host
// list expanded; PBS_NODEFILE's one line per slot); a host file that cannot be read leaves the hosts
// empty with a note, for a rank whose MASTER_ADDR is given never needed them.
TEST(PublicApi, RankSetupKnowsTheJobAndItsHosts) {
  ezpz::Catalog catalog(std::vector<std::string>{});
  ezpz::RankSetup slurm = ezpz::rank_setup(
      catalog, {{"EZPZ_SYSTEM", "slurm"}, {"SLURM_JOB_ID", "4242"}, {"SLURM_JOB_NODELIST", "nid[007-008],login1"}},
      "somehost", "/nonexistent-device-root");
  EXPECT_EQ(slurm.job_id, "4242");
  EXPECT_EQ(slurm.scheduler, "slurm");
  EXPECT_TRUE(slurm.generic_system);
  EXPECT_EQ(slurm.hosts, (std::vector<std::string>{"nid007", "nid008", "login1"}));

  std::string nodefile = temp_dir("nodefile") + "/nodefile";
  std::ofstream(nodefile) << "x3005c0s13b1n0\nx3005c0s13b1n0\nx3005c0s19b0n0\n";
  ezpz::RankSetup pbs =
      ezpz::rank_setup(catalog, {{"EZPZ_SYSTEM", "polaris"}, {"PBS_JOBID", "1.polaris"}, {"PBS_NODEFILE", nodefile}},
                       "somehost", "/nonexistent-device-root");
  EXPECT_EQ(pbs.job_id, "1.polaris");
  EXPECT_EQ(pbs.hosts, (std::vector<std::string>{"x3005c0s13b1n0", "x3005c0s19b0n0"}));
  EXPECT_EQ(pbs.gpus_per_node, 4);
  EXPECT_EQ(pbs.scheduler, "pbs");
  EXPECT_FALSE(pbs.generic_system) << "polaris is a named machine";

  ezpz::RankSetup unreadable = ezpz::rank_setup(catalog,
                                                {{"EZPZ_SYSTEM", "pbs"},
                                                 {"PBS_JOBID", "2.pbs"},
                                                 {"PBS_NODEFILE", "/nonexistent/nodefile"},
                                                 {"MASTER_ADDR", "10.0.0.1"}},
                                                "somehost", "/nonexistent-device-root");
  EXPECT_TRUE(unreadable.hosts.empty());
  EXPECT_EQ(unreadable.master_addr, "10.0.0.1");
  bool noted = false;
  for (const auto& note : unreadable.notes) noted = noted || note.find("hosts unknown") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(PublicApi, AJobOutlivesItsCatalogAndCallsAreThreadSafe) {
  std::optional<ezpz::Job> job;
  {
    ezpz::Catalog catalog(std::vector<std::string>{});
    job = ezpz::resolve(catalog, ezpz::Spec::from_values(k_polaris));
  }
  std::string expected = ezpz::render(*job).text;
  ezpz::Catalog shared(std::vector<std::string>{});
  std::vector<std::thread> threads;
  std::vector<int> same(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        same[t] += ezpz::render(ezpz::resolve(shared, ezpz::Spec::from_values(k_polaris))).text == expected;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(same[t], 20) << "thread " << t;
}

}  // namespace
