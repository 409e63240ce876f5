// CPU lists generated from a node's shape.
#include "ezpz/resolve/cpu_bind.hpp"

#include <gtest/gtest.h>

#include "ezpz/util/cpu_list.hpp"

namespace ezpz::core {
namespace {

NodeShape aurora_node() {
  NodeShape node;
  node.sockets = 2;
  node.cores_per_socket = 52;
  node.reserved_cores = {0, 52};
  return node;
}

TEST(GenerateCpuList, ReproducesAlcfRunningJobsListFor12Ranks) {
  // ALCF "Running jobs on Aurora": 8 cores per rank, cores 0 and 52 left to the OS.
  EXPECT_EQ(*generate_cpu_list(aurora_node(), 12),
            "list:1-8:9-16:17-24:25-32:33-40:41-48:53-60:61-68:69-76:77-84:85-92:93-100");
}

TEST(GenerateCpuList, SplitsSocketsEvenly) {
  EXPECT_EQ(*generate_cpu_list(aurora_node(), 2), "list:1-51:53-103");
  // Ranks that do not divide over the sockets: the first sockets take one more (place_local_rank).
  EXPECT_EQ(*generate_cpu_list(aurora_node(), 1), "list:1-51");
  EXPECT_EQ(*generate_cpu_list(aurora_node(), 3), "list:1-25:26-50:53-103");
  NodeShape node;
  node.sockets = 1;
  node.cores_per_socket = 8;
  node.reserved_cores = {1};
  EXPECT_EQ(*generate_cpu_list(node, 2), "list:0,2-3:4-6");
}

TEST(GenerateCpuList, RefusesWhatCannotBePlaced) {
  EXPECT_FALSE(generate_cpu_list(aurora_node(), 200));    // more ranks than cores
  EXPECT_FALSE(generate_cpu_list(aurora_node(), 3, 26));  // socket 0's two ranks need 52 of its 51 cores
  EXPECT_TRUE(generate_cpu_list(aurora_node(), 3, 25));
}

TEST(GenerateCpuList, LeavesServiceCoresOutAndSplitsBlocksAroundThem) {
  NodeShape node = aurora_node();
  node.service_cores = {48, 49, 50, 51, 100, 101, 102, 103};
  EXPECT_EQ(*generate_cpu_list(node, 2), "list:1-47:53-99");
  node.service_cores = {3};
  EXPECT_EQ(*generate_cpu_list(node, 2, 4), "list:1-2,4-5:53-56");
}

TEST(FormatCpuGroup, WritesRunsAsRanges) {
  EXPECT_EQ(format_cpu_group({48, 49, 50, 51, 100, 101, 102, 103}), "48-51,100-103");
  EXPECT_EQ(format_cpu_group({0, 52}), "0,52");
  EXPECT_EQ(format_cpu_group({7}), "7");
  EXPECT_EQ(format_cpu_group({}), "");
  EXPECT_EQ(format_cpu_group({5, 4}), "5,4");  // order given, no sorting
}

TEST(CpusInList, CountsTheSmallestGroup) {
  EXPECT_EQ(*cpus_in_list("list:4-7:8-11"), 4);
  EXPECT_EQ(*cpus_in_list("list:0-2,4:5-7"), 3);
  EXPECT_FALSE(cpus_in_list("depth"));
  EXPECT_FALSE(cpus_in_list("list:a-b"));
}

TEST(CpuBinding, PrefersTheProfileTableThenTheDefault) {
  Launcher launcher;
  launcher.cpu_bind[12] = "list:explicit";
  launcher.cpu_bind_default = "generate";
  EXPECT_EQ(*cpu_binding(launcher, aurora_node(), 12), "list:explicit");
  EXPECT_EQ(*cpu_binding(launcher, aurora_node(), 2), "list:1-51:53-103");
  launcher.cpu_bind_default = "none";
  EXPECT_FALSE(cpu_binding(launcher, aurora_node(), 2));
  launcher.cpu_bind_default = "depth";
  EXPECT_EQ(*cpu_binding(launcher, aurora_node(), 2), "depth");
}

}  // namespace
}  // namespace ezpz::core
