// Spare-node failover inside an allocation (docs/failover.md): run on all hosts but the spares; after
// a failed attempt, swap each node that evidence proves bad (the scheduler's node state, the profile's
// failure patterns in the output, a health probe) for a spare, and never a node without evidence.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ezpz/profile/system_profile.hpp"
#include "ezpz/runtime/launch.hpp"
#include "ezpz/runtime/node_names.hpp"
#include "ezpz/runtime/retry.hpp"

namespace ezpz::core {

struct FailoverPolicy {
  long spare_nodes = 0;        // kept in reserve: the hosts after the active ones in the allocation's list
  long active_nodes = 0;       // the first hosts of the list, which an attempt runs on; 0: all but the spares
  long retries = 0;            // attempts run again on the same hosts when nothing proves a node bad
  RetryPolicy delays;          // the wait before each attempt after the first (retries unused)
  long startup_seconds = 300;  // without `progress`: an attempt that lived this long got past start-up
  std::string progress;        // a regex: an attempt whose output matches it got past start-up
};

// One decision, as recorded with the job and printed on the console.
struct FailoverDecision {
  long attempt = 0;
  long time = 0;            // seconds since the epoch
  std::string action;       // start | ended | note | suspect | ignore | drop_spare | swap | retry | stop
  std::string node;         // swap, drop_spare: the node proven bad
  std::string replacement;  // swap: the spare that takes its place
  std::string source;       // swap, drop_spare, suspect: scheduler | pattern | probe
  std::string evidence;     // what the source said; for the other actions, what happened and why
  std::string reason;       // stop: success | no-spares | no-progress | no-time | retries-used | stopped | end-signal
  std::optional<int> code;  // ended, stop: the exit code

  nlohmann::json to_json() const;
  // A recorded decision (its time read back from the ISO form); fields that are missing or of
  // another type are left empty.
  static FailoverDecision from_json(const nlohmann::json& json);
  // "attempt 1: swap n2 for n3: scheduler: state DOWN (scontrol -o show node n1,n2,n3)".
  std::string text() const;
};

// What run_failover uses of the world, so that tests can drive it.
struct FailoverHooks {
  // Runs one attempt on `hosts` under `supervision` (whose on_output must see all the output).
  std::function<LaunchOutcome(const std::vector<std::string>& hosts, const Supervision& supervision)> attempt;
  // Evidence from the scheduler about `hosts`; `note` says why there is none when it could not ask.
  std::function<std::vector<Evidence>(const std::vector<std::string>& hosts, std::string& note)> node_state;
  // Evidence from the health probe of `hosts` (empty function: no probe).
  std::function<std::vector<Evidence>(const std::vector<std::string>& hosts, std::string& note)> probe;
  std::function<void(const FailoverDecision&)> record;  // each decision as it is made
  std::function<double()> now;                          // seconds since the epoch
  // Waits `seconds` (0: only looks) between attempts; returns a signal that asked ezpz launch to stop
  // meanwhile (INT, TERM, HUP, QUIT), if one did.
  std::function<std::optional<int>(double seconds)> wait;
};

struct FailoverResult {
  int code = 0;        // the last attempt's exit code
  std::string reason;  // as FailoverDecision::reason
};

// Runs attempts until one succeeds or the loop stops for a named reason: no-spares (more bad nodes
// than healthy spares), no-progress (two attempts in a row failed before getting past start-up with
// nothing proving a node bad), no-time (the allocation, ending at `allocation_end`, has less than the
// wait plus the start-up time left for another attempt), retries-used, stopped (a signal, or a closed
// output), end-signal. A source of evidence that throws is recorded as a note. Throws UserError when
// the hosts cannot hold the active nodes and the spares.
FailoverResult run_failover(const std::vector<std::string>& hosts, NodeNames& names, const Failover& failover,
                            const FailoverPolicy& policy, const Supervision& supervision, const FailoverHooks& hooks,
                            std::optional<long> allocation_end);

}  // namespace ezpz::core
