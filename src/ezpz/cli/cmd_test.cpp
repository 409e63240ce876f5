// `ezpz test`: a real multi-rank collective smoke test, run by a separate LibTorch-linked program so
// the ezpz binary itself never loads LibTorch.
#include <filesystem>
#include <memory>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/runtime_command.hpp"

namespace ezpz {
namespace {

std::string torch_test_program(const Environment& env) {
  if (const char* path = std::getenv("EZPZ_TORCH_TEST"); path != nullptr && *path != '\0') return path;
  std::filesystem::path beside = std::filesystem::path(env.ezpz_bin).parent_path() / "ezpz-torch-test";
  std::error_code error;
  if (std::filesystem::exists(beside, error)) return beside.string();
  throw UserError("ezpz-torch-test is not installed next to " + env.ezpz_bin,
                  "build with LibTorch (EZPZ_BUILD_TORCH=ON), or point EZPZ_TORCH_TEST at it");
}

}  // namespace

void add_test_command(CLI::App& app, CommandAction& action) {
  auto system = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "test", "Distributed smoke test: all-reduce, broadcast and barrier on every rank, with timings");
  command->add_option("--system", *system, "system profile (default: $EZPZ_SYSTEM, else detected)");
  command->footer("Run it on every rank: ezpz launch -n 4 -- ezpz test   (or under mpiexec/srun directly).\n"
                  "Options after the command go to ezpz-torch-test: --iterations N, --size-mb N, --quick, --json.");
  command->callback([&action, system] {
    auto arguments = program_after_separator();
    action = [system, arguments] {
      Environment env = Environment::from_process();
      std::vector<std::string> program = {torch_test_program(env)};
      program.insert(program.end(), arguments.begin(), arguments.end());
      return exec_rank(env, runtime_system(env, *system), program, false);
    };
  });
}

}  // namespace ezpz
