// The shipped failover patterns of the PALS systems Polaris and Crux (systems/polaris.yaml,
// systems/crux.yaml), each fed a line in the shape a real log has, with where that shape comes from.
#include <gtest/gtest.h>

#include <algorithm>

#include "../test_support.hpp"
#include "ezpz/runtime/output_evidence.hpp"

namespace ezpz::core {
namespace {

// A line and what it must prove: the pattern's name and the allocation host it names ("" for a line
// that must name nothing), whether the host is proven bad or only a suspect.
struct PatternCase {
  const char* source;  // where the line's shape comes from
  std::string line;
  std::string pattern;
  std::string host;
  bool proves = true;
};

struct Outcome {
  std::vector<Evidence> evidence;
  std::vector<Evidence> suspects;
  std::vector<std::string> ignored;
};

Outcome feed(const std::string& system, const std::vector<std::string>& hosts, const std::string& line) {
  Failover failover = test::builtin_catalog().system(system).failover;
  NodeNames names(hosts, failover);
  OutputEvidence output(failover, names, "");
  output.feed(line + "\n");
  output.finish();
  return {output.evidence(), output.suspects(), output.ignored()};
}

void expect_case(const std::string& system, const std::vector<std::string>& hosts, const PatternCase& c) {
  SCOPED_TRACE(system + ": " + c.line + " (" + c.source + ")");
  Outcome out = feed(system, hosts, c.line);
  EXPECT_TRUE(out.ignored.empty()) << out.ignored.front();
  if (c.host.empty()) {
    EXPECT_TRUE(out.evidence.empty()) << out.evidence.front().detail;
    EXPECT_TRUE(out.suspects.empty()) << out.suspects.front().detail;
    return;
  }
  const std::vector<Evidence>& named = c.proves ? out.evidence : out.suspects;
  const std::vector<Evidence>& other = c.proves ? out.suspects : out.evidence;
  EXPECT_TRUE(other.empty()) << other.front().detail;
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0].host, c.host);
  EXPECT_EQ(named[0].source, "pattern");
  EXPECT_EQ(named[0].detail, c.pattern + ": " + c.line);
}

// Polaris's PBS_NODEFILE names nodes in their high-speed-network form (the Python ezpz's polaris.py,
// checked against job 7550301's host file).
const std::vector<std::string> k_polaris_hosts = {
    "x3005c0s31b1n0.hsn.cm.polaris.alcf.anl.gov", "x3007c0s13b1n0.hsn.cm.polaris.alcf.anl.gov",
    "x3102c0s25b1n0.hsn.cm.polaris.alcf.anl.gov", "x3104c0s31b0n0.hsn.cm.polaris.alcf.anl.gov",
    "x3104c0s1b0n0.hsn.cm.polaris.alcf.anl.gov"};

// PALS --label: "<host> <rank>: <line>" (HPE craycli cray/pals.py print_output; the Python ezpz's
// polaris.py quotes "x3005c0s31b1n0.hsn.cm.polaris.alcf.anl.gov 1: RuntimeError: ..." from Polaris job
// 7553963).
const std::string k_label = "x3005c0s31b1n0.hsn.cm.polaris.alcf.anl.gov 1: ";

TEST(PolarisPatterns, NameTheNodeOfEachLineThatBlamesOne) {
  const std::string pals_rpc =
      "launch failed on x3104c0s1b0n0: Couldn't forward RPC launch(ab751d77-e80a-4c54-b1c2-4e881f7e8c90) to child "
      "x3104c0s31b0n0.hsn.cm.polaris.alcf.anl.gov: Resource temporarily unavailable";
  const std::vector<PatternCase> cases = {
      {"saforem2/ezpz #229, Polaris job 7550301, under --label",
       k_label + "torch.AcceleratorError: CUDA error: CUDA-capable device(s) is/are busy or unavailable",
       "cuda-device-unavailable", k_polaris_hosts[0]},
      {"the same, as older torch raised it (RuntimeError), behind ezpz exec's own [rank N] label",
       "x3007c0s13b1n0-hsn0.hsn.cm.polaris.alcf.anl.gov 6: [rank 6] RuntimeError: CUDA error: CUDA-capable "
       "device(s) is/are busy or unavailable",
       "cuda-device-unavailable", k_polaris_hosts[1]},
      {"PyTorch's 'no CUDA-capable device is detected' (the Python ezpz's polaris.py)",
       k_label + "RuntimeError: CUDA error: no CUDA-capable device is detected", "cuda-init-failed",
       k_polaris_hosts[0]},
      {"cudaErrorSystemNotReady's text (the Python ezpz's polaris.py)",
       "x3102c0s25b1n0.hsn.cm.polaris.alcf.anl.gov 96: RuntimeError: CUDA error: system not yet initialized",
       "cuda-init-failed", k_polaris_hosts[2]},
      {"jade-hpc-gpu/jade-hpc-gpu.github.io #194 (PyTorch on a DGX node), under --label",
       k_label + "RuntimeError: CUDA error: uncorrectable ECC error encountered", "gpu-lost", k_polaris_hosts[0]},
      {"MFlowCode/MFC #1750 (CUDA driver API, L40S node)",
       k_label + "Accelerator Fatal Error: call to cuCtxCreate returned error 214 (CUDA_ERROR_ECC_UNCORRECTABLE): "
                 "uncorrectable ECC error encountered",
       "gpu-lost", k_polaris_hosts[0]},
      {"JosephKJ/OWOD #81 (nvidia-smi run by a rank)",
       k_label + "Unable to determine the device handle for GPU 0000:07:00.0: GPU is lost. Reboot the system to "
                 "recover this GPU",
       "gpu-lost", k_polaris_hosts[0]},
      {"NVIDIA/NVSentinel #155 (the driver's Xid 79, printed by a rank that reads the kernel log)",
       k_label + "NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus.", "gpu-lost", k_polaris_hosts[0]},
      {"HPE craycli log_rank_exit; the Python ezpz's polaris.py",
       "x3104c0s31b0n0.hsn.cm.polaris.alcf.anl.gov: shepherd died from signal 9", "pals-shepherd-killed",
       k_polaris_hosts[3]},
      {"ALCF Polaris known issues (2026-07-30)", pals_rpc, "pals-launch-rpc", k_polaris_hosts[3], false},
  };
  for (const auto& c : cases) expect_case("polaris", k_polaris_hosts, c);
}

TEST(PolarisPatterns, NameNoNodeWhereTheLineBlamesNone) {
  const std::vector<PatternCase> cases = {
      // Without --label a rank's error carries no host: what the Python ezpz saw in job 7550301.
      {"saforem2/ezpz #229, unlabelled",
       "torch.AcceleratorError: CUDA error: CUDA-capable device(s) is/are busy or unavailable", "", ""},
      // A rank's death names a rank: E3SM's Polaris log (E3SM-Project/E3SM #6985), and signal 15, which on
      // Polaris is most often the watchdog's own SIGTERM (the Python ezpz's polaris.py, job 7550301).
      {"E3SM-Project/E3SM #6985",
       "x3102c0s25b1n0.hsn.cm.polaris.alcf.anl.gov: rank 96 died from signal 11 and dumped core", "", ""},
      {"the Python ezpz's polaris.py, job 7550301",
       "x3007c0s13b1n0.hsn.cm.polaris.alcf.anl.gov: rank 12 died from signal 15", "", ""},
      // The program's bugs, which any node repeats.
      {"a kernel's assertion", k_label + "RuntimeError: CUDA error: device-side assert triggered", "", ""},
      {"CUDA in a forked data loader worker", k_label + "RuntimeError: CUDA error: initialization error", "", ""},
      {"a pattern's text quoted by the program, with no label", "grep 'uncorrectable ECC error encountered' log", "",
       ""},
  };
  for (const auto& c : cases) expect_case("polaris", k_polaris_hosts, c);
}

TEST(PolarisPatterns, AGlooPeerAddressNamesASuspect) {
  // gloo's RuntimeError (the Aurora shape, which the Python ezpz's polaris.py scrapes on Polaris too):
  // matched to the allocation's addresses, here localhost's.
  expect_case("polaris", {"localhost"},
              {"gloo's pair.cc",
               "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection "
               "closed by peer [127.0.0.1]:4402",
               "gloo-peer-closed", "localhost", false});
}

TEST(PolarisPatterns, TheLaunchLineAsksForTheHostOnEachLine) {
  // The CUDA patterns read the host from PALS's label: a Polaris launch without --label would name none.
  ResolvedJob job =
      test::resolve_layers({"system: polaris\naccount: A\nnodes: 2\nrun: [python3, train.py]\n", {}, {}, ""});
  std::vector<std::string> words;
  for (const auto& word : job.launcher) words.push_back(word.text);
  EXPECT_NE(std::find(words.begin(), words.end(), "--label"), words.end()) << testing::PrintToString(words);
}

TEST(CruxPatterns, NamePalsLinesOfACruxNode) {
  // Crux's compute nodes are named like x1000c0s0b1n1 (ALCF Crux python.md); the lines are PALS's own.
  const std::vector<std::string> hosts = {"x1000c0s0b1n1", "x1000c0s1b0n0"};
  const std::vector<PatternCase> cases = {
      {"HPE craycli log_rank_exit", "x1000c0s1b0n0: shepherd died from signal 9", "pals-shepherd-killed", hosts[1]},
      {"ALCF Polaris known issues' shape on Crux names",
       "launch failed on x1000c0s0b1n1: Couldn't forward RPC launch(ab751d77-e80a-4c54-b1c2-4e881f7e8c90) to child "
       "x1000c0s1b0n0.head.cm.crux.alcf.anl.gov: Resource temporarily unavailable",
       "pals-launch-rpc", hosts[1], false},
      {"HPE craycli log_rank_exit: a rank, not a node", "x1000c0s1b0n0: rank 7 died from signal 15", "", ""},
  };
  for (const auto& c : cases) expect_case("crux", hosts, c);
}

}  // namespace
}  // namespace ezpz::core
