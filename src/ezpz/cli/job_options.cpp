// Shared job options and the process environment.
#include "ezpz/cli/job_options.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace ezpz::core {

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
  JobRequest request;
  request.spec_path = spec_path;
  request.spec = load_job_spec(spec_path, diagnostics);
  request.assignments = assignments;
  request.system = system;
  request.env = process_env();
  request.detect = [&catalog] { return detect_here(catalog); };
  return resolve_request(catalog, request, diagnostics);
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

}  // namespace ezpz::core
