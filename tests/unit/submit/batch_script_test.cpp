// `ezpz submit job.sh`: a script the user wrote is submitted as it is, and its directives give the record.
#include "ezpz/submit/batch_script.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../test_support.hpp"
#include "fake_runner.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> k_prefixes = {"#PBS", "#SBATCH"};

struct Fixture {
  fs::path dir = fs::temp_directory_path() / ("ezpz-batch-script-" + std::to_string(::getpid()));
  Fixture() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Fixture() { fs::remove_all(dir); }

  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream((dir / name).string()) << text;
    return (dir / name).string();
  }
  SubmitOptions options(bool hold = false) const {
    return SubmitOptions{(dir / "records").string(), "/work/submit", hold, "2026-11-25T12:00:00Z"};
  }
};

const Scheduler& scheduler(const std::string& name) {
  return test::builtin_catalog().scheduler(name);
}

std::string read(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(BatchScript, AFileIsAScriptWhenItStartsWithAShebang) {
  Fixture f;
  EXPECT_TRUE(is_batch_script(f.write("job.sh", "#!/bin/bash\n#PBS -N x\n")));
  EXPECT_TRUE(is_batch_script(f.write("job", "#!/usr/bin/env bash\n")));
  EXPECT_FALSE(is_batch_script(f.write("job.yaml", "# a spec\nsystem: polaris\n")));
  EXPECT_FALSE(is_batch_script((f.dir / "missing").string()));
  EXPECT_FALSE(is_batch_script("-"));
}

TEST(BatchScript, PbsDirectivesGiveNameAndOutputPathsUpToTheFirstCommand) {
  std::string text =
      "#!/bin/bash\n#PBS -A proj -l select=2 -N first\n#PBS -l walltime=1:00:00\n# a comment\n\n"
      "#PBS -N llama -o logs/out.txt\n#PBSX -N comment\ncd $PBS_O_WORKDIR\n#PBS -e after-the-first-command\n";
  ScriptDirectives found = read_script_directives(text, scheduler("pbs"), k_prefixes);
  EXPECT_EQ(found.name, "llama") << "the last value wins";
  EXPECT_EQ(found.output, "logs/out.txt");
  EXPECT_FALSE(found.error) << "qsub stops reading at the first command";
  EXPECT_EQ(found.prefixes, std::vector<std::string>{"#PBS"});
}

TEST(BatchScript, SlurmLongAndShortForms) {
  ScriptDirectives found = read_script_directives(
      "#!/bin/bash\n#SBATCH --job-name=train\n#SBATCH -o %x-%j.out --error err-%j.txt\n#SBATCH --nodes 2\nsrun x\n",
      scheduler("slurm"), k_prefixes);
  EXPECT_EQ(found.name, "train");
  EXPECT_EQ(found.output, "%x-%j.out");
  EXPECT_EQ(found.error, "err-%j.txt");
  found = read_script_directives("#!/bin/bash\n#SBATCH -J short\n#PBS -N other\n", scheduler("slurm"), k_prefixes);
  EXPECT_EQ(found.name, "short");
  EXPECT_EQ(found.prefixes, (std::vector<std::string>{"#SBATCH", "#PBS"}));
}

TEST(BatchScript, SubmittedAsItIsWithHoldAfterAndARecord) {
  Fixture f;
  std::string text = "#!/bin/bash\n#SBATCH --job-name=train\n#SBATCH --output=%x-%j.out\nsrun hostname\n";
  std::string path = f.write("train.sh", text);
  test::FakeRunner runner;
  runner.expect({"sbatch", "--parsable"}, {0, "77\n", ""});
  JobRecord record =
      submit_script({path, "slurm", {"5", "6"}}, scheduler("slurm"), k_prefixes, runner, f.options(true));
  ASSERT_EQ(runner.calls.size(), 1u);
  EXPECT_EQ(runner.calls[0],
            (std::vector<std::string>{"sbatch", "--parsable", "--hold", "--dependency=afterok:5:6", path}));
  EXPECT_EQ(read(path), text) << "the script is never rewritten";
  EXPECT_EQ(read(fs::path(record.dir) / "job.sh"), text) << "a copy is kept with the record";
  EXPECT_EQ(record.job_id, "77");
  EXPECT_EQ(record.name, "train");
  EXPECT_EQ(record.system, "slurm");
  EXPECT_EQ(record.output, "/work/submit/train-77.out");
  auto found = find_record(f.options().records_root, "77");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->scheduler, "slurm");
}

TEST(BatchScript, PbsAfterIsQsubsDependOptionAndTheFileNameIsTheDefaultName) {
  Fixture f;
  std::string path = f.write("run.pbs", "#!/bin/bash\n#PBS -l select=1\npython3 x.py\n");
  test::FakeRunner runner;
  runner.expect({"qsub"}, {0, "12.server\n", ""});
  JobRecord record = submit_script({path, "polaris", {"11.server"}}, scheduler("pbs"), k_prefixes, runner, f.options());
  EXPECT_EQ(runner.calls[0], (std::vector<std::string>{"qsub", "-W", "depend=afterok:11.server", path}));
  EXPECT_EQ(record.name, "run.pbs");
  EXPECT_EQ(record.output, "/work/submit/run.pbs.o12");
  EXPECT_EQ(record.error, "/work/submit/run.pbs.e12");
}

// "#PBS -j oe", common in the scripts users write: stderr is in the output file, and there is no .e file
// for `ezpz logs --stderr` to look for.
TEST(BatchScript, PbsJoinedStreamsHaveOneFile) {
  Fixture f;
  test::FakeRunner runner;
  runner.expect({"qsub"}, {0, "13.server\n", ""});
  runner.expect({"qsub"}, {0, "14.server\n", ""});
  std::string joined = f.write("oe.sh", "#!/bin/bash\n#PBS -N j -j oe\nhostname\n");
  JobRecord record = submit_script({joined, "polaris", {}}, scheduler("pbs"), k_prefixes, runner, f.options());
  EXPECT_EQ(record.output, "/work/submit/j.o13");
  EXPECT_EQ(record.error, "");
  std::string into_error = f.write("eo.sh", "#!/bin/bash\n#PBS -N j\n#PBS -j eo -e err.txt\nhostname\n");
  record = submit_script({into_error, "polaris", {}}, scheduler("pbs"), k_prefixes, runner, f.options());
  EXPECT_EQ(record.output, "/work/submit/err.txt");
  EXPECT_EQ(record.error, "/work/submit/err.txt");
}

TEST(BatchScript, AnotherSchedulersDirectivesAreRefusedBeforeAnythingRuns) {
  Fixture f;
  std::string path = f.write("job.sh", "#!/bin/bash\n#SBATCH -N 2\nsrun x\n");
  test::FakeRunner runner;
  try {
    submit_script({path, "polaris", {}}, scheduler("pbs"), k_prefixes, runner, f.options());
    FAIL();
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("has #SBATCH directives, but system 'polaris' submits with qsub"),
              std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(runner.calls.empty());
}

// sbatch refuses both (and bash would run "hostname\r"): refused at their line before anything runs.
TEST(BatchScript, DosLineEndsAndNulBytesAreRefusedAtTheirLine) {
  Fixture f;
  struct Case {
    std::string text;
    int line;
    int column;
    std::string message;
  };
  const std::string nul(1, '\0');
  for (const Case& c : {Case{"#!/bin/bash\n#SBATCH -N 2\r\nhostname\r\n", 2, 13, "CR LF"},
                        Case{"#!/bin/bash\n#SBATCH -J a" + nul + "b\nhostname\n", 2, 13, "NUL"},
                        Case{"#!/bin/bash\nhostname\necho " + nul + "\n", 3, 6, "NUL"}}) {
    std::string path = f.write("job.sh", c.text);
    test::FakeRunner runner;
    try {
      submit_script({path, "slurm", {}}, scheduler("slurm"), k_prefixes, runner, f.options());
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const UserError& error) {
      const Diagnostic& found = error.diagnostics().front();
      EXPECT_EQ(found.loc.describe(), path + ":" + std::to_string(c.line) + ":" + std::to_string(c.column));
      EXPECT_NE(found.message.find(c.message), std::string::npos) << found.message;
    }
    EXPECT_TRUE(runner.calls.empty());
  }
}

// sbatch takes 4 MB by default, qsub 100 MB: a script of a few MiB is submitted.
TEST(BatchScript, AScriptOfAFewMebibytesIsSubmitted) {
  Fixture f;
  std::string text = "#!/bin/bash\n";
  while (text.size() < (3u << 20)) text += "# a long comment line to make the script long, as generated scripts are\n";
  std::string path = f.write("long.sh", text + "hostname\n");
  test::FakeRunner runner;
  runner.expect({"sbatch", "--parsable"}, {0, "78\n", ""});
  EXPECT_EQ(submit_script({path, "slurm", {}}, scheduler("slurm"), k_prefixes, runner, f.options()).job_id, "78");
}

TEST(BatchScript, AFailedSubmissionSaysWhatRanAndKeepsTheRecord) {
  Fixture f;
  std::string path = f.write("job.sh", "#!/bin/bash\nsrun x\n");
  test::FakeRunner runner;
  runner.expect({"sbatch"}, {1, "", "sbatch: error: invalid partition specified: nope\n"});
  try {
    submit_script({path, "slurm", {}}, scheduler("slurm"), k_prefixes, runner, f.options());
    FAIL();
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("invalid partition"), std::string::npos) << error.what();
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(f.dir / "records"), fs::directory_iterator()), 1)
      << "the pending record with the script's copy stays";
}

}  // namespace
}  // namespace ezpz::core
