// The pipeline's first steps in one call: a loaded spec, then the EZPZ_* and --set overrides, then
// resolve. The CLI and the public API both run it; neither repeats the order.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ezpz/profile/catalog.hpp"
#include "ezpz/profile/detect.hpp"
#include "ezpz/resolve/resolve.hpp"
#include "ezpz/spec/job_spec.hpp"
#include "ezpz/util/env_lookup.hpp"
#include "ezpz/util/error.hpp"

namespace ezpz::core {

// A spec key given by a flag of its own (`-N 2`, `--system aurora`, the program after `--`): messages
// name the flag as the value's location.
struct FlagValue {
  std::string key;   // the spec key: "nodes", "run"
  std::string flag;  // how messages name it: "-N", "--"
  std::string text;  // the value as YAML text ("2", a flow list for `run`)
};

struct JobRequest {
  std::string spec_path;                     // the job file, for the default job name; "" when not a file
  JobSpec spec;                              // as loaded (load_job_spec, read_job_spec)
  std::vector<std::string> assignments;      // "KEY=VALUE", as --set takes them
  std::string assignments_source = "--set";  // how messages name them
  std::string system;                        // --system: wins over every layer; "" for none
  std::vector<FlagValue> flags;              // after the assignments: a flag wins over --set
  EnvLookup env;                             // where EZPZ_* overrides are read; empty: none
  // Called only when no layer names a system; empty: no detection (the system must be named).
  std::function<std::optional<Detection>()> detect;
  bool for_launch = false;  // ResolveInputs::for_launch
};

// Resolves `request` against `catalog`. `diagnostics` may already hold problems from loading the
// spec: they are reported together with those of the overrides and the resolution, in one UserError.
// Warnings (queue caps) are in the result's `warnings`.
ResolvedJob resolve_request(const Catalog& catalog, const JobRequest& request, Diagnostics& diagnostics);

}  // namespace ezpz::core
