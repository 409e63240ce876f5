// Which system profile describes the machine we run on, and why.
#pragma once

#include <optional>
#include <string>

#include "ezpz/catalog.hpp"
#include "ezpz/profile/catalog.hpp"
#include "ezpz/util/env_lookup.hpp"
#include "ezpz/util/node_name.hpp"

namespace ezpz::core {

struct DetectInput {
  EnvLookup env;         // usually process_env()
  std::string hostname;  // as gethostname() returns it (short or full)
  // Where PATH's directories and the configuration files of `detect.installed` are: "/", or a fake
  // tree in tests.
  std::string root = "/";
  // Whether a scheduler installed here (`detect.installed`) is evidence: yes for what submits or asks
  // the scheduler (render, submit, status, systems detect, doctor); no for the runtime (launch, exec,
  // setup_torch), whose ranks run on this machine when no job's variables say otherwise, as the
  // Python ezpz's launch falls back to a local launch outside a job.
  bool installed = true;
};

// Order: environment rules of specific systems, then their hostname rules (an allocation's variables
// are better evidence than a name pattern), then their installed rules (a scheduler's commands and
// configuration file: first where a variable names that file, then at its usual paths), then fallback
// tiers in increasing order, each in the same order; within a step, profiles in name order. A fallback
// profile with no rules matches any machine.
std::optional<Detection> detect_system(const Catalog& catalog, const DetectInput& input);

// Detection against this machine: the process environment and host_name().
std::optional<Detection> detect_here(const Catalog& catalog);

// The system a command works on and why ("by --system", "by EZPZ_SYSTEM", "by detection (…)"):
// `named` when not empty, else $EZPZ_SYSTEM, else detection with `env` and `hostname`. Throws
// UserError when nothing matches.
Detection chosen_system(const Catalog& catalog, const std::string& named, const EnvLookup& env,
                        const std::string& hostname);

// The system a runtime command (exec, launch, setup_torch) runs on: `named` when not empty, else
// $EZPZ_SYSTEM (which rendered scripts export), else detection without installed rules
// (DetectInput::installed): chosen_system's name otherwise.
std::string runtime_system(const Catalog& catalog, const std::string& named, const EnvLookup& env,
                           const std::string& hostname);

}  // namespace ezpz::core
