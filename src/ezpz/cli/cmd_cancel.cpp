// `ezpz cancel`: qdel/scancel by job id.
#include <filesystem>
#include <iostream>
#include <memory>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/job_commands.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {

void add_cancel_command(CLI::App& app, CommandAction& action) {
  auto ids = std::make_shared<std::vector<std::string>>();
  auto records = std::make_shared<std::string>();
  auto system = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand("cancel", "Cancel jobs (qdel, scancel)");
  command->add_option("jobs", *ids, "job ids")->required();
  command->add_option("--system", *system, "system of jobs without a record (default: $EZPZ_SYSTEM, else detected)");
  add_records_option(*command, *records);
  command->callback([&action, ids, records, system] {
    action = [ids, records, system] {
      Installation installation = Installation::from_process();
      std::string root = records_root(*records);
      SystemProcessRunner runner;
      for (const auto& id : *ids) {
        JobRef ref = find_job(installation, root, id, *system);
        std::string said = cancel_job(ref, runner);
        if (!said.empty()) std::cerr << said << "\n";  // what qdel/scancel said anyway
        std::cerr << "ezpz: cancelled " << ref.job_id << "\n";
      }
      return static_cast<int>(k_exit_ok);
    };
  });
}

}  // namespace ezpz::core
