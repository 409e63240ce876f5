// The generic `columns` format: lines of blank-separated words, named by the scheduler's
// `status_columns` (a job's status: state, exit_code, reason; "-" skips a column) or `job_list.columns`
// (a line per job: job_id, user, account, queue, state). For tools that print a job's fields in a
// chosen order (squeue --format, flux jobs -o, bjobs -o, qstat -f with a format string).
#include "ezpz/profile/output_parsers.hpp"

#include <algorithm>

#include "ezpz/util/text.hpp"

namespace ezpz::core::output_parsers {
namespace {

// An exit code as a word: 0 to 255, else nullopt ("-", "", a signal name).
std::optional<int> exit_code_word(const std::string& word) {
  if (word.empty() || word.size() > 3 || word.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  int value = std::stoi(word);
  return value <= 255 ? std::optional<int>(value) : std::nullopt;
}

// The job_list columns that are text fields of a listed job ("state" is mapped, "-" skipped).
const std::pair<const char*, std::string ListedJob::*> k_job_list_fields[] = {
    {"job_id", &ListedJob::job_id},
    {"user", &ListedJob::user},
    {"account", &ListedJob::account},
    {"queue", &ListedJob::queue},
};

}  // namespace

bool columns_status(const Scheduler& scheduler, const std::string& out, JobStatus& status) {
  std::string text = trim(out);
  std::vector<std::string> words = split_words(text.substr(0, text.find('\n')));
  if (words.empty()) return false;
  const auto& columns = scheduler.status_columns;
  auto column = [&](const std::string& name) -> std::string {
    auto found = std::find(columns.begin(), columns.end(), name);
    auto index = static_cast<size_t>(found - columns.begin());
    return found == columns.end() || index >= words.size() ? std::string() : words[index];
  };
  status.scheduler_state = column("state");
  status.state = mapped_state(scheduler, status.scheduler_state);
  if (std::string reason = column("reason"); !reason.empty() && reason != "-") status.detail = reason;
  auto code = column("exit_code");
  const JobStateInfo& state = job_state_info(status.state);
  if (!state.done || status.state == JobState::not_run || status.state == JobState::unknown) return true;
  status.exit_code = exit_code_word(code);
  if (status.state == JobState::ended) {
    // The state says only that the job ended: its exit code says how.
    status.state = status.exit_code == 0 ? JobState::completed : JobState::failed;
    if (!status.exit_code) status.detail = "the scheduler gave no exit code ('" + printable(code) + "')";
  }
  return true;
}

// A line per job. Slurm prints "(null)" for a job charged to no account. A line with fewer words than
// the columns is not a job: the answer cannot be read.
JobList columns_job_list(const Scheduler& scheduler, const std::string& out) {
  const auto& columns = scheduler.job_list.columns;
  std::vector<ListedJob> listed;
  for (const auto& line : split(out, '\n')) {
    std::vector<std::string> words = split_words(line);
    if (words.empty()) continue;
    if (words.size() < columns.size()) return std::nullopt;
    ListedJob job;
    std::string state;
    for (size_t i = 0; i < columns.size(); ++i) {
      if (columns[i] == "state") state = words[i];
      for (const auto& [name, member] : k_job_list_fields) {
        if (columns[i] == name) job.*member = words[i];
      }
    }
    if (job.account == "(null)") job.account.clear();
    job.state = mapped_state(scheduler, state);
    listed.push_back(std::move(job));
  }
  return listed;
}

}  // namespace ezpz::core::output_parsers
