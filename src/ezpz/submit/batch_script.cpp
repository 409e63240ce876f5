// Submitting a batch script the user wrote, and reading its directives for the record.
#include "ezpz/submit/batch_script.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "ezpz/profile/directive_options.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/limits.hpp"
#include "ezpz/util/option_template.hpp"
#include "ezpz/util/regex.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

// The option that the scheduler's directive for spec key `key` sets ("-N" for PBS's name), read from
// its directive template with the scheduler's own option table; "" when it has none.
std::string option_of_directive(const Scheduler& scheduler, const std::string& key) {
  for (const auto& [name, text] : scheduler.directives) {
    if (name != key || !text) continue;
    static const Regex k_placeholder = compile_regex(R"(\{[^}]*\})", {}, "a placeholder");
    std::string line = k_placeholder.replace_all(*text, "x");
    auto names = directive_option_names(scheduler.options, line);
    return names.empty() ? std::string() : names.front();
  }
  return {};
}

// A directive line's text after `prefix`, when `line` is one: "#SBATCH --job-name=x" → " --job-name=x".
std::optional<std::string> after_prefix(const std::string& line, const std::string& prefix) {
  if (prefix.empty() || !starts_with(line, prefix)) return std::nullopt;
  std::string rest = line.substr(prefix.size());
  if (!rest.empty() && rest[0] != ' ' && rest[0] != '\t') return std::nullopt;  // "#PBSX" is a comment
  return rest;
}

}  // namespace

bool is_batch_script(const std::string& path) {
  if (path == "-") return false;
  try {
    FileDescriptor file = open_regular_file(path, "'" + path + "'");
    char start[2] = {};
    return file && ::read(file.get(), start, 2) == 2 && start[0] == '#' && start[1] == '!';
  } catch (const UserError&) {
    return false;  // not a regular file: loading it as a spec says so
  }
}

std::string read_batch_script(const std::string& path) {
  std::string text =
      read_regular_file(path, "the batch script " + path, k_max_script_bytes, "check the path and its permissions");
  // The first of the two: sbatch refuses a script with either ("Batch script contains DOS line breaks",
  // "... contains a NULL character"), and bash would run "hostname\r" or drop the NUL.
  std::size_t at = std::min(text.find('\0'), text.find("\r\n"));
  if (at == std::string::npos) return text;
  std::size_t line_start = text.rfind('\n', at);
  line_start = line_start == std::string::npos ? 0 : line_start + 1;
  int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(line_start), '\n'));
  SourceLoc where{make_source(path, text), line, static_cast<int>(at - line_start) + 1, 1};
  if (text[at] == '\0') {
    throw UserError(where, "a NUL byte; the scheduler refuses a script that holds one, and bash would drop it",
                    "remove it");
  }
  throw UserError(where, "the line ends in CR LF (a DOS line end); the scheduler refuses such a script",
                  "convert the file to Unix line ends: dos2unix " + path + ", or sed -i 's/\\r$//' " + path);
}

ScriptDirectives read_script_directives(const std::string& text, const Scheduler& scheduler,
                                        const std::vector<std::string>& other_prefixes) {
  ScriptDirectives found;
  const std::string name_option = option_of_directive(scheduler, "name");
  const std::string output_option = option_of_directive(scheduler, "output");
  const std::string error_option = option_of_directive(scheduler, "error");
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string stripped = trim(line);
    // qsub and sbatch stop at the first line that is neither blank nor a comment.
    if (!stripped.empty() && stripped[0] != '#') break;
    for (const auto& prefix : other_prefixes) {
      if (after_prefix(line, prefix) &&
          std::find(found.prefixes.begin(), found.prefixes.end(), prefix) == found.prefixes.end()) {
        found.prefixes.push_back(prefix);
      }
    }
    auto rest = after_prefix(line, scheduler.directive_prefix);
    if (!rest) continue;
    if (std::find(found.prefixes.begin(), found.prefixes.end(), scheduler.directive_prefix) == found.prefixes.end()) {
      found.prefixes.push_back(scheduler.directive_prefix);
    }
    for (const auto& option : parse_directive(scheduler.options, *rest).options) {
      const std::string& name = option.options.front();
      if (!option.value) continue;
      if (name == name_option) found.name = option.value;
      if (name == output_option) found.output = option.value;
      if (name == error_option) found.error = option.value;
      for (const auto& [directive, file] : scheduler.joins) {
        if (directive == name + " " + *option.value) found.joined = file;
      }
    }
  }
  return found;
}

JobRecord submit_script(const ScriptSubmission& script, const Scheduler& scheduler,
                        const std::vector<std::string>& other_prefixes, ProcessRunner& runner,
                        const SubmitOptions& options) {
  if (scheduler.submit.empty()) {
    throw UserError("system '" + script.system + "' has no scheduler to submit " + script.path + " to",
                    "name the system whose scheduler should run it: --system NAME (ezpz systems)");
  }
  std::string text = read_batch_script(script.path);
  ScriptDirectives directives = read_script_directives(text, scheduler, other_prefixes);
  for (const auto& prefix : directives.prefixes) {
    if (prefix == scheduler.directive_prefix) continue;
    throw UserError(script.path + " has " + prefix + " directives, but system '" + script.system + "' submits with " +
                        scheduler.submit[0] + " (" + scheduler.directive_prefix + ")",
                    "submit it on a system of its scheduler (--system NAME), or write the job as a spec: ezpz init");
  }

  std::vector<std::string> argv = scheduler.submit;
  if (options.hold) argv.insert(argv.end(), scheduler.submit_hold.begin(), scheduler.submit_hold.end());
  if (!script.after.empty()) {
    // The `after` directive is an option of the submit command too ("-W depend=afterok:1:2").
    std::optional<std::vector<CommandWord>> words;
    for (const auto& [name, form] : scheduler.directives) {
      if (name == "after" && form)
        words = expand_option_group(*form, {{"after", join(script.after, ":")}}, "scheduler " + scheduler.name);
    }
    if (!words || words->empty()) {
      throw UserError("scheduler '" + scheduler.name + "' has no 'after' directive: --after cannot be passed to " +
                      scheduler.submit[0]);
    }
    for (const auto& word : *words) argv.push_back(word.text);
  }
  argv.push_back(fs::absolute(script.path).string());

  std::string tag = fs::path(script.path).filename().string();
  std::replace_if(
      tag.begin(), tag.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '-');
  std::string pending = begin_record(options, tag, {{"job.sh", text, true}});
  JobRecord record;
  record.job_id = run_submit_command(scheduler, argv, runner, options, script.path);
  record.scheduler = scheduler.name;
  record.system = script.system;
  // Without a name directive, qsub and sbatch name the job after the script's file.
  record.name = directives.name.value_or(fs::path(script.path).filename().string());
  record.submit_command = argv;
  record.output =
      output_path(directives.output, scheduler.default_output, record.name, record.job_id, options.submit_dir);
  record.error = output_path(directives.error, scheduler.default_error, record.name, record.job_id, options.submit_dir);
  // Both streams in one file: the other one is never written.
  if (directives.joined == "output") record.error.clear();
  if (directives.joined == "error") record.output = record.error;
  return file_record(record, pending, options);
}

}  // namespace ezpz::core
