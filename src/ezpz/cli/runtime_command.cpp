// The exec step shared by `ezpz exec` and `ezpz test`.
#include "ezpz/cli/runtime_command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "ezpz/runtime/rank_setup.hpp"
#include "ezpz/runtime/rank_supervisor.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {

std::string companion_program(const Installation& installation, const std::string& name, const char* variable,
                              const std::string& hint) {
  if (const char* path = std::getenv(variable); path != nullptr && *path != '\0') return path;
  std::filesystem::path beside = std::filesystem::path(installation.ezpz_bin).parent_path() / name;
  std::error_code error;
  if (std::filesystem::exists(beside, error)) return beside.string();
  throw UserError(name + " is not installed next to " + installation.ezpz_bin,
                  hint + ", or point " + variable + " at it");
}

std::string runtime_system(const Installation& installation, const std::string& flag) {
  return runtime_system(installation.catalog, flag, process_env(), host_name());
}

int exec_rank(const Installation& installation, const std::string& system, const std::vector<std::string>& program,
              bool print_only) {
  if (!print_only) defer_stop_signal();
  RuntimeInputs inputs;
  inputs.profile = &installation.catalog.system(system);
  inputs.env = process_env();
  inputs.job_variables = installation.catalog.job_variables();
  RankSetup setup = rank_setup(inputs);
  if (print_only) {
    for (const auto& note : setup.notes) std::cerr << "# " << note << "\n";
    for (const auto& [name, value] : setup.exports) std::cout << "export " << name << "=" << shell_quote(value) << "\n";
    return k_exit_ok;
  }
  if (program.empty()) throw UserError("no program to run", "ezpz exec -- python3 train.py");
  check_rendezvous_host(setup, system_host_resolver());
  for (const auto& [name, value] : setup.exports) setenv(name.c_str(), value.c_str(), 1);
  return run_rank(program, setup.run);
}

}  // namespace ezpz::core
