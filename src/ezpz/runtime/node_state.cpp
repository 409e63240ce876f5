// Asking the scheduler about the allocation's nodes (node_state), read by profile/output_formats.
#include "ezpz/runtime/node_state.hpp"

#include <algorithm>

#include "ezpz/profile/output_formats.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/hostlist.hpp"
#include "ezpz/util/option_template.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

// "scontrol -o show node n[1-3]", the first words of a long command, for the evidence.
std::string shown_command(const std::vector<std::string>& argv) {
  if (argv.size() <= 6) return join(argv, " ");
  return join(std::vector<std::string>(argv.begin(), argv.begin() + 6), " ") + " …";
}

}  // namespace

std::vector<Evidence> node_state_evidence(const Scheduler& scheduler, const std::vector<std::string>& hosts,
                                          const std::string& job_id, const NodeNames& names, ProcessRunner& runner,
                                          std::string& note) {
  const NodeStateQuery& query = scheduler.node_state;
  if (query.command.empty() || hosts.empty()) {
    note = query.command.empty() ? "scheduler '" + scheduler.name + "' cannot be asked about nodes" : "";
    return {};
  }
  std::vector<std::string> keys;
  for (const auto& host : hosts) keys.push_back(names.key(host));
  std::vector<std::string> argv;
  for (const auto& word : query.command) {
    if (word == "{each_host}") {
      argv.insert(argv.end(), keys.begin(), keys.end());
    } else {
      argv.push_back(expand_placeholders(word, {{"hosts", join(keys, ",")}}));
    }
  }
  std::vector<Evidence> evidence;
  std::vector<std::string> notes;
  if (!job_id.empty() && !query.job_nodes.empty()) {
    std::vector<std::string> job_argv;
    for (const auto& word : query.job_nodes) job_argv.push_back(expand_placeholders(word, {{"job_id", job_id}}));
    ProcessResult result = runner.run(job_argv);
    if (auto nodes = parse_job_nodes(query.format, result.out)) {
      std::vector<std::string> kept;
      for (const auto& node : *nodes) kept.push_back(names.key(node));
      for (const auto& host : hosts) {
        if (std::find(kept.begin(), kept.end(), names.key(host)) != kept.end()) continue;
        evidence.push_back(
            {host, "scheduler",
             "no longer in the job's nodes (" + compress_hostlist(*nodes) + ", from " + shown_command(job_argv) + ")"});
      }
    } else {
      notes.push_back("no node list of job " + job_id + " from '" + shown_command(job_argv) + "' (exit code " +
                      std::to_string(result.exit_code) + ")");
    }
  }
  ProcessResult result = runner.run(argv);
  NodeStates nodes = parse_node_states(query.format, result.out);
  std::string asked = shown_command(argv);
  if (nodes.empty()) {
    notes.push_back("no node states from '" + asked + "' (exit code " + std::to_string(result.exit_code) + ")");
  }
  for (const auto& [name, states] : nodes) {
    auto host = names.host_named(name);
    if (!host) continue;
    std::vector<std::string> bad;
    for (const auto& state : states) {
      if (std::find(query.bad.begin(), query.bad.end(), state) != query.bad.end()) bad.push_back(state);
    }
    if (bad.empty()) continue;
    evidence.push_back({*host, "scheduler", "state " + join(states, "+") + " (" + asked + ")"});
  }
  note = join(notes, "; ");
  return evidence;
}

}  // namespace ezpz::core
