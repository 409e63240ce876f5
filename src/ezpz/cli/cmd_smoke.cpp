// `ezpz test`: a real multi-rank collective smoke test, run by a separate LibTorch-linked program so
// the ezpz binary itself never loads LibTorch.
#include <memory>

#include "ezpz/cli/cli.hpp"
#include "ezpz/cli/command.hpp"
#include "ezpz/cli/runtime_command.hpp"
#include "ezpz/util/handoff_variables.hpp"

namespace ezpz::core {
namespace {

struct TestOptions {
  std::string system;
  long iterations = 0;
  long size_mb = 0;
  bool quick = false;
  bool json = false;
};

}  // namespace

void add_test_command(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<TestOptions>();
  CLI::App* command = app.add_subcommand(
      "test", "Distributed smoke test: all-reduce, broadcast and barrier on every rank, with timings");
  command->add_option("--system", options->system, "system profile (default: $EZPZ_SYSTEM, else detected)");
  command->add_option("--iterations", options->iterations, "timed all-reduce iterations")
      ->check(CLI::Range(1L, 1000000L));
  command->add_option("--size-mb", options->size_mb, "size of the bandwidth all-reduce in MiB")
      ->check(CLI::Range(1L, 1000000L));
  command->add_flag("--quick", options->quick, "one all-reduce only (for launch benchmarks)");
  command->add_flag("--json", options->json, "rank 0 prints JSON instead of a table");
  command->footer(
      "Run it on every rank: ezpz launch -n 4 -- ezpz test   (or under mpiexec/srun directly).\n"
      "It runs ezpz-torch-test (LibTorch, c10d) next to the ezpz binary, or $EZPZ_TORCH_TEST.");
  command->callback([&action, options] {
    action = [options] {
      if (!program_after_separator().empty()) {
        throw UserError("ezpz test runs its own program and takes nothing after '--'",
                        "options go before: ezpz test --iterations 50 --size-mb 16");
      }
      Installation installation = Installation::from_process();
      std::vector<std::string> program = {companion_program(installation, "ezpz-torch-test", k_env_torch_test,
                                                            "build with LibTorch (EZPZ_BUILD_TORCH=ON)")};
      if (options->iterations > 0) program.insert(program.end(), {"--iterations", std::to_string(options->iterations)});
      if (options->size_mb > 0) program.insert(program.end(), {"--size-mb", std::to_string(options->size_mb)});
      if (options->quick) program.push_back("--quick");
      if (options->json) program.push_back("--json");
      return exec_rank(installation, runtime_system(installation, options->system), program, false);
    };
  });
}

}  // namespace ezpz::core
