// Shared job options and the process environment.
#include "ezpz/cli/job_options.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "ezpz/cli/cli.hpp"
#include "ezpz/util/handoff_variables.hpp"

namespace ezpz::core {
namespace {

// The common spec keys, each with a flag of its own: with `-- program` they make a job without a spec
// file, and over a spec file they override it as --set would (docs/jobs.md, "Jobs without a spec file").
struct KeyFlag {
  const char* names;  // CLI11 names; the first is how messages locate the value
  const char* key;
  const char* type;
  const char* help;
};

const KeyFlag k_key_flags[] = {
    {"-N,--nodes", "nodes", "N", "number of nodes (the spec key nodes)"},
    {"-t,--walltime", "walltime", "TIME", "walltime: 1h30m, 90m, 01:30:00 (the spec key walltime)"},
    {"-q,--queue", "queue", "QUEUE", "queue (the spec key queue)"},
    {"-A,--account", "account", "PROJECT", "project to charge (the spec key account)"},
};

std::string first_name(const char* names) {
  std::string text = names;
  return text.substr(0, text.find(','));
}

}  // namespace

void JobOptions::add_to(CLI::App& command) {
  command.add_option("spec", spec_path,
                     "job spec file (YAML), or '-' for stdin; without one, the job is the flags and the program "
                     "after '--'");
  command.add_option("--system", system, "system profile to use (overrides the spec and detection)");
  for (const auto& flag : k_key_flags) {
    command.add_option(flag.names, key_flags[flag.key], flag.help)->type_name(flag.type);
  }
  command.add_option("--set", assignments, "override a spec key: --set nodes=4 --set env.HF_HOME=/tmp/hf")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false)  // `--set k=v job.yaml`: the spec is not a second assignment
      ->check(CLI::Validator(
          [](std::string& value) {
            return value.find('=') == std::string::npos || value.front() == '='
                       ? "expected KEY=VALUE, found '" + value + "'"
                       : std::string();
          },
          "KEY=VALUE"));
}

ResolvedJob JobOptions::resolve_job(const Catalog& catalog) const {
  const std::vector<std::string>& run = program_after_separator();
  if (spec_path.empty() && run.empty()) {
    throw UserError("no job: give a job spec file, or the job on the command line",
                    "ezpz render job.yaml, or ezpz render --system polaris -N 2 -t 1h -A PROJECT -- python3 train.py; "
                    "'ezpz init' writes a spec to start from");
  }
  Diagnostics diagnostics;
  JobRequest request;
  request.spec_path = spec_path;
  if (!spec_path.empty()) request.spec = load_job_spec(spec_path, diagnostics);
  request.assignments = assignments;
  request.system = system;
  for (const auto& flag : k_key_flags) {
    auto value = key_flags.find(flag.key);
    if (value != key_flags.end() && !value->second.empty()) {
      request.flags.push_back({flag.key, first_name(flag.names), value->second});
    }
  }
  if (!run.empty()) request.flags.push_back({"run", "--", nlohmann::json(run).dump()});
  request.env = process_env();
  request.detect = [&catalog] { return detect_here(catalog); };
  return resolve_request(catalog, request, diagnostics);
}

Installation Installation::from_process() {
  std::error_code error;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  const char* bin = std::getenv(k_env_bin);
  std::string exe_dir = error ? std::string() : exe.parent_path().string();
  return Installation{
      Catalog(Catalog::default_search_path(std::getenv(k_env_systems_path), std::getenv("HOME"), exe_dir)),
      bin != nullptr && *bin != '\0' ? std::string(bin) : exe.string()};
}

}  // namespace ezpz::core
