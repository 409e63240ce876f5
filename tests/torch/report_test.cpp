// The report of ezpz-torch-test: rows through the store, table, summary line and JSON; no LibTorch.
#include "ezpz/torch/report.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace ezpz::torch {
namespace {

RankResult row(int rank, const std::string& node, std::vector<std::string> errors = {}) {
  RankResult r;
  r.rank = rank;
  r.local_rank = rank % 2;
  r.node = node;
  r.device = "cpu";
  r.backend = "gloo";
  r.init_seconds = 0.0125;
  r.latency_us = 41.25;
  r.bandwidth_gbps = 1.5;
  r.errors = std::move(errors);
  return r;
}

TestReport report_of(std::vector<std::optional<RankResult>> rows, bool quick = false) {
  TestReport report;
  report.settings = {20, 4, quick, "LibTorch 1.13.0"};
  report.world_size = static_cast<int>(rows.size());
  report.rows = std::move(rows);
  report.missing_reason = "did not report within 300 s";
  return report;
}

TEST(TorchReport, RowsSurviveTheStore) {
  auto original = row(3, "nid\"001", {"broadcast: it's wrong"});
  original.bandwidth_gbps.reset();
  const auto copy = from_text(to_text(original));
  EXPECT_EQ(copy.rank, 3);
  EXPECT_EQ(copy.local_rank, 1);
  EXPECT_EQ(copy.node, "nid\"001");
  EXPECT_EQ(copy.init_seconds, 0.0125);
  EXPECT_EQ(copy.latency_us, 41.25);
  EXPECT_FALSE(copy.bandwidth_gbps.has_value());
  EXPECT_EQ(copy.errors, original.errors);
  EXPECT_FALSE(copy.ok());
  EXPECT_THROW(from_text("{\"rank\": 1}"), std::runtime_error);
  EXPECT_THROW(from_text("not json"), std::runtime_error);
}

TEST(TorchReport, AllPassed) {
  const auto report = report_of({row(0, "a"), row(1, "a"), row(2, "b"), row(3, "b")});
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(report.node_names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(report.summary_line(), "ezpz test: 4 ranks on 2 node(s): all-reduce, broadcast, barrier OK");
  EXPECT_EQ(report.table(),
            "ezpz test: world size 4, 2 node(s), LibTorch 1.13.0, latency: median of 20 1-element all-reduces, "
            "bandwidth: 4 MiB float32 all-reduce\n"
            "rank  local  node  device  backend  init s  latency us  bandwidth GB/s  status\n"
            "   0      0  a     cpu     gloo      0.013        41.2           1.500  ok\n"
            "   1      1  a     cpu     gloo      0.013        41.2           1.500  ok\n"
            "   2      0  b     cpu     gloo      0.013        41.2           1.500  ok\n"
            "   3      1  b     cpu     gloo      0.013        41.2           1.500  ok\n"
            "ezpz test: 4 ranks on 2 node(s): all-reduce, broadcast, barrier OK\n");
}

TEST(TorchReport, QuickAndSingleRank) {
  auto only = row(0, "a");
  only.latency_us.reset();
  only.bandwidth_gbps.reset();
  const auto report = report_of({only}, true);
  EXPECT_EQ(report.summary_line(), "ezpz test: 1 rank on 1 node(s): all-reduce OK");
  EXPECT_NE(report.table().find("one all-reduce (--quick)\n"), std::string::npos);
  EXPECT_NE(report.table().find("   0      0  a     cpu     gloo      0.013           -               -  ok\n"),
            std::string::npos)
      << report.table();
}

TEST(TorchReport, FailuresAndMissingRanks) {
  const auto report = report_of(
      {row(0, "a"), row(1, "a", {"all-reduce (sum of rank+1): expected 10, got 9"}), std::nullopt, row(3, "b")});
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(report.failures(), (std::vector<std::string>{"rank 1: all-reduce (sum of rank+1): expected 10, got 9",
                                                         "rank 2: did not report within 300 s"}));
  EXPECT_EQ(report.summary_line(),
            "ezpz test: 4 ranks on 2 node(s): FAILED (rank 1: all-reduce (sum of rank+1): expected 10, got 9; "
            "rank 2: did not report within 300 s)");
  const auto table = report.table();
  EXPECT_NE(table.find("   1      1  a     cpu     gloo      0.013        41.2           1.500  FAILED\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("   2      -  -     -       -             -           -               -  MISSING\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("\n  rank 2: did not report within 300 s\nezpz test: 4 ranks on 2 node(s): FAILED ("),
            std::string::npos)
      << table;
}

TEST(TorchReport, Json) {
  const auto report = report_of({row(0, "a"), std::nullopt});
  const auto doc = nlohmann::json::parse(report.json());
  EXPECT_EQ(doc["world_size"], 2);
  EXPECT_EQ(doc["nodes"], 1);
  EXPECT_EQ(doc["node_names"], nlohmann::json::array({"a"}));
  EXPECT_EQ(doc["ok"], false);
  EXPECT_EQ(doc["checks"], nlohmann::json::array({"all-reduce", "broadcast", "barrier"}));
  EXPECT_EQ(doc["iterations"], 20);
  EXPECT_EQ(doc["failures"], nlohmann::json::array({"rank 1: did not report within 300 s"}));
  EXPECT_EQ(doc["summary"], report.summary_line());
  ASSERT_EQ(doc["ranks"].size(), 2u);
  EXPECT_EQ(doc["ranks"][0]["allreduce_latency_us"], 41.25);
  EXPECT_EQ(doc["ranks"][0]["ok"], true);
  EXPECT_EQ(doc["ranks"][1]["rank"], 1);
  EXPECT_EQ(doc["ranks"][1]["ok"], false);

  const auto quick = nlohmann::json::parse(report_of({row(0, "a")}, true).json());
  EXPECT_EQ(quick["checks"], nlohmann::json::array({"all-reduce"}));
  EXPECT_TRUE(quick["iterations"].is_null());
  EXPECT_EQ(quick["ok"], true);
}

}  // namespace
}  // namespace ezpz::torch
