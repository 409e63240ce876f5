// The `supervise:` keys: their checks against the walltime, the default signal, and the options they
// become on the `ezpz launch` line of a rendered script.
#include "ezpz/resolve/resolver.hpp"
#include "ezpz/util/limits.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {

void Resolver::resolve_supervise() {
  SuperviseSpec& supervise = job.spec.supervise;
  if (supervise.requeue && !job.scheduler->has_directive("supervise.requeue") && !inputs.for_launch) {
    d.error(at(supervise.requeue->origin), "'supervise.requeue' needs a scheduler that requeues jobs, and system '" +
                                               job.profile->name + "' (scheduler " + job.scheduler->name +
                                               ") has none");
  }
  // Keys that shape spare-node failover mean nothing without spares.
  const std::pair<const char*, const Origin*> failover_keys[] = {
      {"supervise.progress", supervise.progress ? &supervise.progress->origin : nullptr},
      {"supervise.startup", supervise.startup ? &supervise.startup->origin : nullptr},
      {"supervise.probe_timeout", supervise.probe_timeout ? &supervise.probe_timeout->origin : nullptr},
  };
  for (const auto& [key, origin] : failover_keys) {
    if (origin == nullptr || supervise.spare_nodes) continue;
    d.error(at(*origin), "'" + std::string(key) + "' is set, but not 'supervise.spare_nodes'",
            "it shapes spare-node failover: add supervise.spare_nodes: 1 (docs/failover.md)");
  }
  // The scheduler is asked for nodes and spares together: the sum has the cap nodes alone have.
  if (supervise.spare_nodes && job.spec.nodes && requested_nodes() > k_max_count) {
    d.error(at(supervise.spare_nodes->origin),
            "nodes " + std::to_string(job.spec.nodes->value) + " + supervise.spare_nodes " +
                std::to_string(supervise.spare_nodes->value) + " is over the limit of " + std::to_string(k_max_count) +
                " nodes",
            "ask for fewer spares: a spare or two per hundred nodes is usual (docs/failover.md)");
  }
  if (supervise.signal && !supervise.signal_before) {
    d.error(at(supervise.signal->origin), "'supervise.signal' is set, but not 'supervise.signal_before'",
            "add supervise.signal_before: 2m (how long before the walltime ends the ranks get the signal)");
  }
  if (!supervise.signal_before) return;
  if (!supervise.signal) supervise.signal = Sourced<std::string>{"USR2", default_value("when signal_before is set")};
  if (!job.scheduler->ends_at_walltime()) {
    d.error(at(supervise.signal_before->origin),
            "'supervise.signal_before' needs a walltime that ends the job, and system '" + job.profile->name +
                "' (scheduler " + job.scheduler->name + ") has none",
            "drop it here, or use a system with a scheduler (see 'ezpz systems list')");
    return;
  }
  const auto& walltime = *job.spec.walltime;
  if (supervise.signal_before->value >= walltime.value) {
    d.error(at(supervise.signal_before->origin),
            "'supervise.signal_before' (" + format_walltime(supervise.signal_before->value) +
                ") is not shorter than the walltime (" + format_walltime(walltime.value) +
                "): the signal would come before the job starts",
            "ask for the signal a few minutes before the end, e.g. supervise.signal_before: 5m");
  }
}

std::vector<std::string> supervise_options(const JobSpec& spec) {
  const SuperviseSpec& supervise = spec.supervise;
  std::vector<std::string> words;
  if (supervise.timeout) words.insert(words.end(), {"--timeout", format_walltime(supervise.timeout->value)});
  if (supervise.retries) words.insert(words.end(), {"--retries", std::to_string(supervise.retries->value)});
  if (supervise.requeue) words.insert(words.end(), {"--max-restarts", std::to_string(supervise.requeue->value)});
  if (supervise.retry_delay) {
    words.insert(words.end(), {"--retry-delay", std::to_string(supervise.retry_delay->value)});
  }
  if (supervise.spare_nodes) words.insert(words.end(), {"--spare-nodes", std::to_string(supervise.spare_nodes->value)});
  if (supervise.progress) words.insert(words.end(), {"--progress", supervise.progress->value});
  if (supervise.startup) words.insert(words.end(), {"--startup", format_walltime(supervise.startup->value)});
  if (supervise.probe_timeout) {
    long seconds = supervise.probe_timeout->value;
    words.insert(words.end(), {"--probe-timeout", seconds == 0 ? "0" : format_walltime(seconds)});
  }
  return words;
}

}  // namespace ezpz::core
