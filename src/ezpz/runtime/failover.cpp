// The failover loop: attempts, evidence, swaps, and the reason it stops.
#include "ezpz/runtime/failover.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>

#include "ezpz/runtime/output_evidence.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz {

nlohmann::json FailoverDecision::to_json() const {
  nlohmann::json out = {{"attempt", attempt}, {"time", iso_utc(time)}, {"action", action}};
  auto add = [&](const char* key, const std::string& value) {
    if (!value.empty()) out[key] = value;
  };
  add("node", node);
  add("replacement", replacement);
  add("source", source);
  add("evidence", evidence);
  add("reason", reason);
  if (code) out["code"] = *code;
  return out;
}

FailoverDecision FailoverDecision::from_json(const nlohmann::json& json) {
  FailoverDecision decision;
  auto text = [&](const char* key) {
    auto found = json.find(key);
    return found != json.end() && found->is_string() ? found->get<std::string>() : std::string();
  };
  if (auto attempt = json.find("attempt"); attempt != json.end() && attempt->is_number_integer()) {
    decision.attempt = attempt->get<long>();
  }
  decision.action = text("action");
  decision.node = text("node");
  decision.replacement = text("replacement");
  decision.source = text("source");
  decision.evidence = text("evidence");
  decision.reason = text("reason");
  return decision;
}

std::string FailoverDecision::text() const {
  std::string head = "attempt " + std::to_string(attempt) + ": ";
  if (action == "swap") return head + "swap " + node + " for " + replacement + ": " + source + ": " + evidence;
  if (action == "drop_spare") return head + "drop spare " + node + ": " + source + ": " + evidence;
  if (action == "stop") return head + "stop (" + reason + "): " + evidence;
  return head + (action == "ended" || action == "note" ? "" : action + ": ") + evidence;
}

namespace {

// The loop's state and its one way of recording a decision.
class Loop {
 public:
  Loop(const FailoverHooks& hooks) : m_hooks(hooks) {}

  void decide(FailoverDecision decision) {
    decision.attempt = attempt;
    decision.time = std::lround(m_hooks.now());
    m_hooks.record(decision);
  }
  FailoverResult stop(const std::string& reason, int code, const std::string& why) {
    FailoverDecision decision;
    decision.action = "stop";
    decision.reason = reason;
    decision.evidence = why;
    decision.code = code;
    decide(decision);
    return {code, reason};
  }

  long attempt = 1;

 private:
  const FailoverHooks& m_hooks;
};

// Whether an attempt got past start-up, and why it counts (or not) as having done so.
std::pair<bool, std::string> progress_of(const OutputEvidence& output, const FailoverPolicy& policy,
                                         const Supervision& supervision, const LaunchOutcome& outcome, double lived) {
  if (output.watches_progress()) {
    return {output.progress_seen(), output.progress_seen() ? "its output matched supervise.progress"
                                                           : "its output never matched supervise.progress"};
  }
  // An attempt the idle-output watchdog ended went silent that long before it ended.
  if (outcome.code == k_exit_idle_timeout) lived -= static_cast<double>(supervision.idle_timeout_seconds);
  bool past = lived >= static_cast<double>(policy.startup_seconds);
  return {past, std::string(past ? "it ran " : "it ran only ") + format_walltime(std::lround(std::max(lived, 0.0))) +
                    (past ? ", past " : " of ") + "the start-up time " + format_walltime(policy.startup_seconds)};
}

}  // namespace

FailoverResult run_failover(const std::vector<std::string>& hosts, NodeNames& names, const Failover& failover,
                            const FailoverPolicy& policy, const Supervision& supervision, const FailoverHooks& hooks,
                            std::optional<long> allocation_end) {
  long total = static_cast<long>(hosts.size());
  long active_count = policy.active_nodes > 0 ? policy.active_nodes : total - policy.spare_nodes;
  if (active_count < 1 || active_count + policy.spare_nodes > total) {
    throw UserError("the allocation has " + std::to_string(total) + " host(s): not enough for " +
                        (policy.active_nodes > 0 ? std::to_string(active_count) : std::string("one")) +
                        " active node(s) and " + std::to_string(policy.spare_nodes) + " spare(s)",
                    "ask the scheduler for the spares as well (supervise.spare_nodes adds them to the request)");
  }
  std::vector<std::string> active(hosts.begin(), hosts.begin() + active_count);
  std::deque<std::string> spares(hosts.begin() + active_count, hosts.begin() + active_count + policy.spare_nodes);

  Loop loop(hooks);
  long retries_used = 0;
  long without_progress = 0;
  for (;; ++loop.attempt) {
    OutputEvidence output(failover, names, policy.progress);
    Supervision watched = supervision;
    watched.on_output = [&](std::string_view bytes) { output.feed(bytes); };
    double started = hooks.now();
    LaunchOutcome outcome = hooks.attempt(active, watched);
    double lived = hooks.now() - started;
    output.finish();
    if (outcome.code == 0)
      return loop.stop("success", 0, "the attempt succeeded after " + format_walltime(std::lround(lived)));
    if (outcome.stopped_by_user) return loop.stop("stopped", outcome.code, outcome.why + ": not running it again");
    if (outcome.end_signal_sent) {
      return loop.stop("end-signal", outcome.code, "the ranks were told that the allocation is about to end");
    }
    auto [progress, progress_why] = progress_of(output, policy, supervision, outcome, lived);
    FailoverDecision ended;
    ended.action = "ended";
    ended.code = outcome.code;
    ended.evidence = outcome.why + " after " + format_walltime(std::lround(lived)) + "; " + progress_why;
    loop.decide(ended);

    // The evidence, each node's first: the scheduler's state, the output's patterns, the probe.
    std::vector<std::string> all(active.begin(), active.end());
    all.insert(all.end(), spares.begin(), spares.end());
    std::map<std::string, Evidence> bad;
    auto note = [&](const std::string& text) {
      if (text.empty()) return;
      FailoverDecision decision;
      decision.action = "note";
      decision.evidence = text;
      loop.decide(decision);
    };
    std::string why;
    auto from_scheduler = hooks.node_state(all, why);
    for (auto& evidence : from_scheduler) bad.emplace(evidence.host, evidence);
    if (why.empty() && from_scheduler.empty())
      why = "scheduler: none of the " + std::to_string(all.size()) + " node(s) is in a bad state";
    note(why);
    for (const auto& evidence : output.evidence()) bad.emplace(evidence.host, evidence);
    for (const auto& ignored : output.ignored()) {
      FailoverDecision decision;
      decision.action = "ignore";
      decision.evidence = ignored;
      loop.decide(decision);
    }
    if (hooks.probe) {
      std::vector<std::string> probed;
      for (const auto& host : all) {
        if (!bad.count(host)) probed.push_back(host);
      }
      why.clear();
      if (!probed.empty()) {
        auto from_probe = hooks.probe(probed, why);
        for (auto& evidence : from_probe) bad.emplace(evidence.host, evidence);
        if (why.empty() && from_probe.empty()) {
          why = "health probe: all " + std::to_string(probed.size()) + " node(s) answered, none short of devices";
        }
      }
      note(why);
    }

    for (auto spare = spares.begin(); spare != spares.end();) {
      auto found = bad.find(*spare);
      if (found == bad.end()) {
        ++spare;
        continue;
      }
      FailoverDecision decision;
      decision.action = "drop_spare";
      decision.node = *spare;
      decision.source = found->second.source;
      decision.evidence = found->second.detail;
      loop.decide(decision);
      spare = spares.erase(spare);
    }
    std::vector<size_t> failed;
    for (size_t i = 0; i < active.size(); ++i) {
      if (bad.count(active[i])) failed.push_back(i);
    }
    if (failed.size() > spares.size()) {
      std::vector<std::string> named;
      for (size_t i : failed)
        named.push_back(active[i] + " (" + bad[active[i]].source + ": " + bad[active[i]].detail + ")");
      return loop.stop("no-spares", outcome.code,
                       std::to_string(failed.size()) + " node(s) proven bad and " + std::to_string(spares.size()) +
                           " healthy spare(s) left: " + join(named, "; "));
    }
    if (!failed.empty()) {
      without_progress = 0;
      for (size_t i : failed) {
        const Evidence& evidence = bad[active[i]];
        FailoverDecision decision;
        decision.action = "swap";
        decision.node = active[i];
        decision.replacement = spares.front();
        decision.source = evidence.source;
        decision.evidence = evidence.detail;
        loop.decide(decision);
        active[i] = spares.front();
        spares.pop_front();
      }
    } else {
      without_progress = progress ? 0 : without_progress + 1;
      if (without_progress >= 2) {
        return loop.stop("no-progress", outcome.code,
                         "two attempts in a row failed before getting past start-up, and nothing proves a node bad");
      }
      if (retries_used >= policy.retries) {
        return loop.stop("retries-used", outcome.code,
                         "nothing proves a node bad, and the " + std::to_string(policy.retries) +
                             " retries on the same nodes are used up");
      }
      ++retries_used;
      FailoverDecision decision;
      decision.action = "retry";
      decision.evidence = "nothing proves a node bad: running again on the same nodes (retry " +
                          std::to_string(retries_used) + " of " + std::to_string(policy.retries) + ")";
      loop.decide(decision);
    }
    double delay = retry_delay(policy.delays, loop.attempt + 1);
    if (!cannot_finish(allocation_end, hooks.now(), delay, static_cast<double>(policy.startup_seconds)).empty()) {
      return loop.stop("no-time", outcome.code,
                       "not enough time left for another attempt to get past start-up (" +
                           format_walltime(policy.startup_seconds) + ", plus " + format_walltime(std::lround(delay)) +
                           " to wait): the allocation ends " +
                           (*allocation_end <= std::lround(hooks.now()) ? "now" : "at " + iso_utc(*allocation_end)));
    }
    if (delay > 0) hooks.sleep(delay);
  }
}

}  // namespace ezpz
