// A submitted job's record on disk (<records root>/<job id>/): the exact script, the resolved job and how
// to find it again (scheduler, output paths), so status, cancel and logs work later.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ezpz::core {

struct JobRecord {
  std::string job_id;
  std::string scheduler;  // schedulers/<name>.yaml
  std::string system;
  std::string name;
  std::string submit_dir;
  std::vector<std::string> submit_command;
  std::string output;        // absolute path of the job's standard output ("" when unknown)
  std::string error;         // absolute path of its standard error ("" when joined with output)
  std::string submitted_at;  // UTC, ISO 8601
  std::string dir;           // the record directory itself

  nlohmann::json to_json() const;
  static JobRecord from_json(const nlohmann::json& json, const std::string& dir);
};

// Where records live, one place per user so that status, logs and cancel find a job from any
// directory: `flag` (--records), else $EZPZ_RECORDS_DIR, else $XDG_STATE_HOME/ezpz/jobs, else
// ~/.local/state/ezpz/jobs. Throws UserError when none of them is set.
std::string records_root(const std::string& flag);

// Why `id` cannot be a job's id, or "": what ezpz passes to scheduler commands and names records after
// must be at most k_max_job_id_length characters of letters, digits and ._[];+- (the ids PBS, Slurm and
// Flux give), and start with a letter or digit: an id starting with '-' would be an option of qdel or
// scancel, and "..", "/" would name directories outside the records.
std::string job_id_problem(std::string_view id);

// The directory for a job id in `root` (ids are made file-name safe).
std::string record_dir(const std::string& root, const std::string& job_id);

// Every record under `root`, oldest first; a record that cannot be read (or is not a regular file:
// a link, a FIFO) is skipped with a warning.
std::vector<JobRecord> list_records(const std::string& root);

// The failover decisions `ezpz launch --spare-nodes` recorded for a job, one JSON object per line, in
// its record directory (docs/failover.md).
std::string decisions_path(const std::string& record_dir);

// Appends one decision to the job's record directory, making the directory when the job was not
// submitted by ezpz. Throws UserError when it cannot be written, or when decisions.jsonl is not a
// regular file (a link is never followed, a FIFO never waited for: util/file.hpp, open_for_append).
void append_decision(const std::string& record_dir, const nlohmann::json& decision);

// The decisions recorded in `record_dir`, oldest first; none when there are none. A line that is not
// a JSON object is skipped. Throws UserError when decisions.jsonl is not a regular file (a link, a
// FIFO) or holds more than k_max_record_bytes.
std::vector<nlohmann::json> read_decisions(const std::string& record_dir);

// The record of `job_id` under `root`, if there is one. Throws UserError when its record.json is not a
// regular file (a link, a FIFO), is too large or is damaged.
std::optional<JobRecord> find_record(const std::string& root, const std::string& job_id);

}  // namespace ezpz::core
