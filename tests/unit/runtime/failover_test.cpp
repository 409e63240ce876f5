// Spare-node failover's loop (runtime/failover.hpp) driven through its hooks: what it swaps, what it
// never swaps, and why it stops.
#include "ezpz/runtime/failover.hpp"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "../test_support.hpp"
#include "ezpz/util/exit_codes.hpp"

namespace ezpz::core {
namespace {

// A scripted world: each attempt's outcome, output and the evidence the sources give after it.
struct World {
  struct Step {
    int code = 1;
    std::string output;           // what the attempt prints
    double seconds = 1;           // how long it runs
    std::vector<Evidence> state;  // from the scheduler afterwards
    std::vector<Evidence> probe;  // from the probe afterwards
    bool stopped_by_user = false;
  };
  std::vector<Step> steps;
  std::vector<std::vector<std::string>> ran;  // the hosts of each attempt
  std::vector<std::vector<std::string>> probed;
  std::vector<FailoverDecision> decisions;
  double clock = 1'800'000'000;
  double slept = 0;
  std::optional<int> signal_while_waiting;

  FailoverHooks hooks() {
    FailoverHooks h;
    h.now = [this] { return clock; };
    h.wait = [this](double seconds) -> std::optional<int> {
      slept += seconds, clock += seconds;
      return signal_while_waiting;
    };
    h.record = [this](const FailoverDecision& d) { decisions.push_back(d); };
    h.attempt = [this](const std::vector<std::string>& hosts, const Supervision& supervision) {
      ran.push_back(hosts);
      const Step& step = steps.at(ran.size() - 1);
      if (supervision.on_output) supervision.on_output(step.output);
      clock += step.seconds;
      LaunchOutcome outcome;
      outcome.code = step.code;
      outcome.why = step.code == 0 ? "" : "srun failed with exit code " + std::to_string(step.code);
      outcome.stopped_by_user = step.stopped_by_user;
      return outcome;
    };
    h.node_state = [this](const std::vector<std::string>&, std::string&) { return steps.at(ran.size() - 1).state; };
    h.probe = [this](const std::vector<std::string>& hosts, std::string&) {
      probed.push_back(hosts);
      return steps.at(ran.size() - 1).probe;
    };
    return h;
  }

  const FailoverDecision& first(const std::string& action) const {
    for (const auto& d : decisions) {
      if (d.action == action) return d;
    }
    throw std::runtime_error("no decision " + action);
  }

  std::vector<std::string> actions() const {
    std::vector<std::string> out;
    for (const auto& d : decisions) {
      if (d.action != "note" && d.action != "start") out.push_back(d.action + (d.reason.empty() ? "" : ":" + d.reason));
    }
    return out;
  }
};

const std::vector<std::string> k_hosts = {"n1", "n2", "n3", "n4"};

FailoverPolicy policy(long spares, long retries = 3) {
  FailoverPolicy p;
  p.spare_nodes = spares;
  p.retries = retries;
  p.delays.first_delay = 1;
  p.startup_seconds = 60;
  return p;
}

FailoverResult run(World& world, const FailoverPolicy& p, std::optional<long> end = std::nullopt,
                   const Failover& failover = {}) {
  NodeNames names(k_hosts, failover);
  return run_failover(k_hosts, names, failover, p, Supervision{}, world.hooks(), end);
}

TEST(Failover, SwapsTheNodeTheSchedulerCallsDownAndCompletesOnTheNewHosts) {
  World world;
  world.steps = {{137, "", 120, {{"n2", "scheduler", "state DOWN"}}, {}}, {0, "", 30, {}, {}}};
  FailoverResult result = run(world, policy(1));
  EXPECT_EQ(result.code, 0);
  EXPECT_EQ(result.reason, "success");
  ASSERT_EQ(world.ran.size(), 2u);
  EXPECT_EQ(world.ran[0], (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_EQ(world.ran[1], (std::vector<std::string>{"n1", "n4", "n3"}));  // n4 in n2's place
  EXPECT_EQ(world.actions(), (std::vector<std::string>{"ended", "swap", "stop:success"}));
  const FailoverDecision& swap = world.first("swap");
  EXPECT_EQ(swap.node, "n2");
  EXPECT_EQ(swap.replacement, "n4");
  EXPECT_EQ(swap.source, "scheduler");
  EXPECT_EQ(swap.evidence, "state DOWN");
  EXPECT_EQ(swap.attempt, 1);
  // The node the scheduler condemned is not probed; the others are.
  ASSERT_EQ(world.probed.size(), 1u);
  EXPECT_EQ(world.probed[0], (std::vector<std::string>{"n1", "n3", "n4"}));
}

TEST(Failover, WithoutEvidenceRetriesOnTheSameNodesAndStopsWithoutProgress) {
  // A full disk: every rank exits 1 at once; nothing says a node is bad (Python ezpz #231, #233 evict
  // the first node blindly here).
  World world;
  world.steps = {{1, "", 2, {}, {}}, {1, "", 2, {}, {}}, {1, "", 2, {}, {}}};
  FailoverResult result = run(world, policy(1, 5));
  EXPECT_EQ(result.code, 1);
  EXPECT_EQ(result.reason, "no-progress");
  ASSERT_EQ(world.ran.size(), 2u);
  EXPECT_EQ(world.ran[0], world.ran[1]);
  EXPECT_EQ(world.actions(), (std::vector<std::string>{"ended", "retry", "ended", "stop:no-progress"}));
}

TEST(Failover, AnAttemptPastStartUpResetsTheCountAndRetriesEndAtTheLimit) {
  World world;
  world.steps = {{1, "", 2, {}, {}}, {1, "", 600, {}, {}}, {1, "", 2, {}, {}}};
  FailoverResult result = run(world, policy(1, 2));
  EXPECT_EQ(result.reason, "retries-used");
  EXPECT_EQ(world.ran.size(), 3u);
}

TEST(Failover, ThePatternFromTheSpecDefinesProgress) {
  FailoverPolicy p = policy(1, 5);
  p.progress = "step [0-9]+";
  World world;  // long-lived attempts that never print the pattern made no progress
  world.steps = {{1, "loading\n", 900, {}, {}}, {1, "loading\n", 900, {}, {}}};
  EXPECT_EQ(run(world, p).reason, "no-progress");
  World printing;  // short attempts that do print it did
  printing.steps = {{1, "step 1\n", 2, {}, {}}, {1, "step 2\n", 2, {}, {}}, {0, "", 2, {}, {}}};
  EXPECT_EQ(run(printing, p).reason, "success");
}

TEST(Failover, StartsNoAttemptThatCouldNotGetPastStartUpBeforeTheEnd) {
  World world;
  world.steps = {{137, "", 30, {{"n1", "scheduler", "state DOWN"}}, {}}, {0, "", 1, {}, {}}};
  long end = static_cast<long>(world.clock) + 30 + 40;  // 40 s left after the attempt, start-up is 60 s
  FailoverResult result = run(world, policy(1), end);
  EXPECT_EQ(result.reason, "no-time");
  EXPECT_EQ(result.code, 137);
  EXPECT_EQ(world.ran.size(), 1u);
  EXPECT_EQ(world.slept, 0);
}

TEST(Failover, Exit143IsAFailureLikeAnyOtherNotTheWalltime) {
  // Python ezpz #243 stopped here with spares left; only the allocation's end time means "walltime".
  World world;
  world.steps = {{143, "", 100, {{"n3", "scheduler", "state DOWN*"}}, {}}, {0, "", 1, {}, {}}};
  EXPECT_EQ(run(world, policy(1), static_cast<long>(world.clock) + 100000).reason, "success");
  EXPECT_EQ(world.ran.size(), 2u);
}

// srun's lines, as the test cluster's Slurm 22.05 prints them (tests/slurm/failover_test.sh).
Failover frontier_failover() {
  return test::builtin_catalog().system("frontier").failover;
}

TEST(Failover, TheNodeWhoseTasksSrunReportsKilledIsSwappedNotTheTerminatedOnes) {
  // saforem2/ezpz#238 (Perlmutter, 2026-08-24): one node's tasks killed, srun stops the others.
  World world;
  world.steps = {{143,
                  "step 10\nsrun: error: n2: tasks 2-3: Killed\nsrun: error: n1: tasks 0-1: Terminated\n"
                  "srun: error: n3: tasks 4-5: Terminated\n",
                  100,
                  {},
                  {}},
                 {0, "", 1, {}, {}}};
  FailoverResult result = run(world, policy(1), std::nullopt, frontier_failover());
  EXPECT_EQ(result.reason, "success");
  EXPECT_EQ(world.actions(), (std::vector<std::string>{"ended", "swap", "stop:success"}));
  EXPECT_EQ(world.first("swap").node, "n2");
  EXPECT_EQ(world.first("swap").evidence, "srun-tasks-killed: srun: error: n2: tasks 2-3: Killed");
  EXPECT_EQ(world.ran[1], (std::vector<std::string>{"n1", "n4", "n3"}));
}

TEST(Failover, WhatNamesEveryActiveNodeProvesNothingAboutOne) {
  // One rank fails; the others do not stop on SIGTERM (a program that handles it), so slurmstepd kills
  // every remaining task after KillWait and srun reports each node's tasks "Killed" (seen on the test
  // cluster): a rank failure, not three bad nodes.
  World world;
  world.steps = {{137,
                  "srun: error: n2: task 3: Exited with exit code 1\nsrun: error: n2: task 2: Killed\n"
                  "srun: error: n1: tasks 0-1: Killed\nsrun: error: n3: tasks 4-5: Killed\n",
                  100,
                  {},
                  {}},
                 {0, "", 1, {}, {}}};
  FailoverResult result = run(world, policy(1), std::nullopt, frontier_failover());
  EXPECT_EQ(result.reason, "success");
  EXPECT_EQ(world.ran[1], world.ran[0]);
  EXPECT_EQ(world.actions(),
            (std::vector<std::string>{"ended", "suspect", "suspect", "suspect", "retry", "stop:success"}));
  bool said = false;
  for (const auto& d : world.decisions) {
    said = said || (d.action == "note" && d.evidence.find("names every active node (n[1-3])") != std::string::npos);
  }
  EXPECT_TRUE(said);
  ASSERT_EQ(world.probed.size(), 1u);  // the suspects are probed like any node
  EXPECT_EQ(world.probed[0], (std::vector<std::string>{"n1", "n2", "n3", "n4"}));
}

TEST(Failover, ARankThatDiesOfBadAllocWith143IsRetriedOnTheSameNodesNotTheWalltime) {
  // saforem2/ezpz#243 (Aurora, 2026-09-06) read exit 143 after "MemoryError: std::bad_alloc" as the
  // walltime and stopped with 10 spares and 11 h left; its fix turned it into a node verdict (a blind
  // swap). Here it is a rank failure: no node is evicted, the same nodes run again, and only the
  // allocation's end time could stop the loop for time.
  World world;
  world.steps = {{143,
                  "[rank3]: MemoryError: std::bad_alloc\nsrun: error: n2: task 3: Exited with exit code 1\n"
                  "srun: error: n2: task 2: Terminated\nsrun: error: n1: tasks 0-1: Terminated\n",
                  100,
                  {},
                  {}},
                 {0, "", 1, {}, {}}};
  FailoverResult result = run(world, policy(1), static_cast<long>(world.clock) + 12 * 3600, frontier_failover());
  EXPECT_EQ(result.reason, "success");
  EXPECT_EQ(world.actions(), (std::vector<std::string>{"ended", "retry", "stop:success"}));
  EXPECT_EQ(world.ran[1], world.ran[0]);
  EXPECT_EQ(world.first("ended").code, 143);
}

TEST(Failover, ASystemWithoutPatternsSaysSoOncePerLaunch) {
  // saforem2/ezpz#229 (Polaris, 2026-08-23): no patterns and a clean log looked alike for months.
  World world;
  world.steps = {{1, "", 100, {}, {}}, {1, "", 100, {}, {}}, {0, "", 1, {}, {}}};
  EXPECT_EQ(run(world, policy(1)).reason, "success");
  std::vector<const FailoverDecision*> said;
  for (const auto& d : world.decisions) {
    if (d.evidence.find("no failover.patterns") != std::string::npos) said.push_back(&d);
  }
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0]->action, "note");
  EXPECT_EQ(said[0]->attempt, 1);
  EXPECT_EQ(said[0], &world.decisions[1]);  // right after the start
  World with;
  with.steps = {{1, "", 100, {}, {}}, {0, "", 1, {}, {}}};
  EXPECT_EQ(run(with, policy(1), std::nullopt, frontier_failover()).reason, "success");
  for (const auto& d : with.decisions) EXPECT_EQ(d.evidence.find("no failover.patterns"), std::string::npos);
}

TEST(Failover, StopsWhenMoreNodesAreBadThanSparesAreHealthy) {
  World world;
  world.steps = {{1,
                  "",
                  100,
                  {{"n1", "scheduler", "state DOWN"}, {"n4", "scheduler", "state DRAIN"}},
                  {{"n2", "probe", "no answer"}}}};
  FailoverResult result = run(world, policy(1));
  EXPECT_EQ(result.reason, "no-spares");
  EXPECT_EQ(world.actions(), (std::vector<std::string>{"ended", "drop_spare", "stop:no-spares"}));
  EXPECT_EQ(world.first("drop_spare").node, "n4");
  EXPECT_NE(world.decisions.back().evidence.find("n1 (scheduler: state DOWN)"), std::string::npos);
  EXPECT_NE(world.decisions.back().evidence.find("n2 (probe: no answer)"), std::string::npos);
}

TEST(Failover, NeitherASignalNorTheEndSignalIsRetried) {
  World world;
  world.steps = {{130, "", 5, {{"n1", "scheduler", "state DOWN"}}, {}, true}};
  EXPECT_EQ(run(world, policy(1)).reason, "stopped");
  EXPECT_EQ(world.ran.size(), 1u);
}

TEST(Failover, ALogLineNamesTheNodeToSwap) {
  Failover failover;
  failover.node_key = "^(x[0-9]+c[0-9]+s[0-9]+b[0-9]+n[0-9]+)";
  failover.patterns.push_back(
      {"pals-shepherd-killed", "([A-Za-z0-9][A-Za-z0-9.-]*): shepherd died from signal 9\\b", 1, "name", true, {}});
  std::vector<std::string> hosts = {"x4102c5s2b0n0.hsn.cm.aurora.alcf.anl.gov",
                                    "x4102c5s3b0n0.hsn.cm.aurora.alcf.anl.gov",
                                    "x4102c5s4b0n0.hsn.cm.aurora.alcf.anl.gov"};
  NodeNames names(hosts, failover);
  World world;
  world.steps = {{1,
                  "step 3\nx4102c5s3b0n0.hostmgmt2042.cm.aurora.alcf.anl.gov: shepherd died from signal 9\n"
                  "x9999c0s0b0n0: shepherd died from signal 9\n",
                  100,
                  {},
                  {}},
                 {0, "", 1, {}, {}}};
  FailoverPolicy p = policy(1);
  FailoverResult result = run_failover(hosts, names, failover, p, Supervision{}, world.hooks(), std::nullopt);
  EXPECT_EQ(result.reason, "success");
  ASSERT_EQ(world.ran.size(), 2u);
  EXPECT_EQ(world.ran[1][1], hosts[2]);
  EXPECT_EQ(world.actions(), (std::vector<std::string>{"ended", "ignore", "swap", "stop:success"}));
  const FailoverDecision& ignored = world.first("ignore");
  EXPECT_NE(ignored.evidence.find("names 'x9999c0s0b0n0', not a host of this allocation"), std::string::npos)
      << ignored.evidence;
  const FailoverDecision& swap = world.first("swap");
  EXPECT_EQ(swap.node, hosts[1]);
  EXPECT_EQ(swap.source, "pattern");
  EXPECT_NE(swap.evidence.find("pals-shepherd-killed: x4102c5s3b0n0.hostmgmt2042"), std::string::npos) << swap.evidence;
}

TEST(Failover, ASignalBetweenAttemptsStopsTheLoop) {
  World world;
  world.signal_while_waiting = 15;
  world.steps = {{1, "", 2, {{"n1", "scheduler", "state DOWN"}}, {}}, {0, "", 1, {}, {}}};
  FailoverResult result = run(world, policy(1));
  EXPECT_EQ(result.reason, "stopped");
  EXPECT_EQ(result.code, 128 + 15);
  EXPECT_EQ(world.ran.size(), 1u);
}

TEST(Failover, AProgramsOwnExit124IsNotTheWatchdog) {
  World world;  // 100 s of a 60 s start-up, twice: progress, so the retries run out instead
  world.steps = {{124, "", 100, {}, {}}, {124, "", 100, {}, {}}};
  EXPECT_EQ(run(world, policy(1, 1)).reason, "retries-used");
}

TEST(Failover, EvidenceAgainstAHostNotInUseChangesNothing) {
  World world;
  FailoverPolicy p = policy(1, 1);
  p.active_nodes = 2;  // n1 n2 active, n3 spare, n4 unused
  world.steps = {{1, "", 100, {{"n4", "scheduler", "state DOWN"}}, {}}, {1, "", 100, {}, {}}};
  EXPECT_EQ(run(world, p).reason, "retries-used");
  EXPECT_EQ(world.ran[1], world.ran[0]);
  EXPECT_NE(world.first("ignore").evidence.find("n4 is not in use (scheduler: state DOWN)"), std::string::npos);
}

TEST(Failover, ASuspectIsRecordedButNotEvicted) {
  Failover failover;
  failover.patterns.push_back({"peer-closed", "peer (n[0-9])", 1, "name", false, {}});
  NodeNames names(k_hosts, failover);
  World world;
  world.steps = {{1, "closed by peer n2\n", 100, {}, {}}, {1, "", 100, {}, {}}};
  FailoverResult result =
      run_failover(k_hosts, names, failover, policy(1, 1), Supervision{}, world.hooks(), std::nullopt);
  EXPECT_EQ(result.reason, "retries-used");
  EXPECT_EQ(world.ran[1], world.ran[0]);
  EXPECT_EQ(world.first("suspect").node, "n2");
}

TEST(Failover, ASourceThatThrowsIsANote) {
  World world;
  world.steps = {{1, "", 100, {}, {}}, {0, "", 1, {}, {}}};
  FailoverHooks hooks = world.hooks();
  hooks.node_state = [](const std::vector<std::string>&, std::string&) -> std::vector<Evidence> {
    throw std::runtime_error("scontrol vanished");
  };
  NodeNames names(k_hosts, {});
  EXPECT_EQ(run_failover(k_hosts, names, {}, policy(1), Supervision{}, hooks, std::nullopt).reason, "success");
  bool noted = false;
  for (const auto& d : world.decisions) noted = noted || d.evidence == "scheduler failed: scontrol vanished";
  EXPECT_TRUE(noted);
}

TEST(Failover, RefusesAnAllocationTooSmallForTheSpares) {
  World world;
  EXPECT_THROW(run(world, policy(4)), UserError);
  FailoverPolicy p = policy(2);
  p.active_nodes = 3;
  EXPECT_THROW(run(world, p), UserError);
}

TEST(FailoverDecision, RoundTripsThroughItsRecord) {
  FailoverDecision d;
  d.attempt = 2;
  d.time = 1'800'000'000;
  d.action = "swap";
  d.node = "n2";
  d.replacement = "n4";
  d.source = "probe";
  d.evidence = "no answer";
  nlohmann::json json = d.to_json();
  EXPECT_EQ(json["time"], "2027-01-15T08:00:00Z");
  FailoverDecision back = FailoverDecision::from_json(json);
  EXPECT_EQ(back.text(), d.text());
  EXPECT_EQ(back.time, d.time);
  EXPECT_EQ(back.to_json(), json);
  EXPECT_EQ(back.text(), "attempt 2: swap n2 for n4: probe: no answer");
}

}  // namespace
}  // namespace ezpz::core
