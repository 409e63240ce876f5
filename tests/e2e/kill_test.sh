#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted $VARS are expanded by the ranks, on purpose
# `ezpz kill` on this node, with real processes: it signals the ranks that ezpz exec started (and only
# those: not an unmarked process, not another user's process that carries the mark, not a rank marked
# for another node, not the ranks of another job), lists them with --dry-run without signalling, never
# signals itself or the rank it runs in, and takes --signal.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1
unset SLURMD_NODENAME PBS_JOBID SLURM_JOB_ID
# A job id of this test's own, as inside an allocation: ezpz kill then touches only this job's ranks,
# not those of tests running beside it (outside any job it would take all of the user's ranks here).
export EZPZ_JOB_ID="ezpz-kill-test-$$"
job=$EZPZ_JOB_ID
node=$(hostname)
pids="$workdir/pids"
mkdir -p "$pids"
marker="ezpz-kill-test-$$"

ranks_up() { # ranks_up N: until N pid files are there (10 s at most)
  for _ in $(seq 100); do
    files=("$pids"/*)
    [[ -e ${files[0]} && ${#files[@]} -ge $1 ]] && return 0
    sleep 0.1
  done
  return 1
}
# Three local ranks that record their pid and sleep. They ignore TERM: once the first is killed, the
# launch stops the others with TERM (KILL 5 s later), and they must still be there for `ezpz kill`.
start_ranks() {
  rm -f "$pids"/*
  "$ezpz" launch --system local -n 3 -- sh -c "trap '' TERM; echo \$\$ >'$pids'/\$RANK; exec sleep 300 # $marker" \
    >"$workdir/launch.out" 2>"$workdir/launch.err" &
  launch=$!
  ranks_up 3
}

# Bystanders: an unmarked process, another user's process with a mark, a rank marked for another node.
sleep 300 &
unmarked=$!
EZPZ_RANK_MARK="$job:0:other-node-$$" sleep 300 &
elsewhere=$!
others=
if id nobody >/dev/null 2>&1 && ((EUID == 0)); then
  runuser -u nobody -- env EZPZ_RANK_MARK="$job:0:$node" sleep 300 >/dev/null 2>&1 &
  others=$!
fi

check "three ranks started" start_ranks
"$ezpz" kill --dry-run >"$workdir/dry.out" 2>&1
code=$?
check "--dry-run exits 0 ($code)" test "$code" -eq 0
check "--dry-run lists the 3 ranks and nothing else ($(tr '\n' '|' <"$workdir/dry.out"))" \
  test "$(grep -c "ezpz kill on $node: would send TERM to [0-9]* (job $job, rank [0-2]): sleep 300" "$workdir/dry.out")" -eq 3 \
  -a "$(wc -l <"$workdir/dry.out")" -eq 3
for rank in 0 1 2; do check "... and rank $rank still runs" alive "$(cat "$pids/$rank")"; done
"$ezpz" kill --job 12345.other >"$workdir/job.out" 2>&1
check "--job of another job touches nothing ($(cat "$workdir/job.out"))" grep -q "no rank process of yours in job 12345.other" "$workdir/job.out"
"$ezpz" kill --signal KILL >"$workdir/kill.out" 2>&1
code=$?
check "kill exits 0 ($code)" test "$code" -eq 0
check "it signalled the 3 ranks ($(tr '\n' '|' <"$workdir/kill.out"))" \
  test "$(grep -c "sent KILL to [0-9]* (job $job, rank [0-2])" "$workdir/kill.out")" -eq 3
wait "$launch"
code=$?
check "the launch ended with the killed rank's code (137: $code)" test "$code" -eq 137
for rank in 0 1 2; do check "rank $rank is gone" bash -c "! kill -0 $(cat "$pids/$rank") 2>/dev/null"; done
check "the unmarked process runs on" alive "$unmarked"
check "the rank marked for another node runs on" alive "$elsewhere"
[[ -z $others ]] || check "another user's marked process runs on" alive "$others"

# A rank that runs `ezpz kill` itself: the other ranks are signalled, the rank that asked is not.
rm -f "$pids"/*
"$ezpz" launch --system local -n 3 -- sh -c "echo \$\$ >'$pids'/\$RANK
  if [ \$RANK = 0 ]; then
    trap '' TERM  # the launch stops the other ranks once the killed ones end: keep this one to report
    while [ \$(ls '$pids' | wc -l) -lt 3 ]; do sleep 0.1; done
    '$ezpz' kill >'$workdir/inner.out' 2>&1; echo \"kill: \$?\" >>'$workdir/inner.out'; sleep 1; exit 0
  fi
  exec sleep 300 # $marker" >"$workdir/launch.out" 2>"$workdir/launch.err"
# Once rank 1 ends, the launch itself stops rank 2 with TERM, which may come first: then rank 2 is
# reported as found ended, and that is no failure.
check "from inside rank 0: ranks 1 and 2 signalled, rank 0 not ($(tr '\n' '|' <"$workdir/inner.out"))" \
  test "$(grep -Ec "(sent|found ended, did not send) TERM to [0-9]* \(job $job, rank [12]\)" "$workdir/inner.out")" -eq 2 -a \
  "$(grep -c "sent TERM to [0-9]* (job $job, rank 1)" "$workdir/inner.out")" -eq 1 -a \
  "$(grep -c 'rank 0' "$workdir/inner.out")" -eq 0
check "... and it exited 0" grep -q "kill: 0" "$workdir/inner.out"
"$ezpz" kill --signal BOGUS >/dev/null 2>&1
code=$?
check "--signal BOGUS is a usage error (exit 2; $code)" test "$code" -eq 2
kill "$unmarked" "$elsewhere" ${others:+"$others"} 2>/dev/null
pkill -f "[e]${marker#e}"
finish
