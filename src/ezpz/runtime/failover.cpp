// The failover loop: attempts, evidence, swaps, and the reason it stops.
#include "ezpz/runtime/failover.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <deque>
#include <map>
#include <set>

#include "ezpz/runtime/output_evidence.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/hostlist.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {

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
  auto number = [&](const char* key) -> std::optional<long> {
    auto found = json.find(key);
    if (found == json.end() || !found->is_number_integer()) return std::nullopt;
    return found->get<long>();
  };
  decision.attempt = number("attempt").value_or(0);
  if (auto code = number("code")) decision.code = static_cast<int>(*code);
  std::tm parts{};
  if (std::string time = text("time"); strptime(time.c_str(), "%Y-%m-%dT%H:%M:%SZ", &parts) != nullptr) {
    decision.time = static_cast<long>(timegm(&parts));
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
  if (action == "suspect") return head + "suspect " + node + " (not evicted on this alone): " + evidence;
  if (action == "stop") return head + "stop (" + reason + "): " + evidence;
  return head + (action == "ended" || action == "note" || action == "start" ? "" : action + ": ") + evidence;
}

namespace {

// The loop's state: the hosts, the record, and the steps between two attempts.
class Loop {
 public:
  Loop(const std::vector<std::string>& hosts, const FailoverPolicy& policy, const FailoverHooks& hooks)
      : m_hooks(hooks) {
    long total = static_cast<long>(hosts.size());
    long count = policy.active_nodes > 0 ? policy.active_nodes : total - policy.spare_nodes;
    if (count < 1 || count + policy.spare_nodes > total) {
      throw UserError("the allocation has " + std::to_string(total) + " host(s): not enough for " +
                          (policy.active_nodes > 0 ? std::to_string(count) : std::string("one")) +
                          " active node(s) and " + std::to_string(policy.spare_nodes) + " spare(s)",
                      "ask the scheduler for the spares as well (supervise.spare_nodes adds them to the request)");
    }
    active.assign(hosts.begin(), hosts.begin() + count);
    spares.assign(hosts.begin() + count, hosts.begin() + count + policy.spare_nodes);
  }

  void decide(FailoverDecision decision) {
    decision.attempt = attempt;
    decision.time = std::lround(m_hooks.now());
    m_hooks.record(decision);
  }
  void say(const std::string& action, const std::string& text) {
    if (text.empty()) return;
    FailoverDecision decision;
    decision.action = action;
    decision.evidence = text;
    decide(decision);
  }
  void about(const std::string& action, const std::string& node, const Evidence& evidence,
             const std::string& replacement = {}) {
    FailoverDecision decision;
    decision.action = action;
    decision.node = node;
    decision.replacement = replacement;
    decision.source = evidence.source;
    decision.evidence = evidence.detail;
    decide(decision);
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

  // Each host's first evidence: the scheduler's, then the output's, then the probe's (which asks
  // only the nodes nothing proves bad yet). A source that fails is a note.
  std::map<std::string, Evidence> gather(const OutputEvidence& output) {
    std::vector<std::string> all(active.begin(), active.end());
    all.insert(all.end(), spares.begin(), spares.end());
    std::map<std::string, Evidence> bad;
    ask(
        "scheduler",
        [&](std::string& note) {
          auto found = m_hooks.node_state(all, note);
          if (note.empty() && found.empty())
            note = "scheduler: none of the " + std::to_string(all.size()) + " node(s) is bad";
          return found;
        },
        bad);
    take_output(output.evidence(), bad);
    for (const auto& suspect : output.suspects()) about("suspect", suspect.host, suspect);
    for (const auto& ignored : output.ignored()) say("ignore", ignored);
    if (m_hooks.probe) {
      std::vector<std::string> probed;
      for (const auto& host : all) {
        if (!bad.count(host)) probed.push_back(host);
      }
      if (!probed.empty()) {
        ask(
            "health probe",
            [&](std::string& note) {
              auto found = m_hooks.probe(probed, note);
              if (note.empty() && found.empty()) {
                note =
                    "health probe: all " + std::to_string(probed.size()) + " node(s) answered, none short of devices";
              }
              return found;
            },
            bad);
      }
    }
    return bad;
  }

  // Drops the spares proven bad.
  void drop_bad_spares(const std::map<std::string, Evidence>& bad) {
    for (auto spare = spares.begin(); spare != spares.end();) {
      auto found = bad.find(*spare);
      if (found == bad.end()) {
        ++spare;
        continue;
      }
      about("drop_spare", *spare, found->second);
      spare = spares.erase(spare);
    }
  }

  // Evidence against hosts that are neither active nor spare (swapped out before, or left out by
  // --nodes) changes nothing: it is recorded as such.
  void note_others(const std::map<std::string, Evidence>& bad) {
    for (const auto& [host, evidence] : bad) {
      bool used = std::find(active.begin(), active.end(), host) != active.end();
      if (used || std::find(spares.begin(), spares.end(), host) != spares.end()) continue;
      say("ignore", host + " is not in use (" + evidence.source + ": " + evidence.detail + ")");
    }
  }

  long attempt = 1;
  std::vector<std::string> active;
  std::deque<std::string> spares;

 private:
  // What the output's patterns prove. Lines that name every active node prove nothing about one: a
  // failure everywhere, or the launcher's teardown after one rank failed (srun reports every node's
  // tasks "Killed" when they outlive SIGTERM and slurmstepd kills them after KillWait; seen on the
  // test cluster). Then each named node is only a suspect, probed like the others, as the health
  // probe treats a launch where no node answers.
  void take_output(const std::vector<Evidence>& found, std::map<std::string, Evidence>& bad) {
    std::set<std::string> named;
    for (const auto& evidence : found) named.insert(evidence.host);
    bool everyone = !found.empty() && std::all_of(active.begin(), active.end(),
                                                  [&](const std::string& host) { return named.count(host) > 0; });
    if (!everyone) {
      for (const auto& evidence : found) bad.emplace(evidence.host, evidence);
      return;
    }
    say("note", "the output names every active node (" + compress_hostlist(active) +
                    "): what blames all of them proves nothing about one (a failure everywhere, or the "
                    "launcher stopping the other ranks); they are suspects only");
    for (const auto& evidence : found) {
      if (!bad.count(evidence.host)) about("suspect", evidence.host, evidence);
    }
  }

  template <class Ask>
  void ask(const std::string& source, Ask&& query, std::map<std::string, Evidence>& bad) {
    std::string note;
    try {
      for (auto& evidence : query(note)) bad.emplace(evidence.host, evidence);
    } catch (const std::exception& error) {
      note = source + " failed: " + error.what();
    }
    say("note", note);
  }

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
  if (outcome.idle_timeout) lived -= static_cast<double>(supervision.idle_timeout_seconds);
  bool past = lived >= static_cast<double>(policy.startup_seconds);
  return {past, std::string(past ? "it ran " : "it ran only ") + format_walltime(std::lround(std::max(lived, 0.0))) +
                    (past ? ", past " : " of ") + "the start-up time " + format_walltime(policy.startup_seconds)};
}

}  // namespace

FailoverResult run_failover(const std::vector<std::string>& hosts, NodeNames& names, const Failover& failover,
                            const FailoverPolicy& policy, const Supervision& supervision, const FailoverHooks& hooks,
                            std::optional<long> allocation_end) {
  Loop loop(hosts, policy, hooks);
  OutputEvidence output(failover, names, policy.progress);
  loop.say("start", std::to_string(loop.active.size()) + " active node(s) (" + compress_hostlist(loop.active) +
                        ") and " + std::to_string(loop.spares.size()) + " spare(s) (" +
                        (loop.spares.empty() ? std::string("none")
                                             : compress_hostlist({loop.spares.begin(), loop.spares.end()})) +
                        ")");
  if (failover.patterns.empty()) {
    // Said once, so that "nothing matched" is never mistaken for "nothing could match" (the Python
    // ezpz's Polaris failover was blind for months that way: saforem2/ezpz#229).
    loop.say("note",
             "the system's profile has no failover.patterns: no line of the output can prove a node bad, only "
             "the scheduler and the health probe can (docs/failover.md, \"Adding a pattern to a profile\")");
  }
  long retries_used = 0;
  long without_progress = 0;
  for (;; ++loop.attempt) {
    output.reset();
    Supervision watched = supervision;
    watched.on_output = [&](std::string_view bytes) { output.feed(bytes); };
    double started = hooks.now();
    LaunchOutcome outcome = hooks.attempt(loop.active, watched);
    double lived = hooks.now() - started;
    output.finish();
    if (outcome.code == 0) {
      return loop.stop("success", 0, "the attempt succeeded after " + format_walltime(std::lround(lived)));
    }
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

    std::map<std::string, Evidence> bad = loop.gather(output);
    loop.note_others(bad);
    loop.drop_bad_spares(bad);
    std::vector<size_t> failed;
    for (size_t i = 0; i < loop.active.size(); ++i) {
      if (bad.count(loop.active[i])) failed.push_back(i);
    }
    if (failed.size() > loop.spares.size()) {
      std::vector<std::string> named;
      for (size_t i : failed) {
        const Evidence& evidence = bad[loop.active[i]];
        named.push_back(loop.active[i] + " (" + evidence.source + ": " + evidence.detail + ")");
      }
      return loop.stop("no-spares", outcome.code,
                       std::to_string(failed.size()) + " node(s) proven bad and " + std::to_string(loop.spares.size()) +
                           " healthy spare(s) left: " + join(named, "; "));
    }
    if (!failed.empty()) {
      without_progress = 0;  // a new host list is a new situation
      for (size_t i : failed) {
        loop.about("swap", loop.active[i], bad[loop.active[i]], loop.spares.front());
        loop.active[i] = loop.spares.front();
        loop.spares.pop_front();
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
      loop.say("retry", "nothing proves a node bad: running again on the same nodes (retry " +
                            std::to_string(retries_used) + " of " + std::to_string(policy.retries) + ")");
    }
    double delay = retry_delay(policy.delays, loop.attempt + 1);
    if (!cannot_finish(allocation_end, hooks.now(), delay, static_cast<double>(policy.startup_seconds)).empty()) {
      return loop.stop("no-time", outcome.code,
                       "not enough time left for another attempt to get past start-up (" +
                           format_walltime(policy.startup_seconds) + ", plus " + format_walltime(std::lround(delay)) +
                           " to wait): the allocation ends " +
                           (*allocation_end <= std::lround(hooks.now()) ? "now" : "at " + iso_utc(*allocation_end)));
    }
    if (auto signal = hooks.wait(delay)) {
      return loop.stop("stopped", 128 + *signal,
                       std::string("signal ") + strsignal(*signal) + " before the next attempt: not running it again");
    }
  }
}

}  // namespace ezpz::core
