// The Mustache subset: variables, sections over flags, text, lists and maps, inverted sections,
// comments, partials, and the standalone-line rule of the Mustache spec (specs/sections.yml,
// "Standalone Lines"), including the skipped sections that kainjow/mustache 4.1 got wrong.
#include "ezpz/render/mustache.hpp"

#include <gtest/gtest.h>

#include "ezpz/util/error.hpp"

namespace ezpz::core {
namespace {

struct Case {
  const char* name;
  const char* text;
  const char* expected;
};

TemplateValue context() {
  TemplateValue c = TemplateValue::map();
  c["name"] = "world";
  c["yes"] = true;
  c["no"] = false;
  c["empty"] = "";
  c["none"] = TemplateValue::list({});
  c["items"] = TemplateValue::list({"a", "b"});
  c["pairs"] =
      TemplateValue::list({TemplateValue::map({{"k", "x"}, {"v", "1"}}), TemplateValue::map({{"k", "y"}, {"v", "2"}})});
  return c;
}

class Mustache : public ::testing::TestWithParam<Case> {};

TEST_P(Mustache, RendersAsTheSpecSays) {
  const Case& c = GetParam();
  EXPECT_EQ(render_template("t", c.text, context(), {{"part", "[{{name}}]\n"}}), c.expected) << c.text;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Mustache,
    ::testing::Values(
        Case{"variable", "hello {{name}}!", "hello world!"}, Case{"unknown_variable_is_empty", "<{{nothing}}>", "<>"},
        Case{"nothing_is_escaped", "{{x}}", ""}, Case{"true_section", "{{#yes}}Y{{/yes}}", "Y"},
        Case{"false_section", "{{#no}}N{{/no}}", ""}, Case{"empty_text_is_false", "{{#empty}}E{{/empty}}", ""},
        Case{"text_section_sees_the_text", "{{#name}}<{{.}}>{{/name}}", "<world>"},
        Case{"list", "{{#items}}{{.}},{{/items}}", "a,b,"},
        Case{"list_of_maps", "{{#pairs}}{{k}}={{v}} {{/pairs}}", "x=1 y=2 "},
        Case{"outer_names_inside_a_list", "{{#items}}{{name}}{{/items}}", "worldworld"},
        Case{"inverted", "{{^no}}N{{/no}}{{^none}}E{{/none}}{{^yes}}Y{{/yes}}", "NE"},
        Case{"comment", "a{{! ignored }}b", "ab"},
        Case{"standalone_true_section_lines_go", "a\n{{#yes}}\nY\n{{/yes}}\nb\n", "a\nY\nb\n"},
        Case{"standalone_false_section_lines_go", "a\n{{#no}}\nN\n{{/no}}\nb\n", "a\nb\n"},
        Case{"standalone_empty_list_lines_go", "a\n{{#none}}\nN\n{{/none}}\nb\n", "a\nb\n"},
        Case{"skipped_after_a_list", "a\n{{#items}}\n{{.}}\n{{/items}}\n{{#no}}\nN\n{{/no}}\nb\n", "a\na\nb\nb\n"},
        Case{"indented_standalone", "a\n  {{#yes}}  \nY\n  {{/yes}}\nb", "a\nY\nb"},
        Case{"standalone_at_the_end_without_newline", "a\n{{#yes}}\nY\n{{/yes}}", "a\nY\n"},
        Case{"not_standalone_with_text", "a {{#yes}}Y{{/yes}} b\n", "a Y b\n"},
        Case{"not_standalone_with_two_tags", "{{#yes}}{{#yes}}\nY\n{{/yes}}{{/yes}}\n", "\nY\n\n"},
        Case{"crlf_standalone", "a\r\n{{#yes}}\r\nY\r\n{{/yes}}\r\nb", "a\r\nY\r\nb"},
        Case{"partial", "<\n{{> part}}\n>", "<\n[world]\n>"}, Case{"partial_inline", "<{{> part}}>", "<[world]\n>"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(MustacheErrors, NameTheTemplateAndLine) {
  auto message = [](const std::string& text) {
    try {
      render_template("job.sh.mustache", text, TemplateValue::map());
    } catch (const UserError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("a\n{{#x}}\nb"), "job.sh.mustache:2: Mustache section 'x' is not closed");
  EXPECT_EQ(message("{{#x}}{{/y}}"), "job.sh.mustache:1: Mustache section 'x' is closed by 'y'");
  EXPECT_EQ(message("\n\n{{/x}}"), "job.sh.mustache:3: Mustache section 'x' is closed but was never opened");
  EXPECT_EQ(message("{{name"), "job.sh.mustache:1: unterminated Mustache tag");
  EXPECT_EQ(message("{{> missing}}"), "job.sh.mustache:1: unknown Mustache partial 'missing'");
}

TEST(MustacheErrors, PartialsCannotRecurseForever) {
  EXPECT_THROW(render_template("t", "{{> self}}", TemplateValue::map(), {{"self", "{{> self}}"}}), UserError);
}

}  // namespace
}  // namespace ezpz::core
