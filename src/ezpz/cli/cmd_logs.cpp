// `ezpz logs`: the output file a job was recorded with, optionally followed until the job ends.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/job_commands.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/file.hpp"

namespace ezpz::core {
namespace {

// Copies what `path` has beyond `offset` to stdout; returns the new offset, or nullopt when there is no
// file (yet). A file shorter than `offset` was truncated (a requeue, a log rotation): it is printed
// from its start again, and stderr says so, as `tail -F` does. Reads in blocks rather than
// `cout << rdbuf()`, which sets failbit on cout when there is nothing new, and then every later write
// is lost.
std::optional<off_t> print_from(const std::string& path, off_t offset) {
  FileDescriptor file = open_regular_file(path, "the output file '" + path + "'");
  if (!file) return std::nullopt;
  struct stat info {};
  if (::fstat(file.get(), &info) == 0 && info.st_size < offset) {
    std::cout.flush();
    std::cerr << "ezpz: " << path << ": file truncated\n";
    offset = 0;
  }
  char buffer[64 * 1024];
  for (;;) {
    ssize_t got = ::pread(file.get(), buffer, sizeof buffer, offset);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    std::cout.write(buffer, got);
    offset += got;
  }
  std::cout.flush();
  return offset;
}

// Why a job has not written its file yet, from its state and its scheduler.
std::string missing_file_hint(const JobRef& ref, const JobStatus& status) {
  std::string state = job_state_name(status.state);
  if (status.state == JobState::queued || status.state == JobState::held)
    return "the job is " + state + ": ezpz status " + ref.job_id;
  if (status.state == JobState::running && !ref.scheduler->output_note.empty()) return ref.scheduler->output_note;
  return "the job is " + state + (status.detail.empty() ? "" : " (" + status.detail + ")");
}

struct LogsCommandOptions {
  std::string id;
  std::string records;
  bool follow = false;
  bool error_file = false;
};

int run_logs(const LogsCommandOptions& options) {
  Installation installation = Installation::from_process();
  std::string root = records_root(options.records);
  JobRef ref = find_job(installation, root, options.id, "");
  if (!ref.record)
    throw UserError("no record of job '" + options.id + "' in " + root, "logs needs a job submitted with ezpz submit");
  std::string path = options.error_file ? ref.record->error : ref.record->output;
  if (path.empty()) {
    throw UserError("job " + ref.job_id + " has no recorded " + (options.error_file ? "error" : "output") + " file",
                    options.error_file ? "its standard error goes into its output file: ezpz logs " + ref.job_id : "");
  }
  SystemProcessRunner runner;
  off_t offset = 0;
  bool found = false;
  auto print = [&] {
    if (auto now = print_from(path, offset)) {
      offset = *now;
      found = true;
    }
  };
  while (options.follow) {
    // The state first: output written before the job ended is printed by the read after it.
    bool done = query_status(*ref.scheduler, ref.job_id, runner).done();
    print();
    if (done) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  if (!options.follow) print();
  if (!found) {
    throw UserError("job " + ref.job_id + " has not written " + path + " yet",
                    missing_file_hint(ref, query_status(*ref.scheduler, ref.job_id, runner)));
  }
  return k_exit_ok;
}

}  // namespace

void add_logs_command(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<LogsCommandOptions>();
  CLI::App* command = app.add_subcommand("logs", "Print a job's output file (as recorded at submit)");
  command->add_option("job", options->id, "job id")->required();
  command->add_flag("-f,--follow", options->follow, "keep printing new output until the job ends");
  command->add_flag("--stderr", options->error_file,
                    "the error file (PBS: <name>.e<number> unless the spec sets error:)");
  add_records_option(*command, options->records);
  command->callback([&action, options] { action = [options] { return run_logs(*options); }; });
}

}  // namespace ezpz::core
