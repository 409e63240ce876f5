// {placeholder} expansion: scheduler command words and launcher option groups share one scanner.
#include "ezpz/util/option_template.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ezpz/util/error.hpp"

namespace ezpz::core {
namespace {

const std::map<std::string, std::string> k_values = {{"job_id", "42.server"}, {"hosts", "n[1-2]"}, {"empty", ""}};

TEST(ExpandPlaceholders, ReplacesEveryKnownNameAndKeepsTheRest) {
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {"{job_id}", "42.server"},
      {"qstat -f {job_id}", "qstat -f 42.server"},
      {"--nodelist={hosts},{hosts}", "--nodelist=n[1-2],n[1-2]"},
      {"{unknown}", "{unknown}"},     // kept for a later step
      {"a{b", "a{b"},                 // an open brace without a close is text
      {"}{job_id}{", "}42.server{"},  // stray braces around a placeholder
      {"x{empty}y", "xy"},
      {"", ""},
      {"${X:-{hosts}}", "${X:-n[1-2]}"},  // the innermost pair is the placeholder
      {"{{hosts}}", "{n[1-2]}"},
      {"{\"h\":\"{hosts}\"}", "{\"h\":\"n[1-2]\"}"},
  };
  for (const auto& c : cases) EXPECT_EQ(expand_placeholders(c.text, k_values), c.expected) << c.text;
}

TEST(ExpandPlaceholders, ThePlaceholderWordIsTheNameInBraces) {
  EXPECT_EQ(placeholder_word("hosts"), "{hosts}");
  EXPECT_EQ(expand_placeholders(placeholder_word("job_id"), k_values), "42.server");
}

TEST(ExpandOptionGroup, AnEmptyValueDropsTheWholeGroup) {
  auto words = expand_option_group("--cpu-bind={empty}", k_values, "test");
  EXPECT_FALSE(words.has_value());
  words = expand_option_group("-n {job_id} $PBS_NODEFILE", k_values, "test");
  ASSERT_TRUE(words.has_value());
  ASSERT_EQ(words->size(), 3u);
  EXPECT_EQ((*words)[1].text, "42.server");
  EXPECT_TRUE((*words)[2].variable);
  EXPECT_EQ((*words)[2].text, "PBS_NODEFILE");
  // An unknown name in a profile's option group is a typo: an error naming the group and the closest name.
  try {
    expand_option_group("--nodelist={host}", k_values, "aurora.yaml: launcher.args");
    FAIL() << "no error";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("aurora.yaml: launcher.args: unknown placeholder '{host}' in "
                        "'--nodelist={host}'"),
              std::string::npos)
        << error.what();
    EXPECT_NE(error.diagnostics().front().hint.find("hosts"), std::string::npos) << error.diagnostics().front().hint;
  }
}

}  // namespace
}  // namespace ezpz::core
