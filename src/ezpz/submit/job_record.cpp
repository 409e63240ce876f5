// Job records on disk.
#include "ezpz/submit/job_record.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "ezpz/util/error.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/limits.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace fs = std::filesystem;

nlohmann::json JobRecord::to_json() const {
  return {{"job_id", job_id}, {"scheduler", scheduler},   {"system", system},
          {"name", name},     {"submit_dir", submit_dir}, {"submit_command", submit_command},
          {"output", output}, {"error", error},           {"submitted_at", submitted_at}};
}

JobRecord JobRecord::from_json(const nlohmann::json& json, const std::string& dir) {
  JobRecord record;
  record.job_id = json.at("job_id").get<std::string>();
  if (std::string problem = job_id_problem(record.job_id); !problem.empty()) {
    throw UserError(quoted_cut(record.job_id, 60) + " is not a job id: " + problem);
  }
  record.scheduler = json.at("scheduler").get<std::string>();
  record.system = json.value("system", "");
  record.name = json.value("name", "");
  record.submit_dir = json.value("submit_dir", "");
  record.submit_command = json.value("submit_command", std::vector<std::string>{});
  record.output = json.value("output", "");
  record.error = json.value("error", "");
  record.submitted_at = json.value("submitted_at", "");
  record.dir = dir;
  return record;
}

std::string records_root(const std::string& flag) {
  if (!flag.empty()) return flag;
  auto variable = [](const char* name) {
    const char* value = std::getenv(name);
    return value == nullptr ? std::string() : std::string(value);
  };
  if (std::string dir = variable("EZPZ_RECORDS_DIR"); !dir.empty()) return dir;
  // XDG base directories: state that should outlive a session but is no user document.
  if (std::string state = variable("XDG_STATE_HOME"); !state.empty())
    return (fs::path(state) / "ezpz" / "jobs").string();
  if (std::string home = variable("HOME"); !home.empty()) return (fs::path(home) / ".local/state/ezpz/jobs").string();
  throw UserError("cannot tell where job records go: HOME is not set", "set EZPZ_RECORDS_DIR or pass --records DIR");
}

std::string job_id_problem(std::string_view id) {
  auto id_character = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("._[];+-").find(c) != std::string_view::npos;
  };
  if (id.empty()) return "it is empty";
  if (id.size() > k_max_job_id_length) {
    return "it is " + std::to_string(id.size()) + " characters long, over " + std::to_string(k_max_job_id_length);
  }
  if (std::isalnum(static_cast<unsigned char>(id.front())) == 0) return "it does not start with a letter or digit";
  if (!std::all_of(id.begin(), id.end(), id_character))
    return "it has characters other than letters, digits and ._[];+-";
  return "";
}

std::string record_dir(const std::string& root, const std::string& job_id) {
  std::string safe = job_id;
  std::replace(safe.begin(), safe.end(), '/', '_');
  return (fs::path(root) / safe).string();
}

std::vector<JobRecord> list_records(const std::string& root) {
  std::vector<std::pair<fs::file_time_type, JobRecord>> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(root, error)) {
    fs::path file = entry.path() / "record.json";
    if (!fs::exists(file, error)) continue;
    try {
      std::string text = read_regular_file(file.string(), "the record", k_max_record_bytes, {}, Links::refuse);
      JobRecord record = JobRecord::from_json(nlohmann::json::parse(text), entry.path().string());
      // Only records filed under their own id: one kept aside for a reused id (".before-…") is history.
      if (fs::path(record_dir(root, record.job_id)).filename() != entry.path().filename()) continue;
      found.emplace_back(fs::last_write_time(file, error), std::move(record));
    } catch (const std::exception& problem) {
      std::cerr << "ezpz: warning: skipping unreadable record " << printable(file.string()) << ": " << problem.what()
                << "\n";
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<JobRecord> records;
  for (auto& item : found) records.push_back(std::move(item.second));
  return records;
}

std::string decisions_path(const std::string& record_dir) {
  return (fs::path(record_dir) / "decisions.jsonl").string();
}

void append_decision(const std::string& record_dir, const nlohmann::json& decision) {
  std::error_code error;
  fs::create_directories(record_dir, error);
  const std::string path = decisions_path(record_dir);
  FileDescriptor file = open_for_append(path, "'" + path + "' to record a failover decision",
                                        error ? "cannot create its directory: " + error.message() : "");
  // One write of one line with O_APPEND: a reader never sees half a decision.
  std::string line = decision.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  ssize_t written = ::write(file.get(), line.data(), line.size());
  if (written != static_cast<ssize_t>(line.size())) {
    throw UserError("cannot record a failover decision in '" + path +
                    "': " + (written < 0 ? std::string(std::strerror(errno)) : "the disk is full"));
  }
}

std::vector<nlohmann::json> read_decisions(const std::string& record_dir) {
  std::vector<nlohmann::json> decisions;
  const std::string path = decisions_path(record_dir);
  FileDescriptor file = open_regular_file(path, "'" + path + "'", Links::refuse);
  if (!file) return decisions;
  std::istringstream in(read_open_file(file, "'" + path + "'", k_max_record_bytes));
  std::string line;
  while (std::getline(in, line)) {
    auto decision = nlohmann::json::parse(line, nullptr, false);
    if (!decision.is_discarded() && decision.is_object()) decisions.push_back(std::move(decision));
  }
  return decisions;
}

std::optional<JobRecord> find_record(const std::string& root, const std::string& job_id) {
  fs::path file = fs::path(record_dir(root, job_id)) / "record.json";
  std::error_code error;
  if (!fs::exists(file, error)) {
    // Accept the short form of an id ("8414055" for "8414055.aurora-pbs-0001…").
    for (auto& record : list_records(root)) {
      if (starts_with(record.job_id, job_id + ".")) return record;
    }
    return std::nullopt;
  }
  std::string text = read_regular_file(file.string(), "the record of job '" + job_id + "' ('" + file.string() + "')",
                                       k_max_record_bytes, {}, Links::refuse);
  try {
    return JobRecord::from_json(nlohmann::json::parse(text), fs::path(file).parent_path().string());
  } catch (const nlohmann::json::exception& damage) {
    throw UserError("the record of job '" + job_id + "' is damaged: " + file.string() + ": " + damage.what(),
                    "the job's script is kept beside it (job.sh); pass --system to reach the job without its record");
  }
}

}  // namespace ezpz::core
