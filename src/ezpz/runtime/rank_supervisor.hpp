// How `ezpz exec` runs one rank's program: in place, or as a child it watches, so that one failing rank
// ends the whole launch with that rank's exit code (docs/runtime-env.md, "Fail fast").
#pragma once

#include <string>
#include <vector>

#include "ezpz/runtime/end_signal.hpp"
#include "ezpz/runtime/rank.hpp"
#include "ezpz/runtime/rank_output.hpp"
#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

enum class RankRun {
  exec,       // replace ezpz with the program (same PID): the launcher itself stops the others
  supervise,  // run the program as a child and report its end in the form the launcher needs
};

struct RankRunPlan {
  RankRun run = RankRun::exec;
  bool forward_signals = false;         // pass signals on to the program (the launcher signals only ezpz exec)
  bool pmi_client = false;              // Hydra: hold this rank's PMI connection (PMI_FD) until the program ends
  std::string reason;                   // why it is supervised, for `ezpz exec --print`
  std::optional<EndSignal> end_signal;  // sent to the program when due (runtime/end_signal.hpp)
  bool announce = false;                // this rank says on stderr when it sends the end signal (rank 0)
  RankOutputPlan output;                // --label, --log-dir: the output passes through ezpz exec
};

// Holds SIGTERM back from the start of `ezpz exec` until run_rank: a rank the launcher stops while
// ezpz exec is still starting up then counts as stopped (exit 1 when supervised) instead of dying by
// the signal, which srun would report ahead of the failing rank's code.
void defer_stop_signal();

// Chooses from the launcher that started the rank (RankInfo::launcher) and its environment, from one
// table: a Slurm step task and an MPICH Hydra rank are supervised, every other launcher gets exec,
// unless the environment asks for the end signal (end_signal()), which a supervisor sends, or for
// per-rank output (EZPZ_LABEL=1, EZPZ_LOG_DIR), which passes through one.
// Throws UserError for a malformed end-signal request.
RankRunPlan rank_run_plan(const RankInfo& rank, const EnvLookup& env);

// Runs `program` as planned and returns the rank's exit status; with RankRun::exec it returns only
// when the program cannot be started (127 not found, 126 not executable, as shells do).
// Supervised: the child gets every catchable termination and user signal that reaches ezpz exec (in a
// process group of its own then, so that a launcher signalling the group does not signal it twice), and
// dies with SIGKILL if ezpz exec dies first (PR_SET_PDEATHSIG). The status is the child's (a child
// killed by signal N kills ezpz exec with N), except that a rank stopped by SIGTERM from outside (the
// launcher stopping the others after a failure: SIGTERM reached ezpz exec, or killed the program)
// exits 1, which srun's "highest exit code" never puts above the failing rank's code. The end signal
// goes to the child when due, once; a rank whose program then fails is not "stopped": its code stands.
// With `plan.pmi_client`, ezpz exec registers as a PMI-1 client on PMI_FD and finalizes only after the
// program succeeded: Hydra then stops all ranks when any rank ends otherwise.
int run_rank(const std::vector<std::string>& program, const RankRunPlan& plan);

}  // namespace ezpz::core
