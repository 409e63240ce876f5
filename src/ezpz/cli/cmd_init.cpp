// `ezpz init`: write a commented job spec for the detected (or named) system to start from.
#include <filesystem>
#include <iostream>
#include <memory>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/job_options.hpp"
#include "ezpz/profile/detect.hpp"
#include "ezpz/render/starter_spec.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/file.hpp"

namespace ezpz::core {
namespace {

struct InitCommandOptions {
  std::string system;
  std::string file = "job.yaml";
  bool force = false;
};

int run_init(const InitCommandOptions& options) {
  Installation installation = Installation::from_process();
  Detection chosen = chosen_system(installation.catalog, options.system, process_env(), host_name());
  const std::string& name = chosen.system;
  const std::string& why = chosen.reason;
  SourceLoc where;
  if (!options.system.empty())
    where = SourceLoc{make_source("--system", name, true), 1, 1, static_cast<int>(name.size())};
  const SystemProfile& profile = installation.catalog.system(name, where);
  std::string text = starter_spec(profile, why, options.file == "-" ? "job.yaml" : options.file);
  if (options.file == "-") {
    std::cout << text << std::flush;
    return k_exit_ok;
  }
  std::error_code error;
  if (!options.force && std::filesystem::exists(options.file, error)) {
    throw UserError(options.file + " exists; ezpz init does not overwrite it",
                    "choose another file name, or --force to replace it");
  }
  write_file_atomically(options.file, text);
  std::cerr << "ezpz: wrote " << options.file << " for system '" << name << "' (" << why
            << "); fill in what it marks, then: ezpz validate " << options.file << "\n";
  return k_exit_ok;
}

}  // namespace

void add_init_command(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<InitCommandOptions>();
  CLI::App* command = app.add_subcommand("init", "Write a commented job spec for this system to start from");
  command->add_option("file", options->file, "where to write it (default job.yaml; '-' for stdout)");
  command->add_option("--system", options->system, "the system to write it for (default: $EZPZ_SYSTEM, else detected)");
  command->add_flag("--force", options->force, "replace FILE when it exists");
  command->footer(
      "The spec has the system's required keys, default queue and filesystems filled in. A value only\n"
      "you know (your project) is left empty with a 'fill in' comment: ezpz validate reports it until\n"
      "it is filled. ezpz systems show NAME lists the system's queues and defaults.");
  command->callback([&action, options] { action = [options] { return run_init(*options); }; });
}

}  // namespace ezpz::core
