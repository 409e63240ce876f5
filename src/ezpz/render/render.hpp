// render: a resolved job → the batch script text, through the scheduler's Mustache template.
// Pure: every value is shell-quoted here, before it reaches a template.
#pragma once

#include <string>
#include <vector>

#include "ezpz/profile/catalog.hpp"
#include "ezpz/resolve/resolve.hpp"
#include "ezpz/util/option_template.hpp"

namespace ezpz::core {

struct Script {
  std::string text;
  std::vector<std::string> submit_argv;  // the scheduler's submit command, without the script path
};

// `ezpz_bin`: the path the script falls back to when EZPZ_BIN is not set where it runs.
Script render(const ResolvedJob& job, const Catalog& catalog, const std::string& ezpz_bin);

// The full command line every rank runs: launcher words, the rank wrapper ("$EZPZ_BIN" exec --) when
// the profile asks for it, then `program`. Shared by rendered scripts and `ezpz launch`.
std::vector<CommandWord> rank_command(const std::vector<CommandWord>& launcher, bool rank_wrapper,
                                      const std::vector<std::string>& program);

}  // namespace ezpz::core
