// $NAME references in profile environment values: found, expanded, and quoted so the shell expands
// them, and only them, exactly as ezpz exec does.
#include "ezpz/util/variable_refs.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

namespace ezpz::core {
namespace {

const std::map<std::string, std::string> k_env = {
    {"LD_LIBRARY_PATH", "/usr/lib"}, {"CRAY_LD_LIBRARY_PATH", "/opt/cray/pe/lib64"}, {"ODD", "a b*$(x)"}};

std::optional<std::string> lookup(const std::string& name) {
  auto found = k_env.find(name);
  return found == k_env.end() ? std::nullopt : std::optional<std::string>(found->second);
}

// What bash makes of `printf %s <word>` with k_env set: the shell's own expansion of the quoted word.
std::string through_shell(const std::string& word) {
  std::string script = "printf %s " + word;
  FILE* pipe = popen(("env -i LD_LIBRARY_PATH=/usr/lib CRAY_LD_LIBRARY_PATH=/opt/cray/pe/lib64 'ODD=a b*$(x)' "
                      "bash -s <<'EZPZ_EOF'\n" +
                      script + "\nEZPZ_EOF\n")
                         .c_str(),
                     "r");
  std::string out;
  char buffer[256];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  pclose(pipe);
  return out;
}

struct Case {
  const char* value;
  bool refs;
  const char* expanded;
  const char* quoted;
};

const Case k_cases[] = {
    {"/tmp", false, "/tmp", "/tmp"},
    {"AWS Libfabric", false, "AWS Libfabric", "'AWS Libfabric'"},
    {"cost$", false, "cost$", "'cost$'"},
    {"$1 and ${}", false, "$1 and ${}", "'$1 and ${}'"},
    {"$CRAY_LD_LIBRARY_PATH:$LD_LIBRARY_PATH", true, "/opt/cray/pe/lib64:/usr/lib",
     "\"${CRAY_LD_LIBRARY_PATH}:${LD_LIBRARY_PATH}\""},
    {"/soft/hwloc/lib/:${LD_LIBRARY_PATH}", true, "/soft/hwloc/lib/:/usr/lib",
     "\"/soft/hwloc/lib/:${LD_LIBRARY_PATH}\""},
    {"${NOT_SET}x", true, "x", "\"${NOT_SET}x\""},
    {"$ODD \"q\" `b` \\ $ end", true, "a b*$(x) \"q\" `b` \\ $ end", "\"${ODD} \\\"q\\\" \\`b\\` \\\\ \\$ end\""},
};

TEST(VariableRefs, FoundExpandedAndQuoted) {
  for (const auto& c : k_cases) {
    EXPECT_EQ(has_variable_refs(c.value), c.refs) << c.value;
    EXPECT_EQ(expand_variable_refs(c.value, lookup), c.expanded) << c.value;
    EXPECT_EQ(shell_quote_expanding(c.value), c.quoted) << c.value;
    EXPECT_EQ(through_shell(shell_quote_expanding(c.value)), c.expanded)
        << "the shell agrees with ezpz exec: " << c.value;
  }
}

TEST(VariableRefs, TextBeforeTheVariablesOwnReference) {
  EXPECT_EQ(text_before_ref("/a:/b:$LD_LIBRARY_PATH", "LD_LIBRARY_PATH"), "/a:/b:");
  EXPECT_EQ(text_before_ref("$CRAY_LD_LIBRARY_PATH:${LD_LIBRARY_PATH}", "LD_LIBRARY_PATH"), "${CRAY_LD_LIBRARY_PATH}:");
  EXPECT_EQ(text_before_ref("/a:$LD_LIBRARY_PATHX", "LD_LIBRARY_PATH"), std::nullopt);
  EXPECT_EQ(text_before_ref("/tmp", "TMPDIR"), std::nullopt);
}

}  // namespace
}  // namespace ezpz::core
