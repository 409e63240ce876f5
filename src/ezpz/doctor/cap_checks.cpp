// The `caps` check: the caller's and the project's jobs, as the scheduler lists them (job_list), counted
// against the per-user and per-project caps of the profile's queues (profile/queue_caps.hpp).
#include <algorithm>

#include "ezpz/doctor/checks.hpp"
#include "ezpz/profile/queue_caps.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

const char* k_check = "caps";

// The queues whose caps are counted: the spec's queue, else every queue of the profile with a cap
// ezpz can count.
std::vector<std::string> checked_queues(const DoctorInputs& inputs, const SystemProfile& profile) {
  std::vector<std::string> names;
  if (inputs.job) {
    if (inputs.job->spec.queue) names.push_back(inputs.job->spec.queue->value);
    return names;
  }
  for (const auto& queue : profile.queues) {
    bool countable = std::any_of(queue.caps.begin(), queue.caps.end(), [](const QueueCap& cap) {
      const CapKind* kind = find_cap_kind(cap.kind);
      return kind != nullptr && kind->jobs != CapJobs::uncounted;
    });
    if (countable) names.push_back(queue.name);
  }
  return names;
}

// The projects whose caps are counted: the spec's account, else those the user's own jobs are charged to.
std::vector<std::string> checked_projects(const DoctorInputs& inputs, const std::vector<ListedJob>& jobs) {
  if (inputs.job && inputs.job->spec.account && !inputs.job->spec.account->value.empty())
    return {inputs.job->spec.account->value};
  std::vector<std::string> projects;
  for (const auto& job : jobs) {
    if (job.user != inputs.user || job.account.empty()) continue;
    if (std::find(projects.begin(), projects.end(), job.account) == projects.end()) projects.push_back(job.account);
  }
  return projects;
}

// "2 job(s) of user me counted in capacity" / "10 job(s) of project P counted in small".
std::string counted_text(const CapCount& counted) {
  std::string whose = (counted.kind->owner == CapOwner::user ? "user " : "project ") + counted.owner;
  std::string where = counted.counted_in.empty() ? " across all queues" : " in " + counted.counted_in;
  return std::to_string(counted.count) + " job(s) of " + whose + " counted" + where;
}

// Why the job list failed: the last line of stderr ("Connection refused", then "qstat: cannot connect
// to server ezpz-pbs (errno=15010)"), else the first of stdout. A failing qstat -F json still prints
// its JSON header on stdout (OpenPBS 23.06, seen in tests/pbs with the server stopped).
std::string reason(const ProcessResult& result) {
  std::vector<std::string> lines = split(trim(result.err), '\n');
  if (lines.empty() || trim(lines.back()).empty()) return first_line(result);
  std::string line = trim(lines.back());
  return printable(line.size() > 160 ? line.substr(0, 160) + "…" : line);
}

Finding cap_finding(const CapCount& counted) {
  std::string text =
      "queue '" + counted.queue + "': " + counted_text(counted) + ", against its cap of " + counted.cap.describe();
  if (counted.level == CapLevel::reached) {
    return warn_finding(k_check, text + ": reached",
                        "a further job there is held until one of these ends, or refused at submission: wait for "
                        "them, or use another queue");
  }
  return warn_finding(k_check, text + ": near it",
                      std::to_string(counted.cap.value - counted.count) +
                          " more job(s) reach it; past it a job is held or refused, it does not fail");
}

}  // namespace

std::vector<Finding> check_caps(const DoctorInputs& inputs) {
  const SystemProfile* profile = checked_profile(inputs);
  if (profile == nullptr) return {};
  std::vector<std::string> queues = checked_queues(inputs, *profile);
  bool any_cap = std::any_of(profile->queues.begin(), profile->queues.end(), [&](const Queue& queue) {
    return std::find(queues.begin(), queues.end(), queue.name) != queues.end() && !queue.caps.empty();
  });
  if (!any_cap) return {};  // nothing to count: no line
  const Scheduler& scheduler = inputs.catalog->scheduler(profile->scheduler);
  const JobListQuery& query = scheduler.job_list;
  if (query.command.empty()) {
    return {ok_finding(k_check, "the caps of " + join(queues, ", ") + " are not counted: " + scheduler.name +
                                    " has no job_list command")};
  }
  std::string command = command_text(query.command);
  ProcessResult result = inputs.runner->run(query.command);
  if (result.exit_code != 0 || result.timed_out) {
    std::string why = result.exit_code == 127 ? query.command[0] + " is not on PATH"
                      : result.timed_out
                          ? command + " did not answer in time"
                          : command + " failed (exit code " + std::to_string(result.exit_code) + "): " + reason(result);
    return {warn_finding(k_check, "cannot count jobs against the caps of " + join(queues, ", ") + ": " + why,
                         "see the scheduler check; the caps still hold further jobs (ezpz validate lists them)")};
  }
  JobList jobs = parse_job_list(query.format, scheduler, result.out);
  if (!jobs) {
    return {warn_finding(k_check,
                         "cannot read the answer of " + command + " (" + query.format + "): " + first_line(result),
                         "check job_list in schedulers/" + scheduler.name + ".yaml against what the command prints")};
  }
  std::vector<std::string> projects = checked_projects(inputs, *jobs);
  std::vector<CapCount> counts = count_caps(*profile, queues, *jobs, inputs.user, projects);
  std::vector<Finding> found;
  std::vector<std::string> room;
  for (const auto& counted : counts) {
    if (counted.level == CapLevel::room) {
      room.push_back(counted.queue + ": " + std::to_string(counted.count) + " of " + counted.cap.describe() + " (" +
                     counted.owner + ")");
    } else {
      found.push_back(cap_finding(counted));
    }
  }
  std::string whom = (inputs.user.empty() ? std::string("no user name") : "user " + inputs.user) + ", " +
                     (projects.empty() ? std::string("no project (a spec's account: names one)")
                                       : "project(s) " + join(projects, ", "));
  std::string text = "counted " + std::to_string(jobs->size()) + " job(s) from " + command + " for " + whom;
  if (!room.empty()) text += "; room under " + join(room, "; ");
  found.push_back(ok_finding(k_check, text));
  return found;
}

}  // namespace ezpz::core
