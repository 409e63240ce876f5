// ezpz/job.hpp: the pipeline. A spec is loaded, resolved against a catalog into a Job (every value
// with its origin), checked, and rendered into a batch script.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ezpz/catalog.hpp"
#include "ezpz/diagnostic.hpp"
#include "ezpz/value.hpp"

namespace ezpz {

namespace detail {
struct SpecImpl;
struct JobImpl;
}  // namespace detail

// A job spec as written: keys are checked when it is resolved or validated, so that every problem is
// reported at once. A cheap, immutable handle; thread-safe.
class Spec {
 public:
  // Reads the YAML file at `path` ("-": standard input). Throws Error when it cannot be read, is over
  // 1 MiB, or is not YAML (with the line and column).
  static Spec from_file(const std::string& path);
  // YAML text; `name` is the file name messages show. Throws Error when it is not YAML.
  static Spec from_text(const std::string& yaml, const std::string& name = "<text>");
  // A map of the same keys as the YAML ({"nodes": 2, "run": ["python3", "train.py"]}). Messages name a
  // value by its key: "<values> nodes=x". Throws Error when `values` is not a map.
  static Spec from_values(const Value& values, const std::string& name = "<values>");

 private:
  friend struct detail::SpecImpl;
  std::shared_ptr<const detail::SpecImpl> m_impl;
};

// What may change a spec's values, lowest precedence first: the spec < `env` < `set` < `system`.
struct ResolveOptions {
  std::string system;                      // as --system: wins over the spec's `system:`; "" for none
  std::vector<std::string> set;            // "KEY=VALUE", as --set ("nodes=4", "env.HF_HOME=/tmp/hf")
  std::map<std::string, std::string> env;  // EZPZ_* overrides (EZPZ_NODES …); the process's own are
                                           // not read unless `process_env` is true
  bool process_env = false;                // also read EZPZ_* overrides from this process's environment,
                                           // as the ezpz command does; a variable set there wins over `env`
  // When no layer names a system: detect it from this process's environment and host name (true), or
  // report that none is named (false).
  bool detect = false;
};

// Where a resolved value came from.
struct ExplainedValue {
  std::string key;          // "nodes", "torch.backend", "total_ranks", "directives" …
  std::string value;        // the value as JSON text: 2, "debug", ["python3","train.py"]
  std::string origin_kind;  // default | profile | spec | env | cli | derived
  std::string origin;       // "spec job.yaml:4:8", "profile systems/aurora.yaml:40:3", "set nodes=4" …
};

// A fully determined job. A cheap, immutable handle that keeps its catalog's profiles alive;
// thread-safe.
class Job {
 public:
  std::string system() const;     // the profile's name
  std::string scheduler() const;  // "pbs", "slurm", "none"
  std::string hash() const;       // of every resolved value (hex): equal jobs, equal hashes
  // Rules the job may run into that do not stop it (queue caps, by-request queues).
  std::vector<Diagnostic> warnings() const;
  // Every value in a stable order: the spec's keys, then derived ones.
  std::vector<ExplainedValue> explain() const;
  // The resolved job as JSON text: {key: value, "hash": …}, or with origins
  // {key: {"value": …, "kind": "spec", "origin": "spec job.yaml:4:8"}, …} (`ezpz resolve --json`).
  std::string to_json(bool with_origins = false) const;

 private:
  friend struct detail::JobImpl;
  std::shared_ptr<const detail::JobImpl> m_impl;
};

// Resolves `spec` against `catalog`. Throws Error holding every independent problem in the spec, the
// overrides and the result (unknown keys, wrong types, nodes over the queue limit …), each located.
Job resolve(const Catalog& catalog, const Spec& spec, const ResolveOptions& options = {});

// What resolve would throw, as data, followed by the warnings: empty or only warnings means the job
// is valid. Never throws Error: a broken profile is reported here too.
std::vector<Diagnostic> validate(const Catalog& catalog, const Spec& spec, const ResolveOptions& options = {});

// A batch script, and the command that submits it.
struct Script {
  std::string text;
  std::vector<std::string> submit_argv;  // the scheduler's submit command, without the script's path
};

// Renders `job` through its scheduler's template. Pure: the same job gives the same bytes.
// `ezpz_bin` is the ezpz executable the script runs on the nodes when EZPZ_BIN is not set there.
// Never throws Error for a resolved job.
Script render(const Job& job, const std::string& ezpz_bin = "ezpz");

}  // namespace ezpz
