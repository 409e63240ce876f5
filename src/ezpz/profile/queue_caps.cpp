// Counting a user's and a project's jobs against the queues' caps (queue_caps.hpp).
#include "ezpz/profile/queue_caps.hpp"

#include <algorithm>

namespace ezpz::core {
namespace {

bool state_counts(CapJobs jobs, JobState state) {
  switch (jobs) {
    case CapJobs::live:
      return state == JobState::running || state == JobState::queued || state == JobState::held;
    case CapJobs::running:
      return state == JobState::running;
    case CapJobs::waiting:
      return state == JobState::queued || state == JobState::held;
    case CapJobs::eligible:
      return state == JobState::running || state == JobState::queued;
    case CapJobs::uncounted:
      return false;
  }
  return false;
}

bool owned_by(const ListedJob& job, CapOwner owner, const std::string& name) {
  return owner == CapOwner::user ? job.user == name : job.account == name;
}

long count_jobs(const std::vector<ListedJob>& jobs, const CapKind& kind, const std::string& owner,
                const std::vector<std::string>& queues) {
  return static_cast<long>(std::count_if(jobs.begin(), jobs.end(), [&](const ListedJob& job) {
    bool in_queue = queues.empty() || std::find(queues.begin(), queues.end(), job.queue) != queues.end();
    return in_queue && owned_by(job, kind.owner, owner) && state_counts(kind.jobs, job.state);
  }));
}

}  // namespace

CapLevel cap_level(long count, long cap) {
  if (count >= cap) return CapLevel::reached;
  if (cap >= 5 && count * 5 >= cap * 4) return CapLevel::near;
  return CapLevel::room;
}

std::vector<CapCount> count_caps(const SystemProfile& profile, const std::vector<std::string>& queues,
                                 const std::vector<ListedJob>& jobs, const std::string& user,
                                 const std::vector<std::string>& projects) {
  std::vector<CapCount> counts;
  for (const auto& queue : profile.queues) {
    if (std::find(queues.begin(), queues.end(), queue.name) == queues.end()) continue;
    // A queue that replaces the scheduler's queue directive (Frontier's debug is "-p batch -q debug", a
    // QOS) is not the queue the list shows its jobs in: only its caps over all queues can be counted.
    bool listed_elsewhere = std::any_of(queue.directives.begin(), queue.directives.end(),
                                        [](const auto& directive) { return directive.first == "queue"; });
    for (const auto& cap : queue.caps) {
      const CapKind* kind = find_cap_kind(cap.kind);
      if (kind == nullptr || kind->jobs == CapJobs::uncounted || (listed_elsewhere && !kind->all_queues)) continue;
      std::vector<std::string> owners = kind->owner == CapOwner::user ? std::vector<std::string>{user} : projects;
      for (const auto& owner : owners) {
        if (owner.empty()) continue;
        CapCount counted{queue.name, cap, kind, owner, queue.name, 0, CapLevel::room};
        if (kind->all_queues) {
          bool seen = std::any_of(counts.begin(), counts.end(), [&](const CapCount& c) {
            return c.kind == kind && c.cap.value == cap.value && c.owner == owner;
          });
          if (seen) continue;
          counted.counted_in.clear();
          counted.count = count_jobs(jobs, *kind, owner, {});
        } else if (kind->jobs == CapJobs::eligible && !queue.routes_to.empty()) {
          // "running/accruing" in each execution queue: the fullest one is the one that holds jobs back.
          counted.count = -1;
          for (const auto& routed : queue.routes_to) {
            long n = count_jobs(jobs, *kind, owner, {routed});
            if (n > counted.count) counted.count = n, counted.counted_in = routed;
          }
        } else if (kind->jobs == CapJobs::waiting) {
          // Queued in the queue itself: a routing queue's jobs that it has not routed yet.
          counted.count = count_jobs(jobs, *kind, owner, {queue.name});
        } else {
          std::vector<std::string> in = {queue.name};
          in.insert(in.end(), queue.routes_to.begin(), queue.routes_to.end());
          counted.count = count_jobs(jobs, *kind, owner, in);
        }
        counted.level = cap_level(counted.count, cap.value);
        counts.push_back(std::move(counted));
      }
    }
  }
  return counts;
}

}  // namespace ezpz::core
