// The queues' caps counted against the scheduler's list of jobs: how many of a user's or a project's
// jobs each cap sees now, and whether it is reached or near (ezpz doctor's `caps` check).
#pragma once

#include <string>
#include <vector>

#include "ezpz/profile/output_formats.hpp"
#include "ezpz/profile/system_profile.hpp"

namespace ezpz::core {

// How close a count is to its cap.
enum class CapLevel { room, near, reached };

// reached: count >= cap (a further job is held or refused); near: 80 % of it or more, for caps of 5
// and up (a cap of 1 or 2 is either reached or not).
CapLevel cap_level(long count, long cap);

struct CapCount {
  std::string queue;  // the profile's queue whose cap it is
  QueueCap cap;
  const CapKind* kind = nullptr;
  std::string owner;       // the user's or the project's name
  std::string counted_in;  // the queue whose jobs were counted (a routing queue's execution queue); "" = all
  long count = 0;
  CapLevel level = CapLevel::room;
};

// Counts the jobs each cap of `queues` (names of profile queues) counts, for `user` and for each of
// `projects`: a user cap once for the user, a project cap once per project, a cap over all queues
// once however many queues list it. Caps ezpz cannot count (CapJobs::uncounted, and a queue's own caps
// when its directives replace the scheduler's queue directive: a Slurm QOS) are left out. A job
// is in a queue when the scheduler shows it there or in a queue the queue routes to; a routing queue's
// `eligible` caps count each queue it routes to apart and give the fullest.
std::vector<CapCount> count_caps(const SystemProfile& profile, const std::vector<std::string>& queues,
                                 const std::vector<ListedJob>& jobs, const std::string& user,
                                 const std::vector<std::string>& projects);

}  // namespace ezpz::core
