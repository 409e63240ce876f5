// `ezpz yeet SRC DEST`: environment fan-out to node-local storage. The MPI work happens in
// ezpz-yeet-mpi (installed beside ezpz), which this command becomes, so the ezpz binary needs no MPI.
#include <iostream>
#include <memory>

#include "ezpz/cli/cli.hpp"
#include "ezpz/cli/command.hpp"
#include "ezpz/cli/runtime_command.hpp"
#include "ezpz/util/exec.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/handoff_variables.hpp"
#include "ezpz/yeet/options.hpp"

namespace ezpz::core {

void add_yeet_command(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<yeet::Options>();
  CLI::App* command = app.add_subcommand(
      "yeet", "Copy a directory, file or tarball to node-local storage on every node, over MPI, verified");
  yeet::add_options(*command, *options);
  // SRC and DEST may also follow "--" (as in rendered scripts); they are filled in below.
  command->get_option("SRC")->required(false);
  command->get_option("DEST")->required(false);
  command->footer(
      "Run one process per node inside an allocation, e.g.\n"
      "  mpiexec -n 4 --ppn 1 ezpz yeet /lus/proj/env.tar.gz /tmp/env --unpack\n"
      "  srun -N 4 -n 4 --mpi=pmi2 ezpz yeet ~/venv /local/scratch/venv\n"
      "Rank 0 reads SRC once and broadcasts it in chunks; each node writes into a staging directory beside\n"
      "DEST, checks every file's xxh3 hash, and only then renames it to DEST. A DEST that already holds\n"
      "the same copy (DEST/.ezpz-yeet) is kept. Exit 0 when --min-success nodes succeeded, else 1.\n"
      "It runs ezpz-yeet-mpi (MPICH) next to the ezpz binary, or $EZPZ_YEET_MPI. See docs/yeet.md.");
  command->callback([&action, options] {
    action = [options] {
      const auto& separated = program_after_separator();
      if (options->src.empty() && options->dest.empty() && separated.size() == 2) {
        options->src = separated[0];
        options->dest = separated[1];
      } else if (!separated.empty() || options->src.empty() || options->dest.empty()) {
        std::cerr << "ezpz: usage error: ezpz yeet takes SRC and DEST, before or after '--'\n"
                     "  hint: ezpz yeet [OPTIONS] SRC DEST   or   ezpz yeet [OPTIONS] -- SRC DEST\n";
        return static_cast<int>(k_exit_usage);
      }
      Installation installation = Installation::from_process();
      std::vector<std::string> program = {companion_program(installation, "ezpz-yeet-mpi", k_env_yeet_mpi,
                                                            "build with MPICH (apt-get install libmpich-dev)")};
      for (auto& word : yeet::to_arguments(*options)) program.push_back(std::move(word));
      return exec_program(program);
    };
  });
}

}  // namespace ezpz::core
