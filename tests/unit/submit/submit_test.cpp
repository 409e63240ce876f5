// Submitting through a fake runner: records on disk, job ids parsed, failures loud and lossless.
#include "ezpz/submit/submit.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "../test_support.hpp"
#include "fake_runner.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

struct Fixture {
  fs::path root = fs::temp_directory_path() / ("ezpz-records-" + std::to_string(::getpid()));
  Fixture() { fs::remove_all(root); }
  ~Fixture() { fs::remove_all(root); }

  SubmitOptions options(bool hold = false) const {
    return SubmitOptions{root.string(), "/work/submit", hold, "2026-11-21T12:00:00Z"};
  }
};

ResolvedJob job_for(const std::string& spec, std::vector<std::string> set = {}) {
  return test::resolve_layers({spec, {}, std::move(set), ""});
}

std::string read(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(Submit, SlurmParsableIdAndARecordNamedAfterIt) {
  Fixture f;
  ResolvedJob job = job_for("system: slurm\nname: t\nrun: [x]\n");
  Script script = render(job, test::builtin_catalog(), "/opt/ezpz/bin/ezpz");
  test::FakeRunner runner;
  runner.expect({"sbatch", "--parsable"}, {0, "4242;cluster\n", ""});
  JobRecord record = submit(job, script, runner, f.options());
  EXPECT_EQ(record.job_id, "4242");
  ASSERT_EQ(runner.calls.size(), 1u);
  EXPECT_EQ(runner.calls[0][0], "sbatch");
  EXPECT_EQ(runner.calls[0][1], "--parsable");
  EXPECT_EQ(runner.cwds[0], "/work/submit");
  EXPECT_EQ(read(fs::path(record.dir) / "job.sh"), script.text) << "the exact script is kept";
  EXPECT_TRUE(fs::exists(fs::path(record.dir) / "job.json"));
  EXPECT_EQ(record.output, "/work/submit/slurm-4242.out");
  auto found = find_record(f.root.string(), "4242");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->scheduler, "slurm");
  EXPECT_EQ(found->submitted_at, "2026-11-21T12:00:00Z");
}

TEST(Submit, PbsLongJobIdsHoldAndOutputNames) {
  Fixture f;
  ResolvedJob job = job_for("system: aurora\naccount: P\nname: llama\nrun: [x]\n");
  Script script = render(job, test::builtin_catalog(), "/opt/ezpz/bin/ezpz");
  test::FakeRunner runner;
  runner.expect({"qsub", "-h"}, {0, "8414055.aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov\n", ""});
  JobRecord record = submit(job, script, runner, f.options(true));
  EXPECT_EQ(record.job_id, "8414055.aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov");
  EXPECT_EQ(runner.calls[0][0], "qsub");
  EXPECT_EQ(runner.calls[0][1], "-h");
  EXPECT_EQ(record.output, "/work/submit/llama.o8414055");
  EXPECT_EQ(record.error, "/work/submit/llama.e8414055") << "PBS writes stderr apart unless the script joins it";
  EXPECT_TRUE(find_record(f.root.string(), "8414055")) << "the short id finds the record";
}

TEST(Submit, SlurmJoinsStderrIntoTheOutputUnlessTheSpecSaysOtherwise) {
  Fixture f;
  ResolvedJob job = job_for("system: slurm\nname: t\nrun: [x]\n");
  test::FakeRunner runner;
  runner.expect({"sbatch"}, {0, "12\n", ""});
  EXPECT_EQ(submit(job, render(job, test::builtin_catalog(), "/e"), runner, f.options()).error, "");
}

TEST(Submit, NothingIsSubmittedWithoutARecord) {
  Fixture f;
  fs::create_directories(f.root);
  std::ofstream(f.root / "file") << "not a directory\n";
  ResolvedJob job = job_for("system: slurm\nname: t\nrun: [x]\n");
  test::FakeRunner runner;
  SubmitOptions options = f.options();
  options.records_root = (f.root / "file" / "records").string();
  try {
    submit(job, render(job, test::builtin_catalog(), "/e"), runner, options);
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot keep the job's record in " + options.records_root),
              std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(runner.calls.empty()) << "sbatch ran without a record";
}

// One records directory per user, whatever the current directory: flag > EZPZ_RECORDS_DIR >
// XDG_STATE_HOME > HOME.
TEST(RecordsRoot, OnePlacePerUser) {
  struct Case {
    const char* flag;
    const char* records_dir;
    const char* state_home;
    const char* home;
    const char* expected;  // nullptr: an error
  };
  const Case cases[] = {
      {"/r", "/e", "/s", "/h", "/r"},
      {"", "/e", "/s", "/h", "/e"},
      {"", nullptr, "/s", "/h", "/s/ezpz/jobs"},
      {"", nullptr, nullptr, "/h", "/h/.local/state/ezpz/jobs"},
      {"", nullptr, nullptr, nullptr, nullptr},
  };
  auto set = [](const char* name, const char* value) { value ? ::setenv(name, value, 1) : ::unsetenv(name); };
  const char* saved = std::getenv("HOME");
  std::string home = saved ? saved : "";
  for (const auto& c : cases) {
    set("EZPZ_RECORDS_DIR", c.records_dir);
    set("XDG_STATE_HOME", c.state_home);
    set("HOME", c.home);
    if (c.expected) {
      EXPECT_EQ(records_root(c.flag), c.expected);
    } else {
      EXPECT_THROW(records_root(c.flag), UserError);
    }
  }
  set("EZPZ_RECORDS_DIR", nullptr);
  set("XDG_STATE_HOME", nullptr);
  set("HOME", saved ? home.c_str() : nullptr);
}

TEST(Submit, ASecondJobWithTheSameIdKeepsTheFirstRecord) {
  Fixture f;
  ResolvedJob first = job_for("system: slurm\nname: first\nrun: [x]\n");
  ResolvedJob second = job_for("system: slurm\nname: second\nrun: [y]\n");
  test::FakeRunner runner;
  runner.expect({"sbatch"}, {0, "77\n", ""});
  runner.expect({"sbatch"}, {0, "77\n", ""});  // another cluster, or a reset slurmctld, reuses the id
  JobRecord old_record = submit(first, render(first, test::builtin_catalog(), "/e"), runner, f.options());
  std::string old_script = read(fs::path(old_record.dir) / "job.sh");
  JobRecord new_record = submit(second, render(second, test::builtin_catalog(), "/e"), runner, f.options());
  EXPECT_EQ(find_record(f.root.string(), "77")->name, "second");
  int kept = 0;
  for (const auto& entry : fs::directory_iterator(f.root)) {
    if (entry.path().filename().string().rfind("77.before-", 0) == 0) {
      ++kept;
      EXPECT_EQ(read(entry.path() / "job.sh"), old_script);
    }
  }
  EXPECT_EQ(kept, 1) << "the first record was deleted";
}

TEST(FindRecord, ADamagedRecordIsAnErrorThatNamesIt) {
  Fixture f;
  for (const char* damage : {"{not json", "[1, 2]", R"({"job_id": 7, "scheduler": "slurm"})"}) {
    fs::create_directories(f.root / "12");
    std::ofstream(f.root / "12" / "record.json") << damage;
    try {
      find_record(f.root.string(), "12");
      ADD_FAILURE() << damage << ": no error";
    } catch (const UserError& error) {
      EXPECT_NE(std::string(error.what()).find("the record of job '12' is damaged"), std::string::npos) << error.what();
    }
  }
}

TEST(Submit, SpecOutputPathsExpandSlurmPatterns) {
  Fixture f;
  ResolvedJob job = job_for("system: slurm\nname: t\noutput: logs/%x-%j.out\nrun: [x]\n");
  test::FakeRunner runner;
  runner.expect({"sbatch"}, {0, "77\n", ""});
  JobRecord record = submit(job, render(job, test::builtin_catalog(), "/e"), runner, f.options());
  EXPECT_EQ(record.output, "/work/submit/logs/t-77.out");
}

TEST(Submit, AFailedSubmissionNamesTheCommandShowsStderrAndKeepsTheScript) {
  Fixture f;
  ResolvedJob job = job_for("system: slurm\nname: t\nrun: [x]\n");
  test::FakeRunner runner;
  runner.expect({"sbatch"}, {1, "", "sbatch: error: invalid partition specified: nope\n"});
  try {
    submit(job, render(job, test::builtin_catalog(), "/e"), runner, f.options());
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    const auto& d = error.diagnostics()[0];
    EXPECT_NE(d.message.find("sbatch failed (exit code 1): sbatch --parsable "), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("invalid partition specified: nope"), std::string::npos);
    std::string kept = d.hint.substr(d.hint.find('/'));
    EXPECT_TRUE(fs::exists(kept)) << kept;
  }
}

TEST(Submit, OutputWithoutAJobIdIsAnError) {
  Fixture f;
  ResolvedJob job = job_for("system: slurm\nname: t\nrun: [x]\n");
  test::FakeRunner runner;
  runner.expect({"sbatch"}, {0, "Submitted batch job 12\n", ""});  // what sbatch prints without --parsable
  EXPECT_THROW(submit(job, render(job, test::builtin_catalog(), "/e"), runner, f.options()), UserError);
}

// What a profile's job_id_pattern takes from an answer must still be a job id: "-5" would become an
// option of scancel, "../x" a path outside the records.
TEST(Submit, AnIdThatIsNoJobsIsAnErrorThatKeepsTheScript) {
  Fixture f;
  ResolvedJob job = job_for("system: slurm\nname: t\nrun: [x]\n");
  Scheduler loose = *job.scheduler;
  loose.job_id_pattern = "^(.*)$";
  job.scheduler = &loose;
  for (const char* printed : {"-5", "../x", "4\0332J"}) {
    test::FakeRunner runner;
    runner.expect({"sbatch"}, {0, std::string(printed) + "\n", ""});
    try {
      submit(job, render(job, test::builtin_catalog(), "/e"), runner, f.options());
      ADD_FAILURE() << printed << " was taken as a job id";
    } catch (const UserError& error) {
      const auto& d = error.diagnostics()[0];
      EXPECT_NE(d.message.find("is not a job id"), std::string::npos) << d.message;
      EXPECT_EQ(d.message.find('\033'), std::string::npos) << "escaped";
      EXPECT_NE(d.hint.find("may have been submitted"), std::string::npos) << d.hint;
    }
  }
}

// A first line far longer than any job id (libstdc++'s std::regex recursed once per digit and crashed
// here, after the job was queued): an error that says so and keeps the script, never a crash.
TEST(Submit, AnAnswerLongerThanAnyJobIdIsAnErrorThatKeepsTheScript) {
  for (auto [system, digits] : {std::pair<std::string, size_t>{"slurm", 50000}, {"aurora", 60000}}) {
    Fixture f;
    ResolvedJob job = job_for("system: " + system + "\naccount: P\nname: t\nrun: [x]\n");
    test::FakeRunner runner;
    runner.expect({system == "slurm" ? "sbatch" : "qsub"}, {0, std::string(digits, '7') + "\n", ""});
    try {
      submit(job, render(job, test::builtin_catalog(), "/e"), runner, f.options());
      ADD_FAILURE() << system << ": expected a UserError";
    } catch (const UserError& error) {
      const auto& d = error.diagnostics()[0];
      EXPECT_NE(d.message.find("(" + std::to_string(digits) + " bytes)"), std::string::npos)
          << d.message.substr(0, 300);
      EXPECT_LT(d.message.size(), 1000u) << "the answer is shown cut, with its length";
      EXPECT_NE(d.hint.find("may have been submitted"), std::string::npos) << d.hint;
      std::string kept = d.hint.substr(d.hint.find('/'));
      EXPECT_TRUE(fs::exists(kept)) << kept;
    }
  }
}

TEST(Submit, LocalSystemHasNothingToSubmitTo) {
  Fixture f;
  ResolvedJob job = job_for("system: local\nrun: [x]\n");
  test::FakeRunner runner;
  EXPECT_THROW(submit(job, render(job, test::builtin_catalog(), "/e"), runner, f.options()), UserError);
  EXPECT_TRUE(runner.calls.empty());
}

TEST(JobNumber, TakesTheLeadingDigits) {
  EXPECT_EQ(job_number("8414055.aurora-pbs-0001"), "8414055");
  EXPECT_EQ(job_number("42_3"), "42");
  EXPECT_EQ(job_number("77"), "77");
}

}  // namespace
}  // namespace ezpz::core
