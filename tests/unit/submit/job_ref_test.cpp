// Job ids from users and from schedulers: what may become a record's name and a scheduler command's word.
#include "ezpz/submit/job_ref.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "../test_support.hpp"
#include "ezpz/util/error.hpp"

namespace ezpz::core {
namespace {

TEST(JobIdProblem, TakesTheIdsSchedulersGive) {
  for (const char* id :
       {"42", "42.pbs01.example.com", "42[]", "42[3].server", "42_3", "42+1", "42;cluster2", "f2tWRQJ7"}) {
    EXPECT_EQ(job_id_problem(id), "") << id;
  }
}

// An id that starts with '-' became an option of scancel/qdel ("ezpz cancel -- -5" ran "scancel -5"); ".."
// and "/" name directories outside the records; a 20,000-digit id cannot be a directory name, so its
// record stayed "pending-…" while submit said 0.
TEST(JobIdProblem, RefusesWhatCannotBeAJobsId) {
  for (std::string id :
       {std::string(), std::string("-5"), std::string("--user=bob"), std::string(".."), std::string("../x"),
        std::string("4 2"), std::string("42\n"), std::string("4\0332", 3), std::string(20000, '7')}) {
    EXPECT_NE(job_id_problem(id), "") << id.substr(0, 20);
  }
}

TEST(FindJob, RefusesAnIdThatIsNoJobsBeforeAskingTheScheduler) {
  const Catalog& catalog = test::builtin_catalog();
  std::string records = (std::filesystem::temp_directory_path() / "ezpz-no-records-here").string();
  for (const char* id : {"-5", "--user=bob", ".."}) {
    try {
      find_job(
          catalog, records, id, "polaris", [](const std::string&) { return std::nullopt; }, "");
      ADD_FAILURE() << id << " was taken";
    } catch (const UserError& error) {
      EXPECT_NE(std::string(error.what()).find("is not a job id"), std::string::npos) << error.what();
    }
  }
}

}  // namespace
}  // namespace ezpz::core
