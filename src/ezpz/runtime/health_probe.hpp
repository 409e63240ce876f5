// The health probe: one short task per node, started through the launcher, that answers with the
// node's name and the devices it sees (`ezpz probe`). A node that does not answer in time while others
// do, or sees fewer devices than the others, is evidence.
#pragma once

#include <string>
#include <vector>

#include "ezpz/profile/system_profile.hpp"
#include "ezpz/runtime/node_names.hpp"

namespace ezpz::core {

// What `ezpz probe` prints on its node: "ezpz-probe node=n1 devices=xpu:12".
std::string probe_answer(const std::string& node, const Devices& seen);

// Evidence from the probe's output `out` over `hosts`: each host without an answer, when at least one
// host answered (otherwise the launch itself failed, which proves nothing about a node: `note` says
// so), and each host that sees fewer devices than the most any host sees. `why_ended` describes how
// the probe ended ("no answer within 60 s"), for the evidence's detail.
std::vector<Evidence> probe_evidence(const std::vector<std::string>& hosts, const std::string& out,
                                     const std::string& why_ended, const NodeNames& names, std::string& note);

}  // namespace ezpz::core
