// The guardian of a launch: a process that stops the ranks' process groups when `ezpz launch` itself
// is killed (SIGKILL, the OOM killer), which no handler of the launch can do.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <vector>

namespace ezpz::core {

// The guardian holds the read end of a pipe whose write end only the launch holds. The launch tells it
// each rank's process group as the rank starts and when it is reaped; the end of the pipe without a
// "done" means the launch died, and the guardian sends TERM to every group left, then KILL after
// `grace_seconds`, as the launch itself would have (docs/runtime-env.md). Ranks that ignore TERM and
// what they started in their groups end too, which PR_SET_PDEATHSIG alone (the rank only) cannot do.
class LaunchGuardian {
 public:
  // Forks the guardian for at most `max_groups` groups. Call it with the launch's signals blocked (the
  // guardian keeps them blocked: only SIGKILL ends it early) and before the ranks' pipes are made (it
  // closes every other descriptor it inherits anyway). Throws UserError when it cannot fork.
  LaunchGuardian(std::size_t max_groups, double grace_seconds);
  // Says "done" and waits for the guardian: nothing of it outlives a launch that ends.
  ~LaunchGuardian();
  LaunchGuardian(const LaunchGuardian&) = delete;
  LaunchGuardian& operator=(const LaunchGuardian&) = delete;

  void watch(pid_t group);   // a rank's process group, started
  void forget(pid_t group);  // a rank reaped, its group stopped: the id may be reused from now on

 private:
  void send(char what, pid_t group);

  int m_fd = -1;  // the write end
  pid_t m_pid = -1;
};

}  // namespace ezpz::core
