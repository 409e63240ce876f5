// resolve: job spec + system profile + overrides → one fully determined job, every value with its origin.
// Pure: the environment, the detection result and the binary path are inputs.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ezpz/profile/catalog.hpp"
#include "ezpz/profile/detect.hpp"
#include "ezpz/resolve/rank_placement.hpp"
#include "ezpz/spec/job_spec.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/option_template.hpp"

namespace ezpz::core {

struct ResolveInputs {
  std::string spec_path;  // the job file, for the default job name; may be empty
  JobSpec spec;           // from the job file
  JobSpec env;            // from EZPZ_* variables
  JobSpec cli;            // from --set / --system
  // Called only when no layer names a system.
  std::function<std::optional<Detection>()> detect;
  // Inside an allocation (`ezpz launch`): only the launcher matters, so the batch-level checks
  // (account, queue limits, job name, directive values) are skipped.
  bool for_launch = false;
};

// The placeholders a launch line with spare nodes leaves for `ezpz launch` to fill in at each attempt
// ({hostfile}, {hosts}): a host file it writes, and the hosts as a host list (runtime/launch.hpp,
// with_hosts).
inline constexpr const char* k_hostfile_key = "hostfile";
inline constexpr const char* k_hosts_key = "hosts";

// One `stage:` entry as the script runs it: the staging launcher's words, "$EZPZ_BIN", then
// `yeet [--unpack] [--venv] -- SRC DEST`.
struct StageCommand {
  std::string src;
  std::string dest;
  std::vector<CommandWord> words;
  size_t launcher_words = 0;  // how many of `words` are the launcher's (the script breaks the line there)
};

struct ResolvedJob {
  JobSpec spec;  // every key after precedence; ranks_per_node/cpus_per_rank/cpu_bind/torch.* no longer 'auto'
  const SystemProfile* profile = nullptr;
  const Scheduler* scheduler = nullptr;
  Sourced<long> total_ranks;
  // Each local rank's device and cpus (resolve/rank_placement.hpp), where the profile says which
  // socket each device sits on (node.devices.sockets); empty elsewhere.
  std::vector<RankDevice> rank_devices;
  std::vector<std::pair<std::string, Sourced<std::string>>> backend_env;  // for this job's node count
  std::vector<std::string> directives;                                    // without the prefix, in output order
  std::vector<CommandWord> launcher;  // the launcher's words, before the rank wrapper and the program
  // Variables the launcher passes to every rank by name (launcher.env_option; empty for launchers that
  // pass the whole environment): their option groups end `launcher` and `stage_launcher`.
  std::vector<std::string> forwarded_env;
  std::string hash;  // of every value explain() lists (resolved_json) and the ezpz version (hex)
  // Rules the job may run into that do not stop it (queue caps, by-request queues); `ezpz validate`
  // prints them. Not part of the hash.
  std::vector<Diagnostic> warnings;

  // The values a stage step's launcher gets: one rank per node, no cpu binding.
  std::vector<CommandWord> stage_launcher;
  // With supervise.spare_nodes: stage_launcher with the hosts left to `ezpz launch` ({hostfile},
  // {hosts}), for the health probe of the nodes it chooses.
  std::vector<CommandWord> probe_launcher;
  std::vector<StageCommand> stage_commands;  // one per `stage:` entry, in order
};

// The hand-off variables a script exports for the runtime after EZPZ_BIN, in order: EZPZ_SYSTEM,
// EZPZ_TORCH_BACKEND, EZPZ_TORCH_DEVICE, and from the supervise keys EZPZ_END_SIGNAL,
// EZPZ_SIGNAL_BEFORE, EZPZ_LABEL and EZPZ_LOG_DIR (docs/runtime-env.md).
std::vector<std::pair<std::string, std::string>> handoff_env(const ResolvedJob& job);

// The `ezpz launch` options that the spec's supervise keys stand for ("--timeout", "1800s", …); empty
// when none is set, and then a rendered script starts its launcher without ezpz launch around it.
std::vector<std::string> supervise_options(const JobSpec& spec);

// Resolves or throws a UserError that holds every independent problem found.
ResolvedJob resolve(const Catalog& catalog, const ResolveInputs& inputs);

// One line of `ezpz resolve --explain`.
struct ExplainedValue {
  std::string key;
  nlohmann::json value;
  Origin origin;
};

// Every resolved value in a stable order: spec keys first, then derived values.
std::vector<ExplainedValue> explain(const ResolvedJob& job);

// {key: value} or, with origins, {key: {"value": …, "origin": {"kind": …, "where": …}}}.
nlohmann::json resolved_json(const ResolvedJob& job, bool with_origins);

}  // namespace ezpz::core
