// The located YAML tree: locations, errors from yaml-cpp, and merging for `extends:`.
#include "ezpz/util/yaml_node.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/yaml_codec.hpp"

#include <gtest/gtest.h>

namespace ezpz::core {
namespace {

YamlNode parse(const std::string& name, const std::string& text) {
  return parse_yaml(make_source(name, text));
}

TEST(ParseYaml, KeepsLineAndColumnOfEveryValue) {
  YamlNode root = parse("a.yaml", "name: x\nnested:\n  key: [1, 22]\n");
  ASSERT_TRUE(root.is_map());
  EXPECT_EQ(root.entries[0].key_loc.describe(), "a.yaml:1:1");
  EXPECT_EQ(root.find("name")->loc.describe(), "a.yaml:1:7");
  const YamlNode& list = *root.find("nested")->find("key");
  EXPECT_EQ(list.items[1].loc.describe(), "a.yaml:3:12");
  EXPECT_EQ(list.items[1].loc.length, 2);
}

TEST(ParseYaml, ReportsMalformedYamlWhereYamlCppFoundIt) {
  try {
    parse("bad.yaml", "a: [1, 2\nb: 3\n");
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_EQ(error.diagnostics()[0].loc.file->name, "bad.yaml");
    EXPECT_GT(error.diagnostics()[0].loc.line, 0);
    EXPECT_NE(error.diagnostics()[0].message.find("malformed YAML"), std::string::npos);
  }
}

TEST(ParseYaml, RejectsDuplicateKeysInsteadOfKeepingOne) {
  try {
    parse("dup.yaml", "nodes: 2\nrun: [x]\nnodes: 3\n");
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_EQ(error.diagnostics()[0].message, "duplicate key 'nodes' (first at line 1)");
    EXPECT_EQ(error.diagnostics()[0].loc.describe(), "dup.yaml:3:1");
  }
}

// Hostile documents end in a located error within a bound: no crash, no runaway memory.
struct HostileCase {
  const char* name;
  std::string text;
  const char* message;  // part of the error
};

TEST(ParseYaml, HostileDocumentsAreLocatedErrors) {
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += (k ? ", *a" : "*a") + std::to_string(i - 1);
    bomb += "]\n";
  }
  const HostileCase cases[] = {
      {"recursive alias", "run: &r [x, *r]\n", "recursive alias '*r': it stands inside the node it names"},
      {"alias bomb (10^10 values)", bomb, "expands to more than 1000000 values"},
      {"nesting past yaml-cpp's guard", "run: " + std::string(3000, '[') + std::string(3000, ']') + "\n",
       "nesting deeper than 64 levels"},
      {"nesting past ezpz's", "run: " + std::string(70, '[') + std::string(70, ']') + "\n", "nesting deeper than 64"},
      {"two documents", "run: [x]\n---\nnodes: 5\n", "a second YAML document"},
      {"Latin-1 value", "env: {A: \"caf\xe9\"}\n", "'caf\\xe9' is not valid UTF-8"},
      {"Latin-1 key", "env: {caf\xe9: 1}\n", "is not valid UTF-8"},
  };
  for (const auto& c : cases) {
    try {
      parse("hostile.yaml", c.text);
      ADD_FAILURE() << c.name << ": no error";
    } catch (const UserError& error) {
      EXPECT_NE(error.diagnostics()[0].message.find(c.message), std::string::npos)
          << c.name << ": " << error.diagnostics()[0].message;
      EXPECT_GT(error.diagnostics()[0].loc.line, 0) << c.name;
    }
  }
}

TEST(ParseYaml, ManyKeysAreReadInLinearTime) {
  std::string text = "env:\n";
  for (int i = 0; i < 100000; ++i) text += "  V" + std::to_string(i) + ": x\n";
  EXPECT_EQ(parse("many.yaml", text).find("env")->entries.size(), 100000u);
}

TEST(IsValidUtf8, AcceptsUtf8AndRejectsEverythingElse) {
  EXPECT_TRUE(is_valid_utf8("plain café 日本 🙂"));
  EXPECT_FALSE(is_valid_utf8("caf\xe9"));           // Latin-1
  EXPECT_FALSE(is_valid_utf8("\xc3"));              // cut short
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));      // a surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\x80"));              // a lone continuation byte
  EXPECT_EQ(text_problem("fine, café"), "");
  EXPECT_EQ(text_problem(std::string("a\0b", 3)), "holds a NUL byte");
  EXPECT_EQ(text_problem("a\r\nb"), "holds a carriage return");
  EXPECT_EQ(text_problem("caf\xe9"), "is not valid UTF-8");
}

TEST(ParseYaml, OffsetsShiftLocationsOfEmbeddedValues) {
  auto source = make_source("--set", "nodes=abc", true);
  YamlNode value = parse_yaml(source, "abc", 0, 6);
  EXPECT_EQ(value.loc.line, 1);
  EXPECT_EQ(value.loc.column, 7);
}

TEST(MergeNodes, MapsMergeKeyByKeyAndEverythingElseIsReplaced) {
  YamlNode base = parse("base.yaml", "a: 1\nm: {x: 1, y: 2}\nl: [1, 2]\n");
  YamlNode over = parse("over.yaml", "m: {y: 3, z: 4}\nl: [9]\nb: 2\n");
  YamlNode merged = merge_nodes(base, over);
  EXPECT_EQ(merged.find("a")->scalar, "1");
  EXPECT_EQ(merged.find("a")->loc.file->name, "base.yaml");
  EXPECT_EQ(merged.find("m")->find("x")->scalar, "1");
  EXPECT_EQ(merged.find("m")->find("y")->scalar, "3");
  EXPECT_EQ(merged.find("m")->find("y")->loc.file->name, "over.yaml");
  EXPECT_EQ(merged.find("m")->find("z")->scalar, "4");
  ASSERT_EQ(merged.find("l")->items.size(), 1u);
  EXPECT_EQ(merged.find("b")->scalar, "2");
}

TEST(MergeNodes, NullRemovesForEveryLaterReader) {
  YamlNode merged = merge_nodes(parse("b.yaml", "q: {debug: {max_nodes: 2}}\n"), parse("o.yaml", "q: {debug: null}\n"));
  ASSERT_NE(merged.find("q")->find("debug"), nullptr);
  EXPECT_TRUE(merged.find("q")->find("debug")->is_null());
}

TEST(ReadSection, ReportsUnknownKeysWithHintsAndSkipsNulls) {
  YamlNode root = parse("s.yaml", "alpha: 1\nbeta: ~\ngamma: 3\nalpah: 4\n");
  Diagnostics d;
  int seen = 0;
  read_section(root, "section",
               {{"alpha", [&](const YamlNode&) { ++seen; }},
                {"beta", [&](const YamlNode&) { ++seen; }},
                {"gamma", [&](const YamlNode&) { ++seen; }}},
               d);
  EXPECT_EQ(seen, 2);
  ASSERT_EQ(d.items().size(), 1u);
  EXPECT_EQ(d.items()[0].message, "unknown key 'alpah' in 'section'");
  EXPECT_EQ(d.items()[0].hint, "did you mean 'alpha'?");
}

}  // namespace
}  // namespace ezpz::core

namespace ezpz::core {
namespace {

TEST(YamlCodec, RoundTripsEveryKindWithLocations) {
  auto source = make_source("c.yaml", "a: 1\nb: [x, 'y z', ~]\nc: {d: \"q\"}\ne:\n");
  YamlNode original = parse_yaml(source);
  YamlNode decoded = decode_node(encode_node(original), source);
  EXPECT_EQ(encode_node(decoded), encode_node(original));
  EXPECT_EQ(decoded.find("b")->items[1].scalar, "y z");
  EXPECT_TRUE(decoded.find("b")->items[1].quoted);
  EXPECT_TRUE(decoded.find("b")->items[2].is_null());
  EXPECT_EQ(decoded.find("c")->find("d")->loc.describe(), "c.yaml:3:8");
  EXPECT_EQ(decoded.entries[3].key_loc.describe(), "c.yaml:4:1");
  EXPECT_EQ(decoded.find("c")->find("d")->loc.file, source);
}

}  // namespace
}  // namespace ezpz::core
