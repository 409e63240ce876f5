// `ezpz logs`: the output file a job was recorded with, optionally followed until the job ends.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/job_commands.hpp"
#include "ezpz/util/exit_codes.hpp"

namespace ezpz {
namespace {

// Prints what `path` has beyond `offset`; returns the new offset.
std::streamoff print_from(const std::string& path, std::streamoff offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return offset;
  in.seekg(offset);
  std::cout << in.rdbuf() << std::flush;
  in.clear();
  in.seekg(0, std::ios::end);
  return in.tellg();
}

}  // namespace

void add_logs_command(CLI::App& app, CommandAction& action) {
  auto id = std::make_shared<std::string>();
  auto records = std::make_shared<std::string>();
  auto follow = std::make_shared<bool>(false);
  auto error_file = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand("logs", "Print a job's output file (as recorded at submit)");
  command->add_option("job", *id, "job id")->required();
  command->add_flag("-f,--follow", *follow, "keep printing new output until the job ends");
  command->add_flag("--stderr", *error_file, "the error file, when the job has a separate one");
  add_records_option(*command, *records);
  command->callback([&action, id, records, follow, error_file] {
    action = [id, records, follow, error_file] {
      Environment env = Environment::from_process();
      std::string root = records_root(*records, std::filesystem::current_path().string());
      JobRef ref = find_job(env, root, *id, "");
      if (!ref.record) throw UserError("no record of job '" + *id + "' in " + root, "logs needs a job submitted with ezpz submit");
      std::string path = *error_file && !ref.record->error.empty() ? ref.record->error : ref.record->output;
      if (path.empty()) throw UserError("job " + ref.job_id + " has no recorded output file");
      SystemProcessRunner runner;
      std::streamoff offset = 0;
      while (true) {
        bool done = !*follow || query_status(*ref.scheduler, ref.job_id, runner).done();
        offset = print_from(path, offset);
        if (done) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
      }
      if (offset == 0 && !std::filesystem::exists(path)) {
        throw UserError("job " + ref.job_id + " has not written " + path + " yet", "it may still be queued: ezpz status " + ref.job_id);
      }
      return static_cast<int>(k_exit_ok);
    };
  });
}

}  // namespace ezpz
