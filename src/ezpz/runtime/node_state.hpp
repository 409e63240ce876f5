// The scheduler's own word on the allocation's nodes (schedulers/<name>.yaml, node_state): the first
// kind of evidence spare-node failover acts on.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ezpz/profile/scheduler.hpp"
#include "ezpz/runtime/node_names.hpp"
#include "ezpz/submit/process.hpp"

namespace ezpz::core {

// Each node of a node_state answer in `format` (slurm-scontrol | pbs-json): its name and its states,
// upper case ("DOWN", "NOT_RESPONDING"; Slurm's "DOWN*+DRAIN" is DOWN, NOT_RESPONDING, DRAIN). A node
// without a state (PBS: "Unknown node") is left out; an answer that cannot be read gives none.
std::vector<std::pair<std::string, std::vector<std::string>>> parse_node_states(const std::string& format,
                                                                                const std::string& out);

// The nodes of a job from the scheduler's answer about it in `format`: Slurm's NodeList (a host list),
// PBS's exec_host. nullopt when the answer does not say.
std::optional<std::vector<std::string>> parse_job_nodes(const std::string& format, const std::string& out);

// Asks the scheduler about `hosts` with its node_state command, run by `runner` ({hosts}: their
// identities comma-separated; {each_host}: one word each). Every host in one of the scheduler's bad
// states is evidence ("state DOWN+NOT_RESPONDING (scontrol -o show node n2)"), and, with a `job_id`,
// each host the scheduler has taken out of the job (node_state.job_nodes). When the scheduler cannot
// be asked or its answer not read, `note` says why and nothing is evidence. Never throws for what the
// scheduler does.
std::vector<Evidence> node_state_evidence(const Scheduler& scheduler, const std::vector<std::string>& hosts,
                                          const std::string& job_id, const NodeNames& names, ProcessRunner& runner,
                                          std::string& note);

}  // namespace ezpz::core
