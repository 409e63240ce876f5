// The evidence spare-node failover reads: scheduler answers, output lines, probe answers.
#include <gtest/gtest.h>

#include "../submit/fake_runner.hpp"
#include "../test_support.hpp"
#include "ezpz/runtime/health_probe.hpp"
#include "ezpz/runtime/node_state.hpp"
#include "ezpz/runtime/output_evidence.hpp"

namespace ezpz::core {
namespace {

using States = std::vector<std::pair<std::string, std::vector<std::string>>>;

TEST(NodeStates, ReadsScontrolLinesWithFlagsAndTheNotRespondingStar) {
  std::string out =
      "NodeName=n1 Arch=x86_64 CoresPerSocket=1 State=IDLE ThreadsPerCore=1 Partitions=debug\n"
      "NodeName=n2 Arch=x86_64 State=DOWN*+DRAIN ThreadsPerCore=1 Reason=test [root@2026-11-24T21:55:59]\n"
      "NodeName=n3 Arch=x86_64 State=MIXED+NOT_RESPONDING\n"
      "garbage without names\n";
  EXPECT_EQ(
      parse_node_states("slurm-scontrol", out),
      (States{{"n1", {"IDLE"}}, {"n2", {"NOT_RESPONDING", "DOWN", "DRAIN"}}, {"n3", {"MIXED", "NOT_RESPONDING"}}}));
}

TEST(NodeStates, ReadsPbsnodesJsonAndSkipsUnknownNodes) {
  std::string out = R"({"nodes": {"x1": {"Mom": "x1", "state": "free"}, "x2": {"state": "state-unknown,down"},
                                  "x9": {"x9": "Unknown node "}, "x3": {"state": 7}}})";
  EXPECT_EQ(parse_node_states("pbs-json", out), (States{{"x1", {"FREE"}}, {"x2", {"STATE-UNKNOWN", "DOWN"}}}));
  EXPECT_TRUE(parse_node_states("pbs-json", "not json").empty());
  EXPECT_TRUE(parse_node_states("no-such-format", out).empty());
}

TEST(JobNodes, ReadsSlurmNodeListAndPbsExecHost) {
  std::string slurm = "JobId=42 JobName=x ReqNodeList=(null) ExcNodeList=(null) NodeList=n[1,3] BatchHost=n1";
  EXPECT_EQ(parse_job_nodes("slurm-scontrol", slurm), (std::vector<std::string>{"n1", "n3"}));
  EXPECT_EQ(parse_job_nodes("slurm-scontrol", "JobId=42 NodeList=(null)"), std::nullopt);
  std::string pbs = R"({"Jobs": {"7.server": {"exec_host": "x1/0*2+x2/0*2+x1/1"}}})";
  EXPECT_EQ(parse_job_nodes("pbs-json", pbs), (std::vector<std::string>{"x1", "x2"}));
  EXPECT_EQ(parse_job_nodes("pbs-json", R"({"Jobs": {"7.server": {}}})"), std::nullopt);
}

TEST(NodeStateEvidence, NamesBadStatesAndNodesTheJobLost) {
  const Scheduler& slurm = test::builtin_catalog().scheduler("slurm");
  std::vector<std::string> hosts = {"n1", "n2", "n3"};
  NodeNames names(hosts, {});
  test::FakeRunner runner;
  runner.expect({"scontrol", "-o", "show", "job", "42"}, {0, "JobId=42 NodeList=n[1-2] BatchHost=n1\n", ""});
  runner.expect({"scontrol", "-o", "show", "node", "n1,n2,n3"},
                {0, "NodeName=n1 State=IDLE\nNodeName=n2 State=ALLOCATED+DRAIN\nNodeName=n3 State=IDLE\n", ""});
  std::string note;
  auto evidence = node_state_evidence(slurm, hosts, "42", names, runner, note);
  ASSERT_EQ(runner.calls.size(), 2u);
  EXPECT_EQ(runner.calls[0], (std::vector<std::string>{"scontrol", "-o", "show", "job", "42"}));
  EXPECT_EQ(runner.calls[1], (std::vector<std::string>{"scontrol", "-o", "show", "node", "n1,n2,n3"}));
  ASSERT_EQ(evidence.size(), 2u);
  EXPECT_EQ(evidence[0].host, "n3");
  EXPECT_EQ(evidence[0].detail, "no longer in the job's nodes (n[1-2], from scontrol -o show job 42)");
  EXPECT_EQ(evidence[1].host, "n2");
  EXPECT_EQ(evidence[1].detail, "state ALLOCATED+DRAIN (scontrol -o show node n1,n2,n3)");
  EXPECT_EQ(note, "");
}

TEST(NodeStateEvidence, AFailingSchedulerProvesNothingAndSaysSo) {
  const Scheduler& pbs = test::builtin_catalog().scheduler("pbs");
  std::vector<std::string> hosts = {"x1.example", "x2.example"};
  NodeNames names(hosts, {});
  test::FakeRunner runner;
  runner.expect({"qstat"}, {1, "", "qstat: Unknown Job Id"});
  runner.expect({"pbsnodes", "-F", "json", "-v", "x1", "x2"}, {127, "", ""});
  std::string note;
  EXPECT_TRUE(node_state_evidence(pbs, hosts, "7.server", names, runner, note).empty());
  EXPECT_EQ(runner.calls[1], (std::vector<std::string>{"pbsnodes", "-F", "json", "-v", "x1", "x2"}));
  EXPECT_NE(note.find("no node list of job 7.server"), std::string::npos) << note;
  EXPECT_NE(note.find("no node states from 'pbsnodes -F json -v x1 x2' (exit code 127)"), std::string::npos) << note;
}

Failover aurora_failover() {
  return test::builtin_catalog().system("aurora").failover;
}

TEST(OutputEvidence, TheShippedAuroraPatternsNameHostsInTheirOtherForms) {
  std::vector<std::string> hosts = {"x4102c5s2b0n0.hsn.cm.aurora.alcf.anl.gov",
                                    "x4102c5s3b0n0.hsn.cm.aurora.alcf.anl.gov"};
  Failover failover = aurora_failover();
  ASSERT_EQ(failover.patterns.size(), 6u);
  NodeNames names(hosts, failover);
  OutputEvidence output(failover, names, "");
  // In pieces, as pipes deliver it.
  output.feed("[2026-05-23 12:34:56] training step=42 loss=2.4\nx4102c5s3b0n0.hostmgm");
  output.feed("t2042.cm.aurora.alcf.anl.gov: shepherd died from signal 9\nrank 1304 died from signal 11\n");
  output.feed("x4102c5s3b0n0.hsn.cm.aurora.alcf.anl.gov: shepherd died from signal 9\n");
  output.feed("x4102c5s2b0n0: shepherd died from signal 90");  // not signal 9
  output.finish();
  ASSERT_EQ(output.evidence().size(), 1u);
  EXPECT_EQ(output.evidence()[0].host, hosts[1]);
  EXPECT_EQ(output.evidence()[0].source, "pattern");
  EXPECT_EQ(output.evidence()[0].detail,
            "pals-shepherd-killed: x4102c5s3b0n0.hostmgmt2042.cm.aurora.alcf.anl.gov: shepherd died from signal 9");
  EXPECT_TRUE(output.ignored().empty());
}

// PALS's ping failures, each line exactly as ALCF's known-issues page quotes it (argonne-lcf/user-guides
// 2026-08-19, docs/aurora/known-issues.md, "Ping Failures" and "Known Issues"), with the node it proves
// bad: the child or peer that did not answer, or the node the application is gone from.
struct PingCase {
  const char* pattern;
  const char* line;
  const char* node;
};

class AuroraPingFailure : public ::testing::TestWithParam<PingCase> {};

TEST_P(AuroraPingFailure, NamesTheDeadNode) {
  const PingCase& c = GetParam();
  // The allocation holds both hosts a line names, so the test sees which one the pattern blames.
  std::vector<std::string> hosts = {
      "x4707c6s4b0n0.hsn.cm.aurora.alcf.anl.gov", "x4707c7s6b0n0.hsn.cm.aurora.alcf.anl.gov",
      "x4212c7s0b0n0.hsn.cm.aurora.alcf.anl.gov", "x4304c1s6b0n0.hsn.cm.aurora.alcf.anl.gov",
      "x4307c2s6b0n0.hsn.cm.aurora.alcf.anl.gov", "x4616c0s4b0n0.hsn.cm.aurora.alcf.anl.gov"};
  Failover failover = aurora_failover();
  NodeNames names(hosts, failover);
  OutputEvidence output(failover, names, "");
  output.feed(std::string(c.line) + "\n");
  output.finish();
  ASSERT_EQ(output.evidence().size(), 1u) << c.line;
  EXPECT_EQ(output.evidence()[0].host, std::string(c.node) + ".hsn.cm.aurora.alcf.anl.gov");
  EXPECT_EQ(output.evidence()[0].detail, std::string(c.pattern) + ": " + c.line);
  EXPECT_TRUE(output.suspects().empty());
}

INSTANTIATE_TEST_SUITE_P(
    KnownIssuesPage, AuroraPingFailure,
    ::testing::Values(
        PingCase{
            "pals-ping-forward-failed",
            "ping failed on x4707c6s4b0n0: Couldn't forward RPC ping(24c93b8c-3434-4fb5-a8f0-53cff4cbbe42) to child "
            "x4707c7s6b0n0.hostmgmt2707.cm.aurora.alcf.anl.gov: Resource temporarily unavailable",
            "x4707c7s6b0n0"},
        PingCase{"pals-ping-timeout",
                 "ping RPC timeout from x4212c7s0b0n0.hostmgmt2212.cm.aurora.alcf.anl.gov after 120s", "x4212c7s0b0n0"},
        PingCase{
            "pals-ping-no-reply",
            "ping failed on x4304c1s6b0n0: No reply from x4307c2s6b0n0.hostmgmt2307.cm.aurora.alcf.anl.gov after 87s",
            "x4307c2s6b0n0"},
        PingCase{"pals-ping-application-not-found",
                 "ping failed on x4616c0s4b0n0: Application 047a3c9f-fb41-4595-a2ad-4a4d0ec1b6c1 not found",
                 "x4616c0s4b0n0"}));

TEST(OutputEvidence, AnAddressThatIsNoHostOfTheAllocationIsIgnoredOnce) {
  std::vector<std::string> hosts = {"localhost"};  // resolves to 127.0.0.1 (and ::1)
  Failover failover = aurora_failover();
  NodeNames names(hosts, {});
  OutputEvidence output(failover, names, "");
  for (int i = 0; i < 3; ++i)
    output.feed("RuntimeError: [../gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.115.1.9]:4402\n");
  output.feed("RuntimeError: [gloo] Connection closed by peer [127.0.0.1]:4402\n");
  EXPECT_TRUE(output.ignored().empty());  // addresses are matched to hosts once the output has ended
  output.finish();
  ASSERT_EQ(output.ignored().size(), 1u);
  EXPECT_NE(output.ignored()[0].find("names '10.115.1.9', not the address of one host of this allocation"),
            std::string::npos)
      << output.ignored()[0];
  // A peer that closed its connection may only have crashed: the node is a suspect, not proven bad.
  EXPECT_TRUE(output.evidence().empty());
  ASSERT_EQ(output.suspects().size(), 1u);
  EXPECT_EQ(output.suspects()[0].host, "localhost");
}

TEST(OutputEvidence, LooksAtTheStartOfAnOverlongLineAndWatchesProgress) {
  std::vector<std::string> hosts = {"x1c0s0b0n0"};
  Failover failover;
  failover.patterns.push_back({"tail", "BAD ([a-z0-9]+)$", 1, "name", true, {}});
  failover.patterns.push_back({"no-group", "oops", 3, "name", true, {}});
  NodeNames names(hosts, {});
  OutputEvidence output(failover, names, "step [0-9]+");
  EXPECT_TRUE(output.watches_progress());
  output.feed(std::string(k_max_scanned_line, 'a') + " BAD x1c0s0b0n0\n");  // beyond what is looked at
  output.feed("oops\r");
  EXPECT_TRUE(output.evidence().empty());
  ASSERT_EQ(output.ignored().size(), 1u);
  EXPECT_NE(output.ignored()[0].find("has no group 3"), std::string::npos);
  EXPECT_FALSE(output.progress_seen());
  output.feed("epoch 0 step 1");
  output.finish();
  EXPECT_TRUE(output.progress_seen());
}

TEST(OutputEvidence, ABadPatternIsReportedWhereItIsWritten) {
  Failover failover;
  failover.patterns.push_back({"broken", "((", 1, "name", true, {}});
  NodeNames names({"n1"}, {});
  EXPECT_THROW(OutputEvidence(failover, names, ""), UserError);
}

// srun's lines when a step's tasks end, in the shapes real logs have them: Perlmutter's from the Python
// ezpz's node-kill experiment (saforem2/ezpz#238, 2026-08-24: the killed node's tasks "Killed", the
// innocent node's "Terminated"), Frontier's "task 0: Aborted" from OLCF's user guide (2026-07-22), the
// singular "task N" and the exit-code line from Slurm 22.05 on the test cluster
// (tests/slurm/failover_test.sh makes them).
TEST(OutputEvidence, TheShippedSlurmPatternsNameTheNodeWhoseTasksWereKilledNotTheTerminatedOnes) {
  for (const std::string system : {"perlmutter", "frontier"}) {
    SCOPED_TRACE(system);
    std::string a = system == "perlmutter" ? "nid001320" : "frontier01320";
    std::string b = system == "perlmutter" ? "nid001321" : "frontier01321";
    std::string c = system == "perlmutter" ? "nid001322" : "frontier01322";
    std::vector<std::string> hosts = {a, b, c};
    Failover failover = test::builtin_catalog().system(system).failover;
    ASSERT_FALSE(failover.patterns.empty());
    NodeNames names(hosts, failover);
    OutputEvidence output(failover, names, "");
    output.feed("srun: error: " + b + ": tasks 4-7: Killed\n");
    output.feed("srun: error: " + a + ": tasks 0-3: Terminated\n");
    output.feed("srun: error: " + a + ": task 3: Exited with exit code 1\n");
    output.feed("srun: error: " + c + ": task 9: Out Of Memory\n");  // the rank's memory, not the node
    output.feed("srun: error: " + c + ": task 8: Aborted\n");        // OLCF's Frontier user guide: a program's abort
    output.feed("srun: error: nid009999: task 2: Killed\n");         // not in this allocation
    output.finish();
    ASSERT_EQ(output.evidence().size(), 1u);
    EXPECT_EQ(output.evidence()[0].host, b);
    EXPECT_EQ(output.evidence()[0].detail, "srun-tasks-killed: srun: error: " + b + ": tasks 4-7: Killed");
    ASSERT_EQ(output.ignored().size(), 1u);
    EXPECT_NE(output.ignored()[0].find("names 'nid009999', not a host"), std::string::npos) << output.ignored()[0];
    // One task, and a list of ranges: the same verdict.
    output.reset();
    output.feed("srun: error: " + c + ": task 2: Killed\nsrun: error: " + a + ": tasks 0,2-3: Killed\n");
    output.finish();
    ASSERT_EQ(output.evidence().size(), 2u);
    EXPECT_EQ(output.evidence()[0].host, c);
    EXPECT_EQ(output.evidence()[1].host, a);
  }
}

// A rank that fails by itself (saforem2/ezpz#243, 2026-09-06: "[rank5141]: MemoryError: std::bad_alloc"
// and exit 143 on Aurora) is no verdict on its node, whatever the launcher adds around it: no proving
// pattern of any shipped profile may name a node for these lines. Each line is tried with the host
// forms of the sites (a launcher's label in front).
TEST(OutputEvidence, NoShippedPatternBlamesANodeForARankThatFailedByItself) {
  const std::vector<std::string> hosts = {"nid001320", "frontier01320", "x4102c5s2b0n0.hsn.cm.aurora.alcf.anl.gov",
                                          "x3006c0s19b1n0.hsn.cm.polaris.alcf.anl.gov", "n1"};
  const std::vector<std::string> lines = {
      "[rank5141]: MemoryError: std::bad_alloc",
      "MemoryError: std::bad_alloc",
      "terminate called after throwing an instance of 'std::bad_alloc'",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
      "srun: error: {host}: tasks 0-3: Terminated",
      "srun: error: {host}: task 3: Exited with exit code 1",
      "srun: error: {host}: task 3: Out Of Memory",
      "srun: error: {host}: task 0: Aborted",
      "{host}: rank 5141 exited with code 1",
      "{host}: rank 1304 died from signal 15",
      "{host}: [rank5141]: MemoryError: std::bad_alloc",
      "{host}: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
      "{host}: RuntimeError: CUDA error: out of memory",
  };
  for (const auto& system : test::builtin_catalog().system_names()) {
    const Failover& failover = test::builtin_catalog().system(system).failover;
    NodeNames names(hosts, failover);
    OutputEvidence output(failover, names, "");
    for (const auto& line : lines) {
      for (const auto& host : hosts) {
        std::string text = line;
        if (auto at = text.find("{host}"); at != std::string::npos) text.replace(at, 6, host);
        output.feed(text + "\n");
      }
    }
    output.finish();
    for (const auto& evidence : output.evidence()) {
      ADD_FAILURE() << "systems/" << system << ".yaml blames " << evidence.host << ": " << evidence.detail;
    }
  }
}

TEST(ProbeEvidence, ANodeThatDoesNotAnswerWhileOthersDoIsBad) {
  std::vector<std::string> hosts = {"n1", "n2", "n3"};
  NodeNames names(hosts, {});
  Devices six;
  six.kind = DeviceKind::xpu;
  six.count = 6;
  Devices five = six;
  five.count = 5;
  std::string out = probe_answer("n1", six) + "\n" + "0: " + probe_answer("n3", five) + "\nnoise\n";
  std::string note;
  auto evidence = probe_evidence(hosts, out, "no answer within 60 s", names, note);
  ASSERT_EQ(evidence.size(), 2u);
  EXPECT_EQ(evidence[0].host, "n2");
  EXPECT_EQ(evidence[0].detail, "no answer (no answer within 60 s), while 2 other node(s) answered");
  EXPECT_EQ(evidence[1].host, "n3");
  EXPECT_EQ(evidence[1].detail, "sees 5 xpu device(s), other nodes 6");
  EXPECT_EQ(note, "");
}

TEST(ProbeEvidence, NoAnswerAtAllProvesNothing) {
  std::vector<std::string> hosts = {"n1", "n2"};
  NodeNames names(hosts, {});
  std::string note;
  EXPECT_TRUE(
      probe_evidence(hosts, "srun: error: Unable to create step\n", "the probe ended with exit code 1", names, note)
          .empty());
  EXPECT_NE(note.find("no answer from any of the 2 node(s)"), std::string::npos);
  EXPECT_EQ(probe_answer("n1", Devices{}), "ezpz-probe node=n1 devices=cpu:0");
}

TEST(NodeNames, MatchesByTheProfilesNodeKeyElseTheShortName) {
  Failover sunspot;
  sunspot.node_key = "^(x[0-9]+c[0-9]+s[0-9]+b[0-9]+n[0-9]+)";
  NodeNames keyed({"x1921c1s0b0n0-hsn0.hsn.cm.sunspot.alcf.anl.gov"}, sunspot);
  EXPECT_EQ(keyed.host_named("x1921c1s0b0n0.hostmgmt.cm.sunspot.alcf.anl.gov"),
            "x1921c1s0b0n0-hsn0.hsn.cm.sunspot.alcf.anl.gov");
  EXPECT_EQ(keyed.host_named("x1921c1s0b0n1"), std::nullopt);
  EXPECT_EQ(keyed.host_named("uan-0001"), std::nullopt);
  NodeNames plain({"nid001.example.org", "nid002"}, {});
  EXPECT_EQ(plain.host_named("nid001"), "nid001.example.org");
  EXPECT_EQ(plain.host_named("nid002.other"), "nid002");
  EXPECT_EQ(plain.host_named(""), std::nullopt);
}

}  // namespace
}  // namespace ezpz::core
