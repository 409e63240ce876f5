// The options every job command shares (spec path, --system, --set) and the pipeline prefix they run.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "ezpz/profile/catalog.hpp"
#include "ezpz/render/render.hpp"
#include "ezpz/resolve/pipeline.hpp"

namespace ezpz::core {

struct JobOptions {
  std::string spec_path;
  std::string system;
  std::vector<std::string> assignments;

  // Adds the positional spec path, --system and --set to `command`.
  void add_to(CLI::App& command);

  // load_job_spec, then resolve_request (resolve/pipeline.hpp) with EZPZ_* from the process environment. Throws
  // UserError with every problem found in the spec, the overrides and the resolution together.
  ResolvedJob resolve_job(const Catalog& catalog) const;
};

// The process's view of the world, gathered once: the catalog on the default search path and the
// path of this binary.
struct Environment {
  Catalog catalog;
  std::string ezpz_bin;  // $EZPZ_BIN if set, else this executable's absolute path

  static Environment from_process();
};

}  // namespace ezpz::core
