#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted $VARS are expanded by the job, on purpose
# Spare-node failover on the real Slurm cluster (3 virtual nodes), with a real Python program that
# counts steps and keeps them in a checkpoint-like marker file:
#  1. submitted (supervise.spare_nodes: 1): during the first attempt an active node is taken down
#     (scontrol update state=down); the launch swaps in the spare on the scheduler's evidence and the
#     program completes from its marker on the healthy nodes; the record names the node and evidence;
#  2. ezpz launch --spare-nodes 1 inside an allocation, with a profile that carries Aurora's patterns:
#     a simulated PALS "shepherd died" line names the second node, which is swapped; a line naming a
#     host outside the allocation is ignored and logged;
#  3. a failure with no evidence (every rank exits 1, as with a full disk) is retried on the same nodes
#     and stops with "no-progress"; no node is evicted;
#  4. with too little time left in the allocation no new attempt starts ("no-time");
#  5. with Frontier's and Perlmutter's srun pattern: the node where a rank is SIGKILLed ("srun: error:
#     NODE: task N: Killed") is swapped, not the node whose rank srun stopped;
#  6. a rank that fails by itself while the others ignore SIGTERM: srun reports every node's tasks
#     "Killed" (slurmstepd kills them after KillWait), which proves nothing about one node: no swap;
#  7. a rank that dies of "MemoryError: std::bad_alloc": no node is evicted, the same nodes run again.
#   failover_test.sh CLUSTER_DIR EZPZ
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
cluster=$1
ezpz=$2
enter_cluster "$cluster"

downed=
# Every node back in service, whatever happened (the cluster is shared by the next test).
restore_nodes() {
  [[ -n $downed ]] && scontrol update nodename="$downed" state=resume >/dev/null 2>&1
  for _ in $(seq 60); do
    [[ -z $(sinfo -h -t down,drain,drng,fail,no_respond -o %N) ]] && return 0
    sleep 0.5
  done
  return 1
}
trap 'restore_nodes; rm -rf "$workdir"' EXIT  # replaces the trap of tests/e2e/lib.sh

cat >"$workdir/train.py" <<'PY'
# Counts steps from the marker file (a stand-in for a checkpoint): rank 0 writes it after each step.
import os, pathlib, sys, time
marker, steps = pathlib.Path(sys.argv[1]), int(sys.argv[2])
rank, node = int(os.environ["RANK"]), os.environ.get("SLURMD_NODENAME", "?")
step = int(marker.read_text()) if marker.exists() else 0
print(f"rank {rank} on {node} resumes at step {step}", flush=True)
while step < steps:
    time.sleep(1)
    step += 1
    if rank == 0:
        marker.write_text(str(step))
    print(f"rank {rank} step {step}", flush=True)
print(f"rank {rank} done on {node}", flush=True)
PY

# decisions JOB ACTION KEY: KEY of each recorded decision ACTION of JOB, one per line.
decisions() {
  "$ezpz" status "$1" --system slurm --json 2>/dev/null | "$python" -c '
import json, sys
for d in json.load(sys.stdin)[0]["failover"]:
    if d["action"] == sys.argv[1]:
        print(d.get(sys.argv[2], ""))' "$2" "$3"
}
marker_at_least() { # marker_at_least FILE N: until FILE holds N or more (60 s at most)
  for _ in $(seq 120); do
    (($(cat "$1" 2>/dev/null || echo 0) >= $2)) && return 0
    sleep 0.5
  done
  return 1
}

check "all 3 nodes are in service" restore_nodes

# 1. Submitted: a node taken down during the first attempt.
cat >"$workdir/down.yaml" <<YAML
name: ezpz-failover-down
system: slurm
queue: debug
nodes: 2
walltime: 5m
env: {MASTER_ADDR: 127.0.0.1}
run: [$python, $workdir/train.py, $workdir/down.marker, 8]
supervise: {spare_nodes: 1, retries: 1, retry_delay: 0s, startup: 2s, probe_timeout: 30s}
YAML
job=$("$ezpz" submit down.yaml 2>"$workdir/submit.err")
check "submitted a 2 + 1 spare node job ($(cat "$workdir/submit.err"))" test -n "$job"
[[ -n $job ]] || finish
check "the first attempt got to step 2" marker_at_least "$workdir/down.marker" 2
out=$(job_output "$job")
downed=$(sed -n 's/^rank 1 on \([^ ]*\) resumes at step [0-9]*$/\1/p' "$out" | head -n 1)
first=$(sed -n 's/^rank 0 on \([^ ]*\) resumes at step [0-9]*$/\1/p' "$out" | head -n 1)
check "rank 1 ran on an active node ($downed)" test -n "$downed"
check "scontrol update nodename=$downed state=down" \
  scontrol update nodename="$downed" state=down reason=ezpz-failover-test
check "the job ended" wait_job_done "$job" 120
check "status: completed with exit 0 ($(job_field "$job" state) $(job_field "$job" exit_code))" \
  test "$(job_field "$job" state) $(job_field "$job" exit_code)" = "completed 0"
spare=$(decisions "$job" swap replacement)
check "the record has one swap: $downed for $spare ($(decisions "$job" swap node))" \
  test "$(decisions "$job" swap node)" = "$downed"
check "... whose spare is the third node" test -n "$spare" -a "$spare" != "$downed" -a "$spare" != "$first"
check "... on the scheduler's evidence: $(decisions "$job" swap evidence)" \
  test "$(decisions "$job" swap source)" = scheduler
check "... and the loop stopped with success ($(decisions "$job" stop reason))" \
  test "$(decisions "$job" stop reason)" = success
check "the second attempt resumed from the marker on $first and $spare" \
  grep -Eq "^rank 1 on $spare resumes at step [1-9]" "$out"
check "... and completed all 8 steps on both ranks" \
  test "$(grep -c '^rank [01] done on' "$out") $(cat "$workdir/down.marker")" = "2 8"
check "... never again on $downed" test -z "$(grep -E "^rank [01] on $downed resumes at step [1-9]" "$out")"
check "the console printed the swap" grep -q "ezpz launch: failover: attempt 1: swap $downed for $spare: scheduler:" "$out"
"$ezpz" status "$job" >"$workdir/status.txt" 2>&1
check "ezpz status shows the swap: $(grep failover "$workdir/status.txt" | head -n 1)" \
  grep -q "failover: attempt 1: swap $downed for $spare" "$workdir/status.txt"
check "$downed is back in service" restore_nodes
downed=

# 2-4: ezpz launch --spare-nodes inside an allocation (sbatch), with a profile that carries Aurora's
# failure patterns (systems/aurora.yaml) on this Slurm cluster.
mkdir -p "$workdir/systems"
{
  echo "extends: slurm"
  echo "description: Slurm test cluster with Aurora's failure patterns"
  sed -n '/^failover:/,/^[a-z]/p' "$here/../../systems/aurora.yaml" | sed '$d' | grep -v '^  node_key:'
} >"$workdir/systems/slurm-aurora-logs.yaml"
export EZPZ_SYSTEMS_PATH=$workdir/systems
aurora_patterns=$(sed -n '/^failover:/,/^[a-z]/p' "$here/../../systems/aurora.yaml" | grep -c 'regex:')
check "the test profile carries all of Aurora's patterns ($aurora_patterns)" \
  test "$(grep -c 'regex:' "$workdir/systems/slurm-aurora-logs.yaml")" = "$aurora_patterns" -a "$aurora_patterns" -ge 2

# in_allocation NAME PRELUDE LAUNCH-OPTIONS -- PROGRAM...: runs PRELUDE (a shell line), then ezpz
# launch --spare-nodes 1 in a 3-node batch job, waits, and leaves its output in $workdir/NAME.out.
in_allocation() {
  local name=$1 prelude=$2 options
  read -ra options <<<"$3"
  shift 4
  {
    echo '#!/bin/bash'
    echo "export EZPZ_SYSTEM=slurm-aurora-logs MASTER_ADDR=127.0.0.1"
    echo "$prelude"
    printf '%q ' "$ezpz" launch --spare-nodes 1 --probe-timeout 30s "${options[@]}" -- "$@"
    echo
    echo 'echo "launch exit $?"'
  } >"$workdir/$name.sh"
  local id
  # --exclusive: every CPU of the nodes, for a launch with more than one rank per node.
  id=$(sbatch --parsable -N 3 --exclusive --no-kill -o "$workdir/$name.out" "$workdir/$name.sh") || return 1
  wait_job_done "$id" 120
}

# 2. A simulated PALS log: while the allocation's second node is in the step, rank 0 reports its
# shepherd killed (and a node that is not in the allocation), and every rank fails. The decision
# depends on the step's hosts only, which every rank of an attempt sees alike.
cat >"$workdir/pals_log.sh" <<'SH'
#!/bin/bash
second=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | sed -n 2p)
if scontrol show hostnames "$SLURM_STEP_NODELIST" | grep -qx "$second"; then
  if [[ $RANK == 0 ]]; then
    echo "$second.hsn.cm.aurora.alcf.anl.gov: shepherd died from signal 9"
    echo "x9999c0s0b0n0.hsn.cm.aurora.alcf.anl.gov: shepherd died from signal 9"
  fi
  sleep 1
  exit 1
fi
echo "rank $RANK on $SLURMD_NODENAME ok"
SH
chmod +x "$workdir/pals_log.sh"
check "a launch with a shepherd line ran" in_allocation shepherd "" "--retries 0 --startup 1s" -- "$workdir/pals_log.sh"
out=$workdir/shepherd.out
second=$(sed -n 's/^\(.*\)\.hsn\.cm\.aurora\.alcf\.anl\.gov: shepherd died.*/\1/p' "$out" | grep -v x9999 | head -n 1)
check "the pattern's host ($second) was swapped for the spare: $(grep ': swap ' "$out")" \
  grep -q "ezpz launch: failover: attempt 1: swap $second for [^ ]*: pattern: pals-shepherd-killed: $second.hsn" "$out"
check "the host outside the allocation was ignored and logged" \
  grep -q "attempt 1: ignore: pattern 'pals-shepherd-killed' names 'x9999c0s0b0n0.hsn.cm.aurora.alcf.anl.gov', not a host of this allocation" "$out"
check "the second attempt ran without $second and succeeded" \
  test "$(grep -c '^rank [01] on .* ok$' "$out") $(grep -c "^rank [01] on $second ok$" "$out")" = "2 0"
check "... and the launch exited 0: $(grep 'launch exit' "$out")" grep -qx "launch exit 0" "$out"

# 3. No evidence: every rank fails at once, as on a full disk.
check "a launch that fails everywhere ran" in_allocation noevidence "" "--retries 3 --retry-delay 0 --startup 30s" -- \
  bash -c 'echo "rank $RANK on $SLURMD_NODENAME: No space left on device"; exit 1'
out=$workdir/noevidence.out
check "retried once on the same nodes" grep -q "attempt 1: retry: nothing proves a node bad: running again on the same nodes" "$out"
check "... no node swapped" test -z "$(grep -E ': swap |drop spare' "$out")"
check "... both attempts on the same hosts" test "$(grep -o "'--nodelist=[^']*'" "$out" | sort -u | wc -l)" = 1
check "... then stopped with no-progress: $(grep 'stop (' "$out")" grep -q "attempt 2: stop (no-progress)" "$out"
check "... and the launch exited 1" grep -qx "launch exit 1" "$out"

# 4. Too little time left: the allocation ends in 20 s, an attempt needs 60 s to get past start-up.
check "a launch near the allocation's end ran" in_allocation notime 'export EZPZ_JOB_END_TIME=$(( $(date +%s) + 20 ))' \
  "--retries 3 --startup 1m" -- bash -c 'exit 1'
out=$workdir/notime.out
check "one attempt only: $(grep -c "ezpz launch: srun" "$out")" test "$(grep -c "ezpz launch: srun" "$out")" = 1
check "stopped with no-time: $(grep 'stop (' "$out")" grep -q "attempt 1: stop (no-time): not enough time left" "$out"

# 5-7: srun's own lines, with the failure patterns of Frontier and Perlmutter (the same srun pattern).
{
  echo "extends: slurm"
  echo "description: Slurm test cluster with Frontier's failure patterns"
  sed -n '/^failover:/,/^[a-z]/p' "$here/../../systems/frontier.yaml" | sed '$d'
} >"$workdir/systems/slurm-srun-logs.yaml"
check "the test profile carries the srun pattern" grep -q 'name: srun-tasks-killed' "$workdir/systems/slurm-srun-logs.yaml"

# 5. Every rank on the allocation's second node is SIGKILLed while it is in the step.
cat >"$workdir/killed_rank.sh" <<'SH'
#!/bin/bash
second=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | sed -n 2p)
if [[ $SLURMD_NODENAME == "$second" ]]; then
  kill -9 $$
fi
if scontrol show hostnames "$SLURM_STEP_NODELIST" | grep -qx "$second"; then
  sleep 30
  exit 0
fi
echo "rank $RANK on $SLURMD_NODENAME ok"
SH
chmod +x "$workdir/killed_rank.sh"
check "a launch whose second node's rank is killed ran" \
  in_allocation killed "export EZPZ_SYSTEM=slurm-srun-logs" "--retries 0 --startup 1s" -- "$workdir/killed_rank.sh"
out=$workdir/killed.out
killed=$(sed -n 's/^srun: error: \([^:]*\): tasks\{0,1\} [0-9,-]*: Killed$/\1/p' "$out" | head -n 1)
check "srun said which node's task was killed ($killed): $(grep '^srun: error' "$out" | tr '\n' '|')" test -n "$killed"
check "that node was swapped on the pattern: $(grep ': swap ' "$out")" \
  grep -q "ezpz launch: failover: attempt 1: swap $killed for [^ ]*: pattern: srun-tasks-killed: srun: error: $killed: task" "$out"
check "... only that one" test "$(grep -c ': swap ' "$out")" = 1
check "the second attempt ran without $killed and the launch exited 0" \
  test "$(grep -c '^rank [01] on .* ok$' "$out") $(grep -c "^rank [01] on $killed ok$" "$out") $(grep 'launch exit' "$out")" = \
  "2 0 launch exit 0"

# 6. Rank 0 fails in the first attempt; the others ignore SIGTERM, so slurmstepd kills them after
# KillWait and every node's tasks read "Killed". The second attempt (the marker exists) succeeds.
# Rank 0 fails only once every other rank ignores SIGTERM (its file in trapped/): on a loaded machine a
# rank could otherwise get the SIGTERM before its trap, and read "Terminated".
mkdir -p "$workdir/trapped"
cat >"$workdir/teardown_rank.sh" <<SH
#!/bin/bash
trap '' TERM
if [[ -e $workdir/teardown.mark ]]; then echo "rank \$RANK ok"; exit 0; fi
touch "$workdir/trapped/\$RANK"
if [[ \$RANK == 0 ]]; then
  for _ in \$(seq 300); do
    (( \$(ls "$workdir/trapped" | wc -l) >= WORLD_SIZE )) && break
    sleep 0.1
  done
  touch $workdir/teardown.mark
  exit 1
fi
sleep 60
SH
chmod +x "$workdir/teardown_rank.sh"
check "a launch whose ranks outlive SIGTERM ran" \
  in_allocation teardown "export EZPZ_SYSTEM=slurm-srun-logs" \
  "--ranks-per-node 2 --retries 1 --retry-delay 0 --startup 1s" -- "$workdir/teardown_rank.sh"
out=$workdir/teardown.out
check "srun reported every node's tasks killed: $(grep -c ': Killed$' "$out") lines" \
  test "$(grep -E '^srun: error: .*: Killed$' "$out" | cut -d: -f3 | sort -u | wc -l)" = 2
check "... which names every active node and proves nothing: $(grep 'names every active node' "$out")" \
  grep -q "attempt 1: the output names every active node" "$out"
check "... both are suspects, none is swapped" \
  test "$(grep -c 'attempt 1: suspect ' "$out") $(grep -c ': swap ' "$out")" = "2 0"
check "... and the same nodes ran again: $(grep 'attempt 1: retry' "$out")" \
  grep -q "attempt 1: retry: nothing proves a node bad: running again on the same nodes" "$out"

# 7. A rank dies of std::bad_alloc (saforem2/ezpz#243): a rank failure, not a node's.
check "a launch with a bad_alloc ran" in_allocation badalloc "export EZPZ_SYSTEM=slurm-srun-logs" \
  "--retries 1 --retry-delay 0 --startup 30s" -- \
  bash -c 'if [[ $RANK == 1 ]]; then echo "[rank1]: MemoryError: std::bad_alloc" >&2; exit 1; fi; sleep 30'
out=$workdir/badalloc.out
check "srun reported the rank's exit, not a killed node: $(grep '^srun: error' "$out" | head -n 2 | tr '\n' '|')" \
  grep -q "^srun: error: .*: task 1: Exited with exit code 1$" "$out"
check "... no node swapped" test -z "$(grep -E ': swap |drop spare' "$out")"
check "... retried on the same nodes, then stopped with no-progress: $(grep 'stop (' "$out")" \
  test "$(grep -c 'attempt 1: retry: nothing proves a node bad' "$out") $(grep -c 'attempt 2: stop (no-progress)' "$out")" = "1 1"
finish
