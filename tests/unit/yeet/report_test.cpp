// Node reports on the wire, the run summary and its exit code.
#include "ezpz/yeet/report.hpp"

#include <gtest/gtest.h>

namespace ezpz::core::yeet {
namespace {

NodeReport node(int rank, Outcome outcome, std::uint64_t bytes, std::string error = {}) {
  return NodeReport{rank, "n" + std::to_string(rank + 1), "/tmp/env", outcome, bytes, std::move(error)};
}

TEST(NodeReport, SurvivesTheWire) {
  NodeReport report = node(7, Outcome::failed, 12, "cannot create '/tmp/ünï': Permission denied");
  NodeReport decoded = decode_report(encode_report(report));
  EXPECT_EQ(decoded.rank, 7);
  EXPECT_EQ(decoded.node, "n8");
  EXPECT_EQ(decoded.dest, "/tmp/env");
  EXPECT_EQ(decoded.outcome, Outcome::failed);
  EXPECT_EQ(decoded.bytes, 12u);
  EXPECT_EQ(decoded.error, report.error);
}

TEST(Summarize, AllCopied) {
  std::uint64_t gib = 1u << 30;
  RunSummary summary = summarize({node(0, Outcome::copied, gib), node(1, Outcome::copied, gib)}, 2, gib, 2.0);
  EXPECT_EQ(summary.exit_code, 0);
  EXPECT_EQ(summary.text,
            "ezpz yeet: 2 nodes: 2 copied, 0 cached, 0 shared, 0 failed; 1.00 GiB each, 2.00 GiB written in 2.00 s, "
            "0.54 GB/s per node\n");
}

TEST(Summarize, NamesFailedNodesAndAppliesMinSuccess) {
  std::vector<NodeReport> reports = {node(0, Outcome::copied, 100), node(1, Outcome::cached, 0),
                                     node(2, Outcome::failed, 50, "checksum mismatch: '/tmp/env/a' differs")};
  RunSummary strict = summarize(reports, 3, 100, 0.5);
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_EQ(strict.text,
            "ezpz yeet: failed on n3 (rank 2): checksum mismatch: '/tmp/env/a' differs\n"
            "ezpz yeet: 3 nodes: 1 copied, 1 cached, 0 shared, 1 failed; 100 B each, 150 B written in 0.50 s, "
            "0.00 GB/s per node\n"
            "ezpz yeet: 2 of 3 nodes succeeded, 3 required; failed: n3 (rank 2)\n");
  RunSummary lenient = summarize(reports, 2, 100, 0.5);
  EXPECT_EQ(lenient.exit_code, 0);
  EXPECT_NE(lenient.text.find("2 of 3 nodes succeeded, enough for --min-success (2)"), std::string::npos);
}

TEST(Summarize, ASharedNodeTakesTheOutcomeOfTheRankThatWroteItsDest) {
  NodeReport writer{0, "n1", "/tmp", Outcome::failed, 0, "DEST '/tmp' exists and was not made by ezpz yeet"};
  NodeReport shared{1, "n1", "/tmp", Outcome::shared, 0, {}};
  NodeReport other_writer{2, "n2", "/tmp", Outcome::copied, 100, {}};  // the same DEST on another node
  NodeReport other_shared{3, "n2", "/tmp", Outcome::shared, 0, {}};
  RunSummary summary = summarize({writer, shared, other_writer, other_shared}, 1, 100, 0.5);
  EXPECT_EQ(summary.exit_code, 0);
  EXPECT_EQ(summary.text,
            "ezpz yeet: failed on n1 (rank 0): DEST '/tmp' exists and was not made by ezpz yeet\n"
            "ezpz yeet: failed on n1 (rank 1): shares DEST '/tmp' with rank 0, which failed\n"
            "ezpz yeet: 4 nodes: 1 copied, 0 cached, 1 shared, 2 failed; 100 B each, 100 B written in 0.50 s, "
            "0.00 GB/s per node\n"
            "ezpz yeet: 2 of 4 nodes succeeded, enough for --min-success (1)\n");
  EXPECT_EQ(summarize({writer, shared}, 1, 100, 0.5).exit_code, 1) << "no node has a copy";
  writer.outcome = Outcome::cached;
  EXPECT_EQ(summarize({writer, shared}, 2, 100, 0.5).exit_code, 0);
}

TEST(FormatBytes, PicksAUnit) {
  EXPECT_EQ(format_bytes(17), "17 B");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(512u << 20), "512.0 MiB");
  EXPECT_EQ(format_bytes(8ull << 30), "8.00 GiB");
}

}  // namespace
}  // namespace ezpz::core::yeet
