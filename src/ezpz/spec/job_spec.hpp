// The job spec: what a user writes in job.yaml, as typed values that remember where they came from.
// Every key is described once, in the field table (spec/field_table.cpp), which drives parsing, merging,
// `--set`, `EZPZ_*` overrides, the JSON schema and the unknown-key hints.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ezpz/util/env_lookup.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/origin.hpp"
#include "ezpz/util/yaml_node.hpp"

namespace ezpz::core {

template <class T>
using Field = std::optional<Sourced<T>>;

// `ranks_per_node: auto` and `cpus_per_rank: auto` are stored as this value.
inline constexpr long k_auto = 0;

struct StageEntry {
  std::string src;
  std::string dest;
  bool unpack = false;  // unpack a tarball on arrival
  bool venv = false;    // relocate a Python virtual environment
  SourceLoc loc;
  SourceLoc dest_loc;  // of the dest value
};

struct TorchSpec {
  Field<std::string> backend;  // auto | nccl | xccl | gloo | mpi
  Field<std::string> device;   // auto | cuda | xpu | cpu
};

// How a launch is kept alive and stopped (docs/runtime-env.md): `ezpz launch`'s options, as spec keys.
struct SuperviseSpec {
  Field<long> timeout;          // seconds without a byte of output that end the launch (exit 124)
  Field<long> retries;          // attempts after the first, in the same allocation
  Field<long> retry_delay;      // seconds before the first retry; later waits double
  Field<long> signal_before;    // seconds before the walltime ends that the ranks get `signal`
  Field<std::string> signal;    // a name of signal_names(); default USR2
  Field<long> requeue;          // restarts the scheduler may make after a node failure or preemption
  Field<bool> label;            // prefix each output line with its rank
  Field<std::string> log_dir;   // one file per rank there; the console shows rank 0
  Field<long> spare_nodes;      // nodes asked for beyond `nodes`, kept in reserve for failover
  Field<std::string> progress;  // a regex: an attempt whose output matches it got past start-up
  Field<long> startup;          // seconds an attempt must live to count as past start-up (no `progress`)
  Field<long> probe_timeout;    // seconds the health probe of every node may take; 0: no probe
};

struct MailSpec {
  Field<std::string> user;
  Field<std::vector<std::string>> events;  // begin | end | fail
};

struct JobSpec {
  Field<std::string> name;
  Field<std::string> system;
  Field<std::string> account;
  Field<std::string> queue;
  Field<long> nodes;
  Field<long> walltime;  // seconds
  Field<std::vector<std::string>> filesystems;
  Field<long> ranks_per_node;                       // k_auto = devices per node
  Field<long> cpus_per_rank;                        // k_auto = usable cpus / ranks_per_node
  Field<std::string> cpu_bind;                      // "auto" (from the profile), "none", or the launcher's own value
  std::map<std::string, Sourced<std::string>> env;  // merged variable by variable
  Field<std::vector<std::string>> modules;
  Field<std::string> setup;
  Field<std::vector<StageEntry>> stage;
  Field<std::vector<std::string>> run;
  TorchSpec torch;
  Field<std::vector<std::string>> scheduler_args;
  Field<std::string> workdir;
  Field<std::string> output;
  Field<std::string> error;
  MailSpec mail;
  SuperviseSpec supervise;
  Field<std::vector<std::string>> after;  // job ids this job waits for (afterok)

  SourceLoc loc;  // the document it was read from (line 0), for errors about keys it lacks
  // Keys that were written but could not be read ("*" when the document itself was not a map):
  // already reported, so "missing key" errors about them would only repeat the problem.
  std::vector<std::string> rejected;

  bool was_rejected(const std::string& path) const;
};

// Reads a spec-shaped map (a job file, or a profile's `defaults:`); values get `kind` as origin.
// Problems are added to `diagnostics`; whatever could be read is returned.
JobSpec read_job_spec(const YamlNode& root, OriginKind kind, Diagnostics& diagnostics);

// Loads a job file (or "-" for stdin, shown as "<stdin>"). Throws UserError when unreadable or malformed.
JobSpec load_job_spec(const std::string& path, Diagnostics& diagnostics);

// Applies one `key=value` assignment. The value is literal text, unless it starts with '[' or '{',
// when it is read as YAML flow syntax: `nodes=4`, `torch.backend=gloo`,
// `env.HF_HOME=/tmp/hf`, `modules=[a, b]`. `source_name` is shown in messages ("--set").
void apply_assignment(JobSpec& spec, std::string_view assignment, std::string_view source_name, OriginKind kind,
                      Diagnostics& diagnostics);

// Sets the key `path` from the YAML text that starts at `value_column` (0-based) of `source`'s text.
void apply_value(JobSpec& spec, std::string_view path, const SourceRef& source, size_t value_column, OriginKind kind,
                 Diagnostics& diagnostics);

// The `EZPZ_*` variables that override spec keys (EZPZ_NODES, EZPZ_TORCH_BACKEND …); an empty one
// counts as unset (`setting`).
JobSpec read_env_overrides(const EnvLookup& env, Diagnostics& diagnostics);

// `higher` over `lower`: every value set in `higher` wins; env merges variable by variable.
void merge_into(JobSpec& lower, const JobSpec& higher);

// The name of the environment variable that overrides `path` ("torch.backend" → "EZPZ_TORCH_BACKEND"),
// or "" when that key cannot be set from the environment.
std::string env_override_name(std::string_view path);

// A key's value as JSON with its origin (env: the whole map, origin of its first variable).
struct SpecValue {
  nlohmann::json value;
  Origin origin;
};
// The value at `path` ("nodes", "torch.backend"), if set.
std::optional<SpecValue> get_value(const JobSpec& spec, std::string_view path);

// Whether the key at `path` holds a duration (seconds, written and shown as HH:MM:SS or 90m).
bool is_duration_key(std::string_view path);

// All key paths ("name", "torch.backend" …) with their one-line descriptions, in table order.
std::vector<std::pair<std::string, std::string>> job_spec_keys();

// A JSON Schema (draft 2020-12) of the job spec, for editors.
std::string job_spec_schema();

}  // namespace ezpz::core
