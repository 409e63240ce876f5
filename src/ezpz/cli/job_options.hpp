// The options every job command shares (spec path, --system, --set, the common keys' flags, the
// program after `--`) and the pipeline prefix they run.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ezpz/profile/catalog.hpp"
#include "ezpz/render/render.hpp"
#include "ezpz/resolve/pipeline.hpp"

namespace ezpz::core {

struct JobOptions {
  std::string spec_path;  // "" when the job is given by flags alone
  std::string system;
  std::vector<std::string> assignments;
  std::map<std::string, std::string> key_flags;  // spec key → the text of its flag (-N 2: "nodes" → "2")

  // Adds the positional spec path (optional), --system, --set and the common keys' flags to `command`.
  void add_to(CLI::App& command);

  // The spec file when one was given, else an empty spec; then the flags, the program after `--` as
  // the key run, and resolve_request
  // (resolve/pipeline.hpp) with EZPZ_* from the process environment. Throws UserError with every
  // problem found in the spec, the overrides and the resolution together, and when neither a spec
  // file nor a program was given.
  ResolvedJob resolve_job(const Catalog& catalog) const;
};

// What this installation of ezpz offers, gathered once per command: the catalog on the default search
// path and the path of this binary.
struct Installation {
  Catalog catalog;
  std::string ezpz_bin;  // $EZPZ_BIN if set, else this executable's absolute path

  static Installation from_process();
};

}  // namespace ezpz::core
