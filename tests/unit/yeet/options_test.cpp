// yeet's options: --min-success, sizes, and the arguments the front end passes on.
#include "ezpz/yeet/options.hpp"

#include <gtest/gtest.h>

#include "ezpz/util/error.hpp"

namespace ezpz::core::yeet {
namespace {

TEST(RequiredSuccesses, CountsAndShares) {
  struct Case {
    std::string text;
    int nodes;
    int expected;
  };
  for (const Case& c : {Case{"", 7, 7}, Case{"3", 7, 3}, Case{"0", 7, 0}, Case{"90%", 10, 9}, Case{"90%", 4096, 3687},
                        Case{"50%", 3, 2}, Case{"100%", 5, 5}, Case{"0%", 5, 0}}) {
    EXPECT_EQ(required_successes(c.text, c.nodes), c.expected) << c.text << " of " << c.nodes;
  }
}

TEST(RequiredSuccesses, RefusesNonsense) {
  for (const char* text : {"x", "-1", "3.5", "101%", "%", "1e3", "9999999999"}) {
    EXPECT_THROW(required_successes(text, 10), UserError) << text;
  }
  EXPECT_THROW(required_successes("11", 10), UserError);
}

Options parse(std::vector<std::string> words) {
  Options options;
  CLI::App app;
  add_options(app, options);
  std::reverse(words.begin(), words.end());
  app.parse(words);
  return options;
}

TEST(YeetOptions, RoundTripThroughTheArgumentsPassedOn) {
  Options options = parse({"--unpack", "--no-venv", "--min-success", "90%", "--chunk-size", "16M", "--pipeline", "8",
                           "--route", "bcast", "--force", "--quiet", "/src dir/env.tar.gz", "/tmp/%n/env"});
  EXPECT_EQ(options.route, Route::bcast);
  EXPECT_EQ(options.chunk_bytes, 16u << 20);
  EXPECT_EQ(options.venv, VenvMode::off);
  Options again = parse(to_arguments(options));
  EXPECT_EQ(again.src, "/src dir/env.tar.gz");
  EXPECT_EQ(again.dest, "/tmp/%n/env");
  EXPECT_TRUE(again.unpack && again.force && again.quiet);
  EXPECT_EQ(again.venv, VenvMode::off);
  EXPECT_EQ(again.min_success, "90%");
  EXPECT_EQ(again.chunk_bytes, 16u << 20);
  EXPECT_EQ(again.pipeline_depth, 8);
  EXPECT_EQ(again.route, Route::bcast);
  EXPECT_EQ(parse(to_arguments(parse({"a", "/b"}))).route, Route::chain);
  EXPECT_EQ(parse(to_arguments(parse({"--venv", "a", "/b"}))).venv, VenvMode::on);
  EXPECT_EQ(parse(to_arguments(parse({"a", "/b"}))).venv, VenvMode::detect);
}

TEST(YeetOptions, ChunkSizesAreChecked) {
  EXPECT_EQ(parse({"--chunk-size", "65536", "a", "/b"}).chunk_bytes, 65536u);
  EXPECT_EQ(parse({"--chunk-size", "1G", "a", "/b"}).chunk_bytes, 1u << 30);
  for (const char* size : {"0", "1K", "2G", "4X", "M", "4MB", "99999999999999"}) {
    EXPECT_THROW(parse({"--chunk-size", size, "a", "/b"}), CLI::ParseError) << size;
  }
  EXPECT_THROW(parse({"--min-success", "lots", "a", "/b"}), CLI::ParseError);
}

TEST(YeetOptions, RoutesAreNamed) {
  EXPECT_EQ(parse({"a", "/b"}).route, Route::chain);
  EXPECT_EQ(parse({"--route", "chain", "a", "/b"}).route, Route::chain);
  EXPECT_EQ(parse({"--route", "BCAST", "a", "/b"}).route, Route::bcast);
  EXPECT_THROW(parse({"--route", "tree", "a", "/b"}), CLI::ParseError);
}

}  // namespace
}  // namespace ezpz::core::yeet
