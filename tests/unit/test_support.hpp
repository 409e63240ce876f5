// Helpers shared by unit tests: resolve a spec given as text, with no process environment involved.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ezpz/profile/catalog.hpp"
#include "ezpz/render/render.hpp"
#include "ezpz/resolve/resolve.hpp"

namespace ezpz::core::test {

inline const Catalog& builtin_catalog() {
  static const Catalog k_catalog;  // compiled-in profiles only
  return k_catalog;
}

struct Layers {
  std::string spec;                        // YAML text of the job file
  std::map<std::string, std::string> env;  // EZPZ_* variables
  std::vector<std::string> set;            // --set assignments
  std::string detected;                    // what detection would say, "" for nothing
};

inline ResolveInputs make_inputs(const Layers& layers, Diagnostics& diagnostics) {
  ResolveInputs inputs;
  inputs.spec_path = "job.yaml";
  inputs.spec = read_job_spec(parse_yaml(make_source("job.yaml", layers.spec)), OriginKind::spec, diagnostics);
  inputs.env = read_env_overrides(table_env(layers.env), diagnostics);
  for (const auto& assignment : layers.set)
    apply_assignment(inputs.cli, assignment, "--set", OriginKind::cli, diagnostics);
  std::string detected = layers.detected;
  inputs.detect = [detected]() -> std::optional<Detection> {
    if (detected.empty()) return std::nullopt;
    return Detection{detected, "test"};
  };
  return inputs;
}

// Resolves `layers`; throws UserError with everything found, like the CLI.
inline ResolvedJob resolve_layers(const Layers& layers) {
  Diagnostics diagnostics;
  ResolveInputs inputs = make_inputs(layers, diagnostics);
  diagnostics.throw_if_any();
  return resolve(builtin_catalog(), inputs);
}

// All messages of a UserError thrown by `f`, joined by newlines; "" when nothing was thrown.
template <class F>
std::string error_messages(F&& f) {
  try {
    f();
  } catch (const UserError& error) {
    std::string out;
    for (const auto& d : error.diagnostics()) out += d.message + "\n";
    return out;
  }
  return {};
}

// A file holding `text` in the temporary directory, named after `stem` and this process, removed when
// the test program exits (a nodefile for PBS_NODEFILE, say).
inline std::string temp_file(const std::string& stem, const std::string& text) {
  struct Files {
    std::vector<std::string> paths;
    ~Files() {
      for (const auto& path : paths) std::remove(path.c_str());
    }
  };
  static Files s_files;
  std::string path = (std::filesystem::temp_directory_path() / (stem + "-" + std::to_string(::getpid()))).string();
  std::ofstream(path) << text;
  s_files.paths.push_back(path);
  return path;
}

}  // namespace ezpz::core::test
