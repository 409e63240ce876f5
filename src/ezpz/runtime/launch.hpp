// `ezpz launch`: the launcher command for this system and allocation, built by the same resolver as
// rendered scripts (one source of truth per system), and the local rank spawner for `local`.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ezpz/profile/catalog.hpp"
#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

struct LaunchRequest {
  std::string system;                  // resolved system name (from --system, EZPZ_SYSTEM or detection)
  std::optional<long> ranks;           // -n: total ranks
  std::optional<long> ranks_per_node;  // --ranks-per-node
  std::optional<long> nodes;           // --nodes
  std::string hostfile;                // --hostfile
  std::string cpu_bind;                // --cpu-bind
  // Words for the launcher itself (`-x FOO=bar`), after its own words from the profile, so that they
  // win where the launcher takes the last value, and before the ranks' command.
  std::vector<std::string> launcher_options;
  // Variables the user asked to reach every rank (`-x NAME=VALUE`, already set in this process):
  // passed by name with the profile's launcher.env_option where the launcher needs that (Open MPI);
  // other launchers pass the whole environment.
  std::vector<std::string> forward_names;
  std::vector<std::string> program;
  // One task per node, run as it is (no ezpz exec), beside a launch that may hold every resource:
  // the staging launcher's words, plus what lets a step share them (srun --overlap). For `ezpz kill`.
  bool per_node = false;
  // Spare-node failover: the hosts are chosen at each attempt, and the command names them with the
  // words {hostfile} and {hosts}, which with_hosts fills in.
  bool choose_hosts = false;
  long spare_nodes = 0;  // hosts kept out of `nodes` (the default: all hosts but these)
};

struct LaunchPlan {
  LauncherKind kind = LauncherKind::mpiexec;  // the profile's launcher kind
  std::vector<std::string> argv;              // the full command (for local: what each rank runs)
  long nodes = 1;
  long ranks_per_node = 1;
  long total_ranks = 1;
  // Variables to set before starting the launcher: EZPZ_HOSTFILE for --hostfile, and, for a launcher
  // that passes variables by name (launcher.env_option), what a rendered script exports for the ranks
  // (EZPZ_BIN, the hand-off, backend entries not set here), so that each name it passes is set.
  std::vector<std::pair<std::string, std::string>> env;
};

// Plans the launch: nodes from the request or the allocation's host list, ranks per node from the
// request or the profile (auto = devices per node), the launcher words from the profile with `$VAR`
// words taken from `env` (`$EZPZ_BIN` is `ezpz_bin`; `$PBS_NODEFILE` is --hostfile when given), and
// the variables to set for the ranks (LaunchPlan::env).
// Throws UserError when the request does not fit the allocation or a needed variable is missing.
LaunchPlan plan_launch(const Catalog& catalog, const LaunchRequest& request, const EnvLookup& env,
                       const std::string& ezpz_bin);

// Whether a word of `argv` holds the placeholder {`name`} (k_hostfile_key, k_hosts_key: what a
// spare-node launch fills in).
bool names(const std::vector<std::string>& argv, std::string_view name);

// `argv` for an attempt's hosts: {hosts} becomes `host_list` (compact, as compress_hostlist writes
// it), {hostfile} `hostfile` (which the caller writes: one host per line).
std::vector<std::string> with_hosts(const std::vector<std::string>& argv, const std::string& host_list,
                                    const std::string& hostfile);

// How `ezpz launch` watches what it starts.
struct Supervision {
  long idle_timeout_seconds = 0;  // --timeout: end the launch when no process wrote a byte for this long; 0: never
  double grace_seconds = 5.0;     // between TERM and KILL when ezpz ends the launch
  // When the ranks get the end signal (seconds since the epoch; 0: never): `ezpz exec` sends it, and a
  // launch that ends after it is not retried.
  long end_signal_due = 0;
  // Sees every byte that is passed on, as it is passed on (spare-node failover reads the output).
  std::function<void(std::string_view)> on_output;
};

// One process `ezpz launch` starts and watches: a local rank, or the system's launcher.
struct SupervisedProcess {
  std::string name;                                      // for messages: "rank 3", "mpiexec"
  std::vector<std::string> argv;                         // run with execvp
  std::vector<std::string> unset;                        // variables removed before the exec
  std::vector<std::pair<std::string, std::string>> set;  // variables set before the exec
  // A session of its own (setsid) instead of only a process group: with the kernel's autogroup
  // scheduling (sched(7)) each session is one scheduling group, so N ranks in the caller's session
  // would share one process's CPU time on a busy machine; Hydra's ranks each get a session too. Its
  // autogroup is given the process's nice value. For local ranks (a launcher starts its own ranks).
  bool own_session = false;
};

// How a supervised launch ended.
struct LaunchOutcome {
  int code = 0;                  // what ezpz launch returns for it
  bool stopped_by_user = false;  // a signal was forwarded or the output was closed: never retried
  std::string why;               // for the retry log: "rank 1 failed with exit code 7", "no output for …"
  bool end_signal_sent = false;  // the allocation is about to end: never retried
  bool idle_timeout = false;     // the idle-output watchdog ended it (not a program's own exit 124)
};

// The system's launcher as a supervised process, named after its program ("mpiexec"), with `set`.
SupervisedProcess launcher_process(const std::vector<std::string>& argv,
                                   std::vector<std::pair<std::string, std::string>> set = {});

// Starts each process in a process group of its own (a session of its own with `own_session`; the
// group's id is the process's either way), passes on its stdout and stderr through pipes as
// whole lines (LineForwarder, bytes unchanged), passes USR1 and USR2 on to each process (not its group:
// a launcher forwards them to its ranks, and a rank's helpers may not expect them), forwards INT, TERM,
// HUP and QUIT to every group and stops the others
// (TERM, then KILL after the grace period) when one fails, when the output is closed, or, with an idle
// timeout, when none of them has written a byte for that long (exit 124, naming how long each was
// silent). Returns 0, the first failing process's exit code (128 + signal for one killed by a signal),
// 128 + the signal that was forwarded, or k_exit_idle_timeout.
LaunchOutcome supervise_processes(const std::vector<SupervisedProcess>& processes, const Supervision& supervision);

// Runs `plan.total_ranks` local ranks of `ezpz_bin exec -- program` (torchrun --standalone style) under
// supervise_processes: RANK/LOCAL_RANK/WORLD_SIZE/LOCAL_WORLD_SIZE, MASTER_ADDR 127.0.0.1 and a free
// MASTER_PORT are set for each.
LaunchOutcome run_local_ranks(const LaunchPlan& plan, const std::vector<std::string>& program,
                              const std::string& ezpz_bin, const std::string& system,
                              const Supervision& supervision = {});

}  // namespace ezpz::core
