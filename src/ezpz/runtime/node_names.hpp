// Matching the names and addresses that logs and schedulers give for a node to the allocation's hosts.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ezpz/profile/system_profile.hpp"
#include "ezpz/util/regex.hpp"

namespace ezpz::core {

// What says a node is bad: which source, what it said. Spare-node failover acts on nothing else.
struct Evidence {
  std::string host;    // the allocation's name for the node
  std::string source;  // scheduler | pattern | probe
  std::string detail;  // "State=DOWN+NOT_RESPONDING", "line: x1: shepherd died from signal 9", …
};

// The allocation's hosts by their identity: the first group of the profile's failover.node_key, else
// (no key, or a name it does not match) the name up to its first dot (x1921c1s0b0n0 for
// "x1921c1s0b0n0-hsn0.hsn.cm.sunspot.alcf.anl.gov").
class NodeNames {
 public:
  // Throws UserError at the profile's failover.node_key when it is not a regular expression.
  NodeNames(const std::vector<std::string>& hosts, const Failover& failover);

  // The allocation's host that `name` (a host name in any of its forms) stands for, if any.
  std::optional<std::string> host_named(const std::string& name) const;

  // The allocation's host with IP address `address`, from the addresses its names resolve to here
  // (resolved once, at the first call). nullopt when none has it, or more than one does.
  std::optional<std::string> host_at(const std::string& address);

  // The identity of a name: the node key's first group, or the name up to its first dot when there is
  // no node key or it does not match.
  std::string key(const std::string& name) const;

 private:
  std::vector<std::string> m_hosts;
  std::optional<Regex> m_node_key;
  std::map<std::string, std::string> m_by_key;
  std::optional<std::map<std::string, std::string>> m_by_address;
};

}  // namespace ezpz::core
