// Job records against what can sit in a records directory: links and FIFOs where ezpz reads and
// appends its record, and the record's files under a strict umask.
#include "ezpz/submit/job_record.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ezpz/util/error.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

struct Records {
  std::string root;
  Records() {
    std::string pattern = (fs::temp_directory_path() / "ezpz-records-test-XXXXXX").string();
    root = ::mkdtemp(pattern.data());
  }
  ~Records() { fs::remove_all(root); }
  // A record of job `id` as submit leaves it.
  std::string add(const std::string& id) const {
    std::string dir = record_dir(root, id);
    fs::create_directories(dir);
    JobRecord record;
    record.job_id = id;
    record.scheduler = "slurm";
    std::ofstream(dir + "/record.json") << record.to_json().dump(2);
    return dir;
  }
};

std::string contents(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

template <class F>
std::string error_text(F&& f) {
  try {
    f();
  } catch (const UserError& error) {
    return error.diagnostics().front().message;
  }
  return "";
}

TEST(Decisions, AppendedAndReadBackOneObjectPerLine) {
  Records records;
  std::string dir = records.add("7");
  append_decision(dir, {{"attempt", 1}});
  append_decision(dir, {{"attempt", 2}});
  auto decisions = read_decisions(dir);
  ASSERT_EQ(decisions.size(), 2u);
  EXPECT_EQ(decisions[1]["attempt"], 2);
  EXPECT_TRUE(read_decisions(records.add("8")).empty()) << "no file: no decisions";
}

// A link planted at decisions.jsonl sent the failover decisions into its target.
TEST(Decisions, NeverAppendedThroughALink) {
  Records records;
  std::string dir = records.add("7");
  std::string victim = records.root + "/victim";
  std::ofstream(victim) << "precious\n";
  ASSERT_EQ(::symlink(victim.c_str(), decisions_path(dir).c_str()), 0);
  EXPECT_EQ(error_text([&] {
              append_decision(dir, {{"attempt", 1}});
            }),
            "cannot open '" + decisions_path(dir) +
                "' to record a failover decision: it is a symbolic link, not a regular file");
  EXPECT_EQ(contents(victim), "precious\n");
  EXPECT_EQ(error_text([&] { read_decisions(dir); }),
            "cannot read '" + decisions_path(dir) + "': it is a symbolic link, not a regular file");
}

// A FIFO there hung `ezpz status` (reading) and `ezpz launch --spare-nodes` (appending).
TEST(Decisions, AFifoIsRefusedAtOnce) {
  Records records;
  std::string dir = records.add("7");
  ASSERT_EQ(::mkfifo(decisions_path(dir).c_str(), 0600), 0);
  EXPECT_EQ(
      error_text([&] {
        append_decision(dir, {{"attempt", 1}});
      }),
      "cannot open '" + decisions_path(dir) + "' to record a failover decision: it is a FIFO, not a regular file");
  EXPECT_EQ(error_text([&] { read_decisions(dir); }),
            "cannot read '" + decisions_path(dir) + "': it is a FIFO, not a regular file");
}

TEST(Records, AFifoRecordIsAnErrorForItsJobAndSkippedInTheList) {
  Records records;
  records.add("7");
  std::string fifo = record_dir(records.root, "8") + "/record.json";
  fs::create_directories(record_dir(records.root, "8"));
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_text([&] { find_record(records.root, "8"); }),
            "cannot read the record of job '8' ('" + fifo + "'): it is a FIFO, not a regular file");
  auto all = list_records(records.root);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].job_id, "7");
}

// A record whose id is no job's (terminal escapes once went to the terminal raw through `status`) is
// skipped with a warning, escaped, and the other records are listed.
TEST(Records, ARecordWhoseIdIsNoJobsIsSkipped) {
  Records records;
  records.add("42");
  records.add("4\0332J");
  testing::internal::CaptureStderr();
  std::vector<JobRecord> listed = list_records(records.root);
  std::string warning = testing::internal::GetCapturedStderr();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].job_id, "42");
  EXPECT_NE(warning.find("is not a job id"), std::string::npos) << warning;
  EXPECT_EQ(warning.find('\033'), std::string::npos) << "escaped";
}

}  // namespace
}  // namespace ezpz::core
