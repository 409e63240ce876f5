// Directive lines read with the shipped schedulers' option tables, as sbatch and qsub read them.
#include "ezpz/profile/directive_options.hpp"

#include <gtest/gtest.h>

#include "../test_support.hpp"
#include "ezpz/profile/read_profile.hpp"

namespace ezpz::core {
namespace {

struct Case {
  std::string scheduler;
  std::string line;
  std::vector<std::string> options;  // the one name of each option, in order
  std::string problem;               // "" when the scheduler reads the line
};

std::vector<std::string> names(const ParsedDirective& parsed) {
  std::vector<std::string> out;
  for (const auto& option : parsed.options) out.push_back(option.options.front());
  return out;
}

const std::vector<Case> k_cases = {
    // Slurm: short and long spellings of one option have one name.
    {"slurm", "-N 5000", {"--nodes"}, ""},
    {"slurm", "-N5000", {"--nodes"}, ""},
    {"slurm", "--nodes=5000", {"--nodes"}, ""},
    {"slurm", "--nodes 5000", {"--nodes"}, ""},
    {"slurm", "-t 999:00:00", {"--time"}, ""},
    {"slurm", "-A other", {"--account"}, ""},
    {"slurm", "-q premium", {"--qos"}, ""},
    {"slurm", "-p debug", {"--partition"}, ""},
    {"slurm", "-J name", {"--job-name"}, ""},
    {"slurm", "--tasks-per-node=4", {"--ntasks-per-node"}, ""},
    // getopt_long abbreviations.
    {"slurm", "--partitio=debug", {"--partition"}, ""},
    {"slurm", "--partition debug", {"--partition"}, ""},
    {"slurm", "--tim 5", {"--time"}, "'--tim' is ambiguous: it abbreviates --time, --time-min"},
    // Several options in one line, and combined flags: each is seen.
    {"slurm", "--comment=x --nodes=5000", {"--comment", "--nodes"}, ""},
    {"slurm", "-HN5", {"--hold", "--nodes"}, ""},
    {"slurm", "-Ht 5", {"--hold", "--time"}, ""},
    // A value that looks like an option is a value, as getopt takes it.
    {"slurm", "--comment --nodes=5", {"--comment"}, ""},
    {"slurm", "--comment='a b' -N 2", {"--comment", "--nodes"}, ""},
    {"slurm", "--comment=a\\ b -N 2", {"--comment", "--nodes"}, ""},
    // Optional values are attached or absent.
    {"slurm", "--exclusive", {"--exclusive"}, ""},
    {"slurm", "--exclusive=user", {"--exclusive"}, ""},
    {"slurm", "--exclusive user", {"--exclusive"}, "'user' is not an option"},
    // A site's own option (SPANK) is kept with its value.
    {"slurm", "--container-image=nvcr.io/x", {"--container-image"}, ""},
    {"slurm", "--container-image nvcr.io/x", {"--container-image"}, ""},
    {"slurm", "--container-image -N 5", {"--container-image", "--nodes"}, ""},
    // What sbatch refuses.
    {"slurm", "-t", {"--time"}, "'-t' needs a value"},
    {"slurm", "-X", {}, "'-X' is not an option"},
    {"slurm", "--hold=yes", {"--hold"}, "'--hold' takes no value"},
    {"slurm", "--n=5", {"--network"}, "'--n' is ambiguous"},
    {"slurm", "-N 5 extra", {"--nodes"}, "'extra' is not an option"},
    {"slurm", "--comment='x", {"--comment"}, "unmatched quote (')"},
    // PBS: attached values, resource lists and -W attributes.
    {"pbs", "-l walltime=99:00:00", {"-l walltime"}, ""},
    {"pbs", "-lwalltime=99:00:00", {"-l walltime"}, ""},
    {"pbs", "-l place=scatter,walltime=99:00:00", {"-l place", "-l walltime"}, ""},
    {"pbs", "-l 'place=scatter, walltime=1'", {"-l place", "-l walltime"}, ""},
    {"pbs", "-l select=2:ncpus=4", {"-l select"}, ""},
    {"pbs", "-l nodes=5", {"-l select"}, ""},
    {"pbs", "-qprod", {"-q"}, ""},
    {"pbs", "-q prod", {"-q"}, ""},
    {"pbs", "-k doe", {"-k"}, ""},
    {"pbs", "-W depend=afterok:1", {"-W depend"}, ""},
    {"pbs", "-W Account_Name=other", {"-A"}, ""},
    {"pbs", "-hq prod", {"-h", "-q"}, ""},
    {"pbs", "-r y -A other", {"-r", "-A"}, ""},
    {"pbs", "--nodes=5", {}, "'--nodes' is not an option"},
};

TEST(DirectiveOptions, ReadsEachLineAsTheSchedulerDoes) {
  for (const auto& c : k_cases) {
    const OptionTable& table = test::builtin_catalog().scheduler(c.scheduler).options;
    ParsedDirective parsed = parse_directive(table, c.line);
    EXPECT_EQ(names(parsed), c.options) << c.scheduler << ": " << c.line;
    EXPECT_EQ(parsed.problem.substr(0, c.problem.size()), c.problem) << c.scheduler << ": " << c.line;
    if (c.problem.empty()) EXPECT_EQ(parsed.problem, "") << c.scheduler << ": " << c.line;
  }
}

TEST(DirectiveOptions, AnAbbreviationMeansEveryOptionItCouldBe) {
  const OptionTable& table = test::builtin_catalog().scheduler("slurm").options;
  auto parsed = parse_directive(table, "--no=5");
  ASSERT_EQ(parsed.options.size(), 1u);
  const auto& meanings = parsed.options[0].options;
  EXPECT_NE(std::find(meanings.begin(), meanings.end(), "--nodes"), meanings.end());
  EXPECT_NE(std::find(meanings.begin(), meanings.end(), "--nodelist"), meanings.end());
  EXPECT_EQ(parsed.options[0].spelled, "--no");
}

TEST(DirectiveOptions, WordsSplitLikeADirectiveLine) {
  std::string problem;
  EXPECT_EQ(directive_words("  -l  'a b'\"c\"\\ d\te ", &problem), (std::vector<std::string>{"-l", "a bc d", "e"}));
  EXPECT_EQ(problem, "");
  directive_words("-N \"5", &problem);
  EXPECT_EQ(problem, "unmatched quote (\")");
}

TEST(DirectiveOptions, EveryDirectiveOfTheShippedSchedulersHasOneKnownOption) {
  for (const std::string name : {"slurm", "pbs"}) {
    const Scheduler& scheduler = test::builtin_catalog().scheduler(name);
    for (const auto& [key, text] : scheduler.directives) {
      auto parsed = parse_directive(scheduler.options, *text);
      EXPECT_EQ(parsed.problem, "") << name << ": " << *text;
      EXPECT_EQ(parsed.options.size(), 1u) << name << ": " << *text;
    }
  }
}

TEST(DirectiveOptions, ASchedulerWithDirectivesNeedsAnOptionTable) {
  Diagnostics d;
  read_scheduler(parse_yaml(make_source("schedulers/x.yaml", "directive_prefix: '#X'\n")), "x", d);
  ASSERT_EQ(d.items().size(), 1u);
  EXPECT_EQ(d.items()[0].message, "missing 'options': the table that reads directive lines");
  Diagnostics none;
  read_scheduler(parse_yaml(make_source("schedulers/y.yaml", "directive_prefix: ''\n")), "y", none);
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace ezpz::core
