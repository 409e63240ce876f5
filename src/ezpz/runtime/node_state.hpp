// The scheduler's own word on the allocation's nodes (schedulers/<name>.yaml, node_state): the first
// kind of evidence spare-node failover acts on.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ezpz/profile/output_formats.hpp"
#include "ezpz/profile/scheduler.hpp"
#include "ezpz/runtime/node_names.hpp"
#include "ezpz/submit/process.hpp"

namespace ezpz::core {

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
