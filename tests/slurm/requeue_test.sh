#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted $VARS are expanded by the job, on purpose
# Requeue on the real Slurm cluster (supervise.requeue): `scontrol requeue` of a running job that asked
# for it restarts it; the output file keeps both runs (appended); `ezpz status` shows 2 starts. A job
# that allows 1 restart and is requeued twice does not run its program a third time: the launch says
# why and the job fails with exit 1, after 3 starts.
#   requeue_test.sh CLUSTER_DIR EZPZ
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
cluster=$1
ezpz=$2
enter_cluster "$cluster"

# spec FILE NAME REQUEUE RUN: a one-node, one-rank job.
spec() {
  printf '%s\n' "name: $2" "system: slurm" "queue: debug" "nodes: 1" "walltime: 5m" \
    "env: {MASTER_ADDR: 127.0.0.1}" "run: $4" "supervise: {requeue: $3}" >"$workdir/$1"
}
# wait_for JOB TEXT: until the job's output holds TEXT (60 s at most).
wait_for() {
  local file
  for _ in $(seq 120); do
    file=$(job_output "$1")
    grep -q "$2" "$file" 2>/dev/null && return 0
    sleep 0.5
  done
  return 1
}
# requeue JOB: requeues the running job and lets it start again at once (Slurm holds a requeued job
# back with a begin time; its owner may move that to now, once the job is pending again).
requeue() {
  scontrol requeue "$1" || return 1
  for _ in $(seq 60); do
    if [[ $(scontrol -o show job "$1") == *JobState=PENDING* ]]; then
      scontrol update JobId="$1" StartTime=now && return 0
    fi
    sleep 0.5
  done
  return 1
}

# 1. Requeued once: it starts again, and its second run ends the job.
spec once.yaml ezpz-requeue-once 2 \
  '[bash, -c, "echo run ${SLURM_RESTART_COUNT:-0}; if [ ${SLURM_RESTART_COUNT:-0} -ge 1 ]; then exit 0; fi; sleep 120"]'
job=$("$ezpz" submit once.yaml 2>"$workdir/submit.err")
check "submitted ($(cat "$workdir/submit.err"))" test -n "$job"
[[ -n $job ]] || finish
check "the first run started" wait_for "$job" "^run 0$"
check "status while it runs: 1 start ($(job_field "$job" starts))" test "$(job_field "$job" starts)" = 1
check "scontrol requeue of the running job" requeue "$job"
check "it ran again" wait_for "$job" "^run 1$"
check "... and ended" wait_job_done "$job"
check "status: completed ($(job_field "$job" state))" test "$(job_field "$job" state)" = completed
check "status: 2 starts ($(job_field "$job" starts))" test "$(job_field "$job" starts)" = 2
"$ezpz" status "$job" >"$workdir/status.txt" 2>&1
check "status (text) shows 2 starts: $(tail -n 1 "$workdir/status.txt")" \
  grep -Eq "^$job +ezpz-requeue-once +completed +0 +2 " "$workdir/status.txt"
out=$(job_output "$job")
check "the output kept both runs, in order (appended): $(grep -c '^run' "$out") run lines" \
  test "$(grep '^run' "$out" | tr '\n' ' ')" = "run 0 run 1 "
check "... and the launch said which restart it was" grep -q "ezpz launch: restart 1 of at most 2 (SLURM_RESTART_COUNT)" "$out"

# 2. Allowed 1 restart, requeued twice: the third start runs nothing.
spec twice.yaml ezpz-requeue-limit 1 '[bash, -c, "echo run ${SLURM_RESTART_COUNT:-0}; sleep 120"]'
job=$("$ezpz" submit twice.yaml 2>"$workdir/submit.err")
check "submitted ($(cat "$workdir/submit.err"))" test -n "$job"
[[ -n $job ]] || finish
check "the first run started" wait_for "$job" "^run 0$"
check "requeued once" requeue "$job"
check "the second run started" wait_for "$job" "^run 1$"
check "requeued twice" requeue "$job"
check "the job ended" wait_job_done "$job"
out=$(job_output "$job")
check "status: failed with exit 1 ($(job_field "$job" state) $(job_field "$job" exit_code))" \
  test "$(job_field "$job" state) $(job_field "$job" exit_code)" = "failed 1"
check "status: 3 starts ($(job_field "$job" starts))" test "$(job_field "$job" starts)" = 3
check "the program did not run a third time ($(grep '^run' "$out" | tr '\n' ' '))" \
  test "$(grep '^run' "$out" | tr '\n' ' ')" = "run 0 run 1 "
check "... and the launch says why ($(grep 'restarted' "$out"))" \
  grep -q "this job has been restarted 2 times (SLURM_RESTART_COUNT), more than the 1 that supervise.requeue allows" "$out"
finish
