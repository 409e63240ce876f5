// Node states from scontrol and pbsnodes, one parser per node_state.format, in a table.
#include "ezpz/runtime/node_state.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>

#include "ezpz/runtime/hostlist.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

using NodeStates = std::vector<std::pair<std::string, std::vector<std::string>>>;

// scontrol -o show node: one line per node, "NodeName=n1 … State=IDLE+DRAIN …". A '*' after the base
// state means the node is not responding (sinfo(1), NODE STATE CODES).
NodeStates parse_scontrol(const std::string& out) {
  NodeStates nodes;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::string name, state;
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      if (word.rfind("NodeName=", 0) == 0) name = word.substr(9);
      if (word.rfind("State=", 0) == 0) state = word.substr(6);
    }
    if (name.empty() || state.empty()) continue;
    std::vector<std::string> states;
    for (std::string part : split(state, '+')) {
      if (!part.empty() && part.back() == '*') {
        part.pop_back();
        states.push_back("NOT_RESPONDING");
      }
      if (!part.empty()) states.push_back(to_upper(part));
    }
    nodes.emplace_back(name, states);
  }
  return nodes;
}

// pbsnodes -F json: {"nodes": {"x1": {"state": "down,offline", …}, "x9": {"x9": "Unknown node "}}}.
NodeStates parse_pbsnodes(const std::string& out) {
  NodeStates nodes;
  auto json = nlohmann::json::parse(out, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return nodes;
  auto list = json.find("nodes");
  if (list == json.end() || !list->is_object()) return nodes;
  for (const auto& [name, node] : list->items()) {
    if (!node.is_object()) continue;
    auto state = node.find("state");
    if (state == node.end() || !state->is_string()) continue;
    std::vector<std::string> states;
    for (const auto& part : split(state->get<std::string>(), ',')) {
      if (!part.empty()) states.push_back(to_upper(part));
    }
    nodes.emplace_back(name, states);
  }
  return nodes;
}

using JobNodes = std::optional<std::vector<std::string>>;

// scontrol -o show job: "… NodeList=n[1,3] …" (Slurm host list syntax).
JobNodes slurm_job_nodes(const std::string& out) {
  for (const auto& word : split_words(out)) {
    if (word.rfind("NodeList=", 0) != 0 || word.size() == 9 || word == "NodeList=(null)") continue;
    try {
      return expand_hostlist(word.substr(9), "NodeList");
    } catch (const UserError&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// qstat -f -F json: {"Jobs": {"ID": {"exec_host": "x1/0*2+x2/0*2", …}}}.
JobNodes pbs_job_nodes(const std::string& out) {
  auto json = nlohmann::json::parse(out, nullptr, false);
  if (json.is_discarded() || !json.is_object() || !json.contains("Jobs") || !json["Jobs"].is_object() ||
      json["Jobs"].empty()) {
    return std::nullopt;
  }
  const auto& job = json["Jobs"].begin().value();
  if (!job.is_object() || !job.contains("exec_host") || !job["exec_host"].is_string()) return std::nullopt;
  std::vector<std::string> nodes;
  for (const auto& chunk : split(job["exec_host"].get<std::string>(), '+')) {
    std::string node = chunk.substr(0, chunk.find('/'));
    if (!node.empty() && std::find(nodes.begin(), nodes.end(), node) == nodes.end()) nodes.push_back(node);
  }
  return nodes.empty() ? std::nullopt : JobNodes(nodes);
}

struct Format {
  std::function<NodeStates(const std::string&)> nodes;
  std::function<JobNodes(const std::string&)> job_nodes;
};
const std::map<std::string, Format> k_formats = {
    {"slurm-scontrol", {parse_scontrol, slurm_job_nodes}},
    {"pbs-json", {parse_pbsnodes, pbs_job_nodes}},
};

// "scontrol -o show node n[1-3]", the first words of a long command, for the evidence.
std::string shown_command(const std::vector<std::string>& argv) {
  if (argv.size() <= 6) return join(argv, " ");
  return join(std::vector<std::string>(argv.begin(), argv.begin() + 6), " ") + " …";
}

}  // namespace

NodeStates parse_node_states(const std::string& format, const std::string& out) {
  auto found = k_formats.find(format);
  return found == k_formats.end() ? NodeStates{} : found->second.nodes(out);
}

JobNodes parse_job_nodes(const std::string& format, const std::string& out) {
  auto found = k_formats.find(format);
  return found == k_formats.end() ? std::nullopt : found->second.job_nodes(out);
}

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
      argv.push_back(replace_all(word, "{hosts}", join(keys, ",")));
    }
  }
  std::vector<Evidence> evidence;
  std::vector<std::string> notes;
  if (!job_id.empty() && !query.job_nodes.empty()) {
    std::vector<std::string> job_argv;
    for (const auto& word : query.job_nodes) job_argv.push_back(replace_all(word, "{job_id}", job_id));
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
