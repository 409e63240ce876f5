// The queues' caps counted against a list of jobs (profile/queue_caps.hpp), the job lists the schedulers'
// answers give (job_list: pbs-json and columns), and the caps the shipped profiles state.
#include "ezpz/profile/queue_caps.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "../test_support.hpp"
#include "ezpz/profile/read_profile.hpp"

namespace ezpz::core {
namespace {

const SystemProfile& profile(const std::string& name) {
  return test::builtin_catalog().system(name);
}
const Scheduler& scheduler(const std::string& name) {
  return test::builtin_catalog().scheduler(name);
}

ListedJob job(const std::string& user, const std::string& account, const std::string& queue, JobState state) {
  static int next = 0;
  return {std::to_string(++next), user, account, queue, state};
}

std::vector<ListedJob> jobs(int n, const std::string& user, const std::string& account, const std::string& queue,
                            JobState state) {
  std::vector<ListedJob> made;
  for (int i = 0; i < n; ++i) made.push_back(job(user, account, queue, state));
  return made;
}

std::vector<ListedJob> operator+(std::vector<ListedJob> a, const std::vector<ListedJob>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const CapCount* find(const std::vector<CapCount>& counts, const std::string& queue, const std::string& kind,
                     const std::string& owner) {
  auto found = std::find_if(counts.begin(), counts.end(), [&](const CapCount& c) {
    return c.queue == queue && c.cap.kind == kind && c.owner == owner;
  });
  return found == counts.end() ? nullptr : &*found;
}

TEST(QueueCaps, LevelsAreReachedAtTheCapAndNearFromEightyPercentOfCapsOfFiveOrMore) {
  EXPECT_EQ(cap_level(10, 10), CapLevel::reached);
  EXPECT_EQ(cap_level(11, 10), CapLevel::reached);
  EXPECT_EQ(cap_level(8, 10), CapLevel::near);
  EXPECT_EQ(cap_level(7, 10), CapLevel::room);
  EXPECT_EQ(cap_level(80, 100), CapLevel::near);
  EXPECT_EQ(cap_level(79, 100), CapLevel::room);
  EXPECT_EQ(cap_level(4, 5), CapLevel::near);
  EXPECT_EQ(cap_level(1, 2), CapLevel::room) << "a cap of 2 is reached or not";
  EXPECT_EQ(cap_level(0, 1), CapLevel::room);
  EXPECT_EQ(cap_level(1, 1), CapLevel::reached);
}

// ALCF prod (Aurora and Polaris): 10 running/accruing per project in each execution queue prod routes
// to, 100 queued (not accruing) per project: the jobs prod has not routed yet.
TEST(QueueCaps, ProdCountsRoutedJobsPerExecutionQueueAndUnroutedOnesInProd) {
  for (const std::string system : {"aurora", "polaris"}) {
    const Queue& prod = *std::find_if(profile(system).queues.begin(), profile(system).queues.end(),
                                      [](const Queue& q) { return q.name == "prod"; });
    EXPECT_EQ(prod.routes_to, (std::vector<std::string>{"small", "medium", "large", "backfill-small", "backfill-medium",
                                                        "backfill-large"}))
        << system;
    auto list = jobs(6, "me", "P", "small", JobState::running) + jobs(3, "you", "P", "small", JobState::queued) +
                jobs(1, "me", "P", "small", JobState::held) +      // held: not accruing
                jobs(4, "me", "P", "medium", JobState::running) +  // another execution queue
                jobs(5, "me", "Q", "small", JobState::running) +   // another project
                jobs(81, "you", "P", "prod", JobState::queued) +   // not routed yet
                jobs(2, "me", "P", "prod", JobState::held) +       // not routed, held
                jobs(7, "me", "P", "debug", JobState::queued);     // another queue
    auto counts = count_caps(profile(system), {"prod"}, list, "me", {"P"});
    ASSERT_EQ(counts.size(), 2u) << system << ": a project cap per project, no user cap";
    const CapCount* routed = find(counts, "prod", "running_accruing_per_project", "P");
    ASSERT_NE(routed, nullptr) << system;
    EXPECT_EQ(routed->count, 9) << system << ": 6 running + 3 queued in small, the held one not";
    EXPECT_EQ(routed->counted_in, "small") << system;
    EXPECT_EQ(routed->level, CapLevel::near) << system;
    const CapCount* queued = find(counts, "prod", "queued_per_project", "P");
    ASSERT_NE(queued, nullptr) << system;
    EXPECT_EQ(queued->count, 83) << system;
    EXPECT_EQ(queued->counted_in, "prod") << system;
    EXPECT_EQ(queued->level, CapLevel::near) << system;

    list = list + jobs(1, "you", "P", "small", JobState::queued) + jobs(17, "me", "P", "prod", JobState::queued);
    counts = count_caps(profile(system), {"prod"}, list, "me", {"P"});
    EXPECT_EQ(find(counts, "prod", "running_accruing_per_project", "P")->level, CapLevel::reached) << system;
    EXPECT_EQ(find(counts, "prod", "queued_per_project", "P")->count, 100) << system;
    EXPECT_EQ(find(counts, "prod", "queued_per_project", "P")->level, CapLevel::reached) << system;
    EXPECT_TRUE(count_caps(profile(system), {"prod"}, list, "me", {}).empty())
        << system << ": without a project, no project cap is counted";
  }
}

TEST(QueueCaps, UserCapsCountTheUsersJobsInTheQueue) {
  auto list = jobs(1, "me", "P", "capacity", JobState::running) + jobs(1, "me", "P", "capacity", JobState::held) +
              jobs(3, "you", "P", "capacity", JobState::running) + jobs(2, "me", "P", "debug", JobState::queued) +
              jobs(1, "me", "P", "debug-scaling", JobState::completed);  // ended: counts nowhere
  auto counts = count_caps(profile("aurora"), {"capacity", "debug", "debug-scaling"}, list, "me", {"P"});
  const CapCount* queued = find(counts, "capacity", "queued_per_user", "me");
  ASSERT_NE(queued, nullptr);
  EXPECT_EQ(queued->count, 2);
  EXPECT_EQ(queued->level, CapLevel::room) << "5 queued or running per user";
  EXPECT_EQ(find(counts, "capacity", "running_per_user", "me")->count, 1);
  EXPECT_EQ(find(counts, "capacity", "running_per_user", "me")->level, CapLevel::room);
  EXPECT_EQ(find(counts, "capacity", "nodes_across_jobs", "me"), nullptr) << "nodes are not counted";
  EXPECT_EQ(find(counts, "debug", "jobs_per_user", "me")->count, 2);
  EXPECT_EQ(find(counts, "debug", "jobs_per_user", "me")->level, CapLevel::reached);
  EXPECT_EQ(find(counts, "debug-scaling", "jobs_per_user", "me")->count, 0);
  EXPECT_TRUE(count_caps(profile("aurora"), {"capacity"}, list, "", {}).empty()) << "no user name: no user cap";
}

// OLCF Frontier: 100 jobs per user in any state across all partitions; the debug QOS runs in the batch
// partition, so its own cap (1 job per user) cannot be told from squeue's partition column.
TEST(QueueCaps, FrontiersHundredJobsCountEveryQueueOnceAndTheDebugQosIsNotCounted) {
  auto list = jobs(60, "me", "", "batch", JobState::queued) + jobs(30, "me", "", "extended", JobState::held) +
              jobs(3, "me", "", "batch", JobState::running) + jobs(50, "you", "", "batch", JobState::queued);
  auto counts = count_caps(profile("frontier"), {"batch", "extended", "debug"}, list, "me", {});
  ASSERT_EQ(counts.size(), 2u) << "the all-queues cap once, extended's running cap; eligible caps and debug's "
                                  "own cap are not counted";
  const CapCount* all = find(counts, "batch", "jobs_per_user_all_queues", "me");
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(all->count, 93);
  EXPECT_EQ(all->counted_in, "");
  EXPECT_EQ(all->level, CapLevel::near);
  EXPECT_EQ(find(counts, "extended", "running_per_user", "me")->count, 0);
  counts = count_caps(profile("frontier"), {"debug"}, list, "me", {});
  ASSERT_EQ(counts.size(), 1u);
  EXPECT_EQ(counts[0].cap.kind, "jobs_per_user_all_queues");
}

TEST(QueueCaps, TheShippedProfilesStateTheSitesCaps) {
  auto caps_of = [](const std::string& system, const std::string& queue) {
    std::vector<std::string> described;
    for (const auto& q : profile(system).queues) {
      if (q.name != queue) continue;
      for (const auto& cap : q.caps) described.push_back(cap.describe());
    }
    return described;
  };
  std::vector<std::string> prod = {"at most 10 job(s) running or accruing per project",
                                   "at most 100 job(s) queued (not accruing) per project"};
  EXPECT_EQ(caps_of("aurora", "prod"), prod);
  EXPECT_EQ(caps_of("polaris", "prod"), prod);
  for (const std::string queue : {"batch", "extended", "debug"}) {
    auto caps = caps_of("frontier", queue);
    EXPECT_NE(std::find(caps.begin(), caps.end(), "at most 100 job(s) per user in any state, across all queues"),
              caps.end())
        << queue;
  }
}

// Recorded from the suite's OpenPBS 23.06.06 (tests/pbs) on 2026-11-29: `qstat -f -F json -t` as the
// test user, with a held job in prod charged to MyProject, a running one in debug without -A, and a
// held array of two subjobs in prod (qsub -h -J 1-2: the parent is H, its subjobs Q); the attributes
// ezpz does not read are cut but for a few (Resource_List: an object it skips).
const char* k_qstat = R"({
 "timestamp": 1795951302,
 "pbs_version": "23.06.06",
 "pbs_server": "ezpz-pbs",
 "Jobs": {
  "262.ezpz-pbs": {
   "Job_Name": "held",
   "Job_Owner": "ezpzpbs@ezpz-pbs",
   "job_state": "H",
   "queue": "prod",
   "server": "ezpz-pbs",
   "Account_Name": "MyProject",
   "ctime": "Sun Nov 29 11:21:34 2026",
   "Resource_List": {
    "ncpus": 10,
    "nodect": 10,
    "place": "free",
    "select": 10,
    "walltime": "00:30:00"
   },
   "substate": 20
  },
  "263.ezpz-pbs": {
   "Job_Name": "STDIN",
   "Job_Owner": "ezpzpbs@ezpz-pbs",
   "job_state": "R",
   "queue": "debug",
   "server": "ezpz-pbs",
   "ctime": "Sun Nov 29 11:21:34 2026",
   "Resource_List": {
    "ncpus": 1,
    "nodect": 1,
    "place": "free",
    "select": 1,
    "walltime": "00:05:00"
   },
   "substate": 42
  },
  "264[].ezpz-pbs": {
   "Job_Name": "arr",
   "Job_Owner": "ezpzpbs@ezpz-pbs",
   "job_state": "H",
   "queue": "prod",
   "server": "ezpz-pbs",
   "Account_Name": "MyProject",
   "ctime": "Sun Nov 29 11:21:34 2026",
   "Resource_List": {
    "ncpus": 10,
    "nodect": 10,
    "place": "free",
    "select": 10,
    "walltime": "00:30:00"
   },
   "substate": 20,
   "array": "True",
   "array_indices_submitted": "1-2"
  },
  "264[1].ezpz-pbs": {
   "Job_Name": "arr",
   "Job_Owner": "ezpzpbs@ezpz-pbs",
   "job_state": "Q",
   "queue": "prod",
   "server": "ezpz-pbs",
   "Account_Name": "MyProject",
   "ctime": "Sun Nov 29 11:21:34 2026",
   "Resource_List": {
    "ncpus": 10,
    "nodect": 10,
    "place": "free",
    "select": 10,
    "walltime": "00:30:00"
   },
   "substate": 10
  },
  "264[2].ezpz-pbs": {
   "Job_Name": "arr",
   "Job_Owner": "ezpzpbs@ezpz-pbs",
   "job_state": "Q",
   "queue": "prod",
   "server": "ezpz-pbs",
   "Account_Name": "MyProject",
   "ctime": "Sun Nov 29 11:21:34 2026",
   "Resource_List": {
    "ncpus": 10,
    "nodect": 10,
    "place": "free",
    "select": 10,
    "walltime": "00:30:00"
   },
   "substate": 10
  }
 }
})";

TEST(JobList, PbsJsonGivesOwnerAccountQueueAndStateAndCountsSubjobsNotTheirArray) {
  JobList list = parse_job_list("pbs-json", scheduler("pbs"), k_qstat);
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 4u);
  EXPECT_EQ((*list)[0].job_id, "262.ezpz-pbs");
  EXPECT_EQ((*list)[0].user, "ezpzpbs");
  EXPECT_EQ((*list)[0].account, "MyProject");
  EXPECT_EQ((*list)[0].queue, "prod");
  EXPECT_EQ((*list)[0].state, JobState::held);
  EXPECT_EQ((*list)[1].account, "") << "no -A: no Account_Name";
  EXPECT_EQ((*list)[1].queue, "debug");
  EXPECT_EQ((*list)[1].state, JobState::running);
  EXPECT_EQ((*list)[2].job_id, "264[1].ezpz-pbs");
  EXPECT_EQ((*list)[2].state, JobState::queued);
  EXPECT_EQ((*list)[3].job_id, "264[2].ezpz-pbs");
  EXPECT_EQ((*list)[3].account, "MyProject");

  // Without -t an array is its parent alone, and counts once.
  std::string parent_only = R"({"Jobs":{"103[].ezpz-pbs":{"Job_Owner":"u@h","job_state":"Q","queue":"prod"}}})";
  list = parse_job_list("pbs-json", scheduler("pbs"), parent_only);
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].state, JobState::queued);

  // A server without jobs leaves "Jobs" out; what is not JSON cannot be read.
  list = parse_job_list("pbs-json", scheduler("pbs"), R"({"timestamp":1,"pbs_version":"23.06.06","pbs_server":"s"})");
  ASSERT_TRUE(list);
  EXPECT_TRUE(list->empty());
  EXPECT_FALSE(parse_job_list("pbs-json", scheduler("pbs"), "qstat: cannot connect to server"));
  EXPECT_FALSE(parse_job_list("pbs-json", scheduler("pbs"), R"({"Jobs":[1]})"));
  EXPECT_FALSE(parse_job_list("no-such-format", scheduler("pbs"), k_qstat));
}

// Recorded from the suite's Slurm 22.05 (tests/slurm) on 2026-11-29: squeue --noheader --all --array
// --format="%i %u %a %P %T" with a running 2-node job, a held one (PENDING, reason JobHeldUser) and an
// array of two 3-node tasks, one running and one pending, all submitted by root without an account.
const char* k_squeue =
    "45952191_2 root (null) debug PENDING\n"
    "45952190 root (null) debug PENDING\n"
    "45952189 root (null) debug RUNNING\n"
    "45952191_1 root (null) debug RUNNING\n";

TEST(JobList, ColumnsAreReadByTheirNamesAndSlurmsNullAccountIsNone) {
  JobList list = parse_job_list("columns", scheduler("slurm"), k_squeue);
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 4u);
  EXPECT_EQ((*list)[0].job_id, "45952191_2");
  EXPECT_EQ((*list)[0].user, "root");
  EXPECT_EQ((*list)[0].account, "");
  EXPECT_EQ((*list)[0].queue, "debug");
  EXPECT_EQ((*list)[0].state, JobState::queued);
  EXPECT_EQ((*list)[1].state, JobState::queued) << "a held job is PENDING in %T: counted as queued";
  EXPECT_EQ((*list)[3].job_id, "45952191_1");
  EXPECT_EQ((*list)[3].state, JobState::running);
  list = parse_job_list("columns", scheduler("slurm"), "7 me proj batch RUNNING\n");
  ASSERT_TRUE(list);
  EXPECT_EQ((*list)[0].account, "proj");
  EXPECT_TRUE(parse_job_list("columns", scheduler("slurm"), "")->empty());
  EXPECT_FALSE(parse_job_list("columns", scheduler("slurm"), "7 me\n")) << "fewer words than columns";
}

TEST(JobList, ASchedulersJobListNeedsItsCommandFormatAndColumns) {
  auto problems = [](const std::string& yaml) {
    Diagnostics d;
    read_scheduler(parse_yaml(make_source("schedulers/x.yaml", yaml)), "x", d);
    std::string messages;
    for (const auto& item : d.items()) messages += item.message + "\n";
    return messages;
  };
  EXPECT_EQ(problems("job_list: {command: [q], format: pbs-json}\n"), "");
  EXPECT_NE(problems("job_list: {command: [q]}\n").find("'job_list' needs 'command' and 'format'"), std::string::npos);
  EXPECT_NE(problems("job_list: {command: [q], format: columns}\n").find("needs 'job_list.columns'"),
            std::string::npos);
  EXPECT_NE(problems("job_list: {command: [q], format: columns, columns: [user, owner]}\n")
                .find("'job_list.columns' holds 'owner'"),
            std::string::npos);
  EXPECT_NE(problems("job_list: {command: [q], format: slurm-sacct}\n").find("'job_list.format' expects one of"),
            std::string::npos)
      << "only formats that read job lists";
  for (const std::string name : {"pbs", "slurm"}) EXPECT_FALSE(scheduler(name).job_list.command.empty()) << name;
}

TEST(JobList, AProfilesRoutesToAndNewCapKindsAreRead) {
  Diagnostics d;
  auto p = read_system_profile(
      parse_yaml(make_source("systems/x.yaml",
                             "queues:\n  r:\n    routes_to: [a, b]\n    caps: {queued_per_project: 3, "
                             "running_accruing_per_project: 2, jobs_per_user_all_queues: 9, queued_per_projekt: 1}\n")),
      "x", d);
  ASSERT_EQ(p.queues.size(), 1u);
  EXPECT_EQ(p.queues[0].routes_to, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.queues[0].caps.size(), 3u);
  bool unknown = false;
  for (const auto& item : d.items()) {
    if (item.message.find("unknown cap 'queued_per_projekt'") != std::string::npos) {
      unknown = true;
      EXPECT_NE(item.hint.find("queued_per_project"), std::string::npos) << item.hint;
    }
  }
  EXPECT_TRUE(unknown);
}

}  // namespace
}  // namespace ezpz::core
