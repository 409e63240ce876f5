// A batch scheduler described as data (schedulers/<name>.yaml): directive syntax, tools, job variables.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ezpz/profile/job_state.hpp"
#include "ezpz/util/env_lookup.hpp"
#include "ezpz/util/source.hpp"

namespace ezpz::core {

// Named option templates in output order; a nullopt value removes the name (see merge_templates).
using NamedTemplates = std::vector<std::pair<std::string, std::optional<std::string>>>;

// `overlay` over `base`: same name replaces in place (nullopt removes), new names are appended.
void merge_templates(NamedTemplates& base, const NamedTemplates& overlay);

// How the scheduler reads the words of a directive line (schedulers/<name>.yaml, `options:`): its
// getopt table, as data. parse_directive (profile/directive_options.hpp) reads a line with it.
struct OptionTable {
  enum class Value { none, required, optional };  // getopt's no_argument, required_argument, optional_argument
  std::map<char, Value> short_options;            // from a getopt string: "a:b::c"
  std::map<std::string, Value> long_options;      // getopt_long names, without "--"
  bool long_prefixes = false;                     // getopt_long also accepts an unambiguous prefix
  std::vector<std::string> lists;                 // options whose value is name=value,…: "-l" sets "-l walltime"
  bool list_names_ignore_case = false;            // "-l Walltime" is "-l walltime" (PBS)
  std::map<std::string, std::string> same_as;     // another spelling → the option's one name ("-N" → "--nodes")

  bool empty() const { return short_options.empty() && long_options.empty(); }
};

// How to ask the scheduler about nodes (schedulers/<name>.yaml, `node_state:`): spare-node failover
// takes a node in one of the `bad` states as proven bad.
struct NodeStateQuery {
  // {hosts}: the hosts asked about, comma-separated; the word {each_host}: one word per host
  std::vector<std::string> command;
  std::string format;            // how to read the answer (profile/output_formats.hpp): slurm-scontrol | pbs-json
  std::vector<std::string> bad;  // states (upper case) that prove a node bad
  // The job's nodes now ({job_id}), read in `format`: a host of the allocation the scheduler has taken
  // out of the job (Slurm does so with a failed node of a --no-kill job) is bad.
  std::vector<std::string> job_nodes;
};

// How to list the jobs the scheduler holds (schedulers/<name>.yaml, `job_list:`): ezpz doctor counts
// them against the queues' caps (profile/queue_caps.hpp).
struct JobListQuery {
  std::vector<std::string> command;  // every job the server shows, of every user
  std::string format;                // how to read the answer (profile/output_formats.hpp): columns | pbs-json
  std::vector<std::string> columns;  // format columns: what each column is (job_id, user, account, queue, state)
};

struct Scheduler {
  std::string name;  // file stem: "pbs", "slurm", "none"
  std::string description;
  std::string template_name;     // templates/<template_name>.sh.mustache
  std::string directive_prefix;  // "#PBS", "#SBATCH", "" for none
  NamedTemplates directives;
  std::map<std::string, std::string> mail_events;  // begin/end/fail → scheduler letters or words
  std::string mail_events_separator;
  std::string workdir_variable;  // where the job must `cd` first (PBS starts in $HOME); "" = already there
  // What the scheduler tells its jobs, by key (job_id, nodefile, nodelist, end_time, submit_dir, restart_count): the
  // variables that may hold it, the first one set wins (Slurm: SLURM_STEP_NODELIST, then SLURM_JOB_NODELIST).
  std::map<std::string, std::vector<std::string>> job_env;
  std::vector<std::string> submit;
  std::vector<std::string> submit_hold;      // added to hold the job
  std::string job_id_pattern;                // first group of a match on the submit output = the job id
  std::vector<std::string> status;           // {job_id}
  std::string status_format;                 // how to read `status` output (profile/output_formats.hpp)
  std::vector<std::string> status_columns;   // status_format columns: what each column is (state, exit_code …)
  std::vector<std::string> status_fallback;  // asked when `status` no longer knows the job
  std::string status_fallback_format;
  std::map<std::string, JobState> states;  // scheduler state → ezpz's (profile/job_state.hpp)
  std::vector<std::string> never_starts;   // reasons of a pending job that will never start
  std::vector<std::string> held_reasons;   // reasons of a pending job that is held (until released)
  std::vector<std::string> unknown_job;    // what a failed `status` prints for a job it does not know (any more)
  std::vector<std::string> cancel;
  std::vector<std::string> ping;  // a cheap command that only succeeds when the scheduler answers (ezpz doctor)
  NodeStateQuery node_state;      // empty command: the scheduler cannot be asked
  JobListQuery job_list;          // empty command: jobs cannot be counted
  std::string default_output;     // where output goes without `output:` ({name}, {job_number})
  std::string default_error;      // where stderr goes without `error:`; "" = into the output file
  std::string output_note;        // why a running job's output file may not exist yet ("" = no reason)
  // A directive that joins the job's two streams, as "<option> <value>" ("-j oe"), and the file that
  // gets both: "output" or "error". Read from the scripts users write (submit/batch_script.hpp).
  std::vector<std::pair<std::string, std::string>> joins;
  std::map<std::string, long> max_length;  // value_rules.<key>.max_length
  OptionTable options;                     // empty for none: nothing reads directive lines
  SourceRef source;

  // Whether it has a directive named `name` (a spec key such as "walltime" or "supervise.requeue").
  bool has_directive(std::string_view name) const;
  // The first variable job_env names for `key` ("" when none): the one ezpz's scripts read.
  std::string job_variable(std::string_view key) const;
  // The first variable of job_env's `key` that `env` sets, else job_variable(key).
  std::string job_variable(std::string_view key, const EnvLookup& env) const;
  // Whether it ends a job at its walltime (it has a walltime directive); 'none' does not.
  bool ends_at_walltime() const { return has_directive("walltime"); }
};

// Where a job finds what its scheduler told it, from every scheduler's job_env, in catalog order: the
// runtime reads the allocation's hosts and the job id with these (runtime/allocation.hpp).
struct JobVariables {
  struct Hosts {
    std::string variable;
    bool is_file;  // a node file (one host per line, PBS), else a host list (Slurm: "nid[1-4]")
  };
  std::vector<Hosts> hosts;            // job_env.nodefile and job_env.nodelist
  std::vector<std::string> job_ids;    // job_env.job_id
  std::vector<std::string> end_times;  // job_env.end_time: when the allocation ends (Unix seconds)
};
JobVariables job_variables(const std::vector<const Scheduler*>& schedulers);

// The keys a scheduler's job_env may have.
const std::vector<std::string>& job_env_keys();

}  // namespace ezpz::core
