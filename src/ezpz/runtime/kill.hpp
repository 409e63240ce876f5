// `ezpz kill`: finding and signalling the rank processes that ezpz started, on this node. Every rank's
// `ezpz exec` marks its program with EZPZ_RANK_MARK=<job id>:<rank>:<node> in the environment, which
// the program's own children inherit; only processes of the calling user are looked at.
#pragma once

#include <sys/types.h>
#include <string>
#include <vector>

#include "ezpz/util/env_lookup.hpp"
#include "ezpz/util/handoff_variables.hpp"
#include "ezpz/util/node_name.hpp"

namespace ezpz::core {

// The marker variable and its value for rank `rank` of job `job_id` ("" outside a job: "none") on
// node `node` (node_name()).
inline constexpr const char* k_rank_mark = k_env_rank_mark;
std::string rank_mark(const std::string& job_id, long rank, const std::string& node);

struct MarkedProcess {
  pid_t pid = 0;
  std::string job_id;  // "none" outside a job
  std::string rank;
  std::string node;
  std::string command;  // its command line, for the listing
};

// The calling user's processes under `proc_root` (normally /proc) marked for node `node`, leaving out
// this process and its ancestors (`ezpz kill` run from inside a rank). With a non-empty `job_id`, only
// that job's. Sorted by pid.
std::vector<MarkedProcess> find_marked_processes(const std::string& job_id, const std::string& node,
                                                 const std::string& proc_root = "/proc");

// What sending a signal to a listed process came to.
enum class SignalSent {
  sent,
  gone,    // the process ended after it was listed (ESRCH): nothing left to signal, not a failure
  failed,  // it is there and would not take the signal (EPERM)
};

// Sends `sig` to `pid` (kill(2)).
SignalSent send_signal(pid_t pid, int sig);

}  // namespace ezpz::core
