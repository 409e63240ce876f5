// `ezpz exec -- CMD`: what every rank runs; sets rank, device, backend and rendezvous, then execs CMD.
#include <memory>

#include "ezpz/cli/cli.hpp"
#include "ezpz/cli/command.hpp"
#include "ezpz/cli/runtime_command.hpp"

namespace ezpz::core {

void add_exec_command(CLI::App& app, CommandAction& action) {
  auto system = std::make_shared<std::string>();
  auto print = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand(
      "exec", "Run one rank: export RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR/PORT, device and backend, then exec CMD");
  command->add_option("--system", *system, "system profile (default: $EZPZ_SYSTEM, else detected)");
  command->add_flag("--print", *print, "print what would be exported (stdout) and why (stderr); run nothing");
  command->footer(
      "Usage: ezpz exec [--system S] [--print] -- CMD [ARGS...]\n"
      "The rank comes from the launcher's variables (PALS, Open MPI, MPICH/PMI, PMIx, Slurm, torchrun).\n"
      "CMD replaces ezpz (same PID): signals and the exit code pass straight through. See docs/runtime-env.md.");
  command->callback([&action, system, print] {
    auto program = program_after_separator();
    action = [system, print, program] {
      Installation installation = Installation::from_process();
      return exec_rank(installation, runtime_system(installation, *system), program, *print);
    };
  });
}

}  // namespace ezpz::core
