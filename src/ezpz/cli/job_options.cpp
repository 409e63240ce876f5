// Shared job options and the process environment.
#include "ezpz/cli/job_options.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace ezpz {

void JobOptions::add_to(CLI::App& command) {
  command.add_option("spec", spec_path, "job spec file (YAML), or '-' for stdin")->required();
  command.add_option("--system", system, "system profile to use (overrides the spec and detection)");
  command.add_option("--set", assignments, "override a spec key: --set nodes=4 --set env.HF_HOME=/tmp/hf")
      ->type_name("KEY=VALUE")
      ->check(CLI::Validator(
          [](std::string& value) {
            return value.find('=') == std::string::npos || value.front() == '='
                       ? "expected KEY=VALUE, found '" + value + "'"
                       : std::string();
          },
          "KEY=VALUE"));
}

ResolvedJob JobOptions::resolve_job(const Catalog& catalog) const {
  Diagnostics diagnostics;
  ResolveInputs inputs;
  inputs.spec_path = spec_path;
  inputs.spec = load_job_spec(spec_path, diagnostics);
  inputs.env = read_env_overrides(::getenv, diagnostics);
  for (const auto& assignment : assignments)
    apply_assignment(inputs.cli, assignment, "--set", OriginKind::cli, diagnostics);
  if (!system.empty())
    apply_value(inputs.cli, "system", make_source("--system", system, true), 0, OriginKind::cli, diagnostics);
  inputs.detect = [&catalog] { return detect_here(catalog); };
  std::optional<ResolvedJob> job;
  try {
    job = resolve(catalog, inputs);
  } catch (const UserError& error) {
    diagnostics.add(error);
  }
  diagnostics.throw_if_any();
  return std::move(*job);
}

Environment Environment::from_process() {
  std::error_code error;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  const char* bin = std::getenv("EZPZ_BIN");
  std::string exe_dir = error ? std::string() : exe.parent_path().string();
  return Environment{
      Catalog(Catalog::default_search_path(std::getenv("EZPZ_SYSTEMS_PATH"), std::getenv("HOME"), exe_dir)),
      bin != nullptr && *bin != '\0' ? std::string(bin) : exe.string()};
}

std::optional<Detection> detect_here(const Catalog& catalog) {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return detect_system(catalog, DetectInput{[](const char* name) -> const char* { return std::getenv(name); }, host});
}

}  // namespace ezpz
