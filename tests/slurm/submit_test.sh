#!/usr/bin/env bash
# ezpz submit/status/logs/cancel against the real Slurm cluster on localhost: a 2-node job of the
# generic Slurm profile runs `ezpz test` as 2 ranks per node through srun + ezpz exec, completes, and
# its output shows 4 ranks on 2 distinct nodes with a correct all-reduce; a running job is cancelled;
# a nonexistent partition is a loud error that keeps the script; a job given by flags without a spec
# file; a batch script of the user's own (record, status, logs, --wait, --hold, --after).
#   submit_test.sh CLUSTER_DIR EZPZ
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
cluster=$1
ezpz=$2
enter_cluster "$cluster"
state_of() {  # state_of JOBID -> the state ezpz status reports
  "$ezpz" status "$1" --json 2>/dev/null | python3 -c "import json, sys; print(json.load(sys.stdin)[0]['state'])" 2>/dev/null
}

# The virtual nodes n1, n2 share this host: rendezvous on loopback, Gloo over lo.
cat >"$workdir/job.yaml" <<YAML
name: ezpz-e2e
system: slurm
queue: debug
nodes: 2
ranks_per_node: 2
walltime: 5m
env: {MASTER_ADDR: 127.0.0.1, GLOO_SOCKET_IFNAME: lo}
run: [$ezpz, test, --iterations, "3", --size-mb, "1"]
YAML

job=$("$ezpz" submit job.yaml --wait 2>"$workdir/submit.err")
status=$?
check "submit --wait returns the job's exit code 0 ($(tail -n 5 "$workdir/submit.err"))" test "$status" -eq 0
check "only the job id is printed on stdout (got '$job')" grep -qx '[0-9][0-9]*' <<<"$job"
check "the record keeps the exact script" test -x "$workdir/records/$job/job.sh"
check "the record keeps the resolved job" python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$workdir/records/$job/job.json"
check "status of the finished job is completed" test "$(state_of "$job")" = completed
check "status --json has exit code 0" bash -c "'$ezpz' status '$job' --json | grep -q '\"exit_code\": 0'"

"$ezpz" logs "$job" >"$workdir/logs.txt" 2>&1
check "logs show 4 ranks on 2 nodes and a correct all-reduce ($(tail -n 3 "$workdir/logs.txt"))" \
  grep -q "ezpz test: 4 ranks on 2 node(s): all-reduce, broadcast, barrier OK" "$workdir/logs.txt"
check "the ranks ran on two distinct virtual nodes" \
  test "$(grep -E '^ +[0-9]+ +[0-9]+ +n[0-9]' "$workdir/logs.txt" | awk '{print $3}' | sort -u | tr '\n' ' ')" = "n1 n2 "

# Cancel a running job.
cat >"$workdir/sleep.yaml" <<'YAML'
name: ezpz-sleep
system: slurm
queue: debug
nodes: 1
walltime: 5m
run: [sleep, "300"]
YAML
sleeper=$("$ezpz" submit sleep.yaml 2>/dev/null)
for _ in $(seq 150); do
  [[ $(state_of "$sleeper") == running ]] && break
  sleep 0.2
done
check "cancel exits 0" "$ezpz" cancel "$sleeper"
state=
for _ in $(seq 150); do
  state=$(state_of "$sleeper")
  [[ $state == cancelled ]] && break
  sleep 0.2
done
check "the cancelled job is reported cancelled (got '$state')" test "$state" = cancelled

# A partition that does not exist: a loud failure that keeps the rendered script.
"$ezpz" submit job.yaml --set queue=nope >"$workdir/nope.out" 2>"$workdir/nope.err"
check "submitting to a nonexistent partition exits 1" test $? -eq 1
check "nothing on stdout" test ! -s "$workdir/nope.out"
check "the error names sbatch and its command ($(head -c 300 "$workdir/nope.err"))" \
  grep -q "sbatch failed (exit code 1): sbatch --parsable" "$workdir/nope.err"
check "sbatch's own message is shown" grep -qi "invalid partition" "$workdir/nope.err"
kept=$(grep -o "kept at .*" "$workdir/nope.err" | cut -d' ' -f3)
check "the script is kept ($kept)" test -s "$kept"

# A job without a spec file: the common keys as flags, the program after '--'.
flagged=$("$ezpz" submit --system slurm -N 2 -q debug -t 5m --set ranks_per_node=1 \
  --set env.MASTER_ADDR=127.0.0.1 --set env.GLOO_SOCKET_IFNAME=lo --wait -- "$ezpz" test --iterations 2 --size-mb 1 \
  2>"$workdir/flags.err")
status=$?
check "no spec file: submit --wait with flags returns 0 ($(tail -n 3 "$workdir/flags.err"))" test "$status" -eq 0
"$ezpz" logs "$flagged" >"$workdir/flags.log" 2>&1
check "no spec file: 2 ranks on 2 nodes ($(tail -n 3 "$workdir/flags.log"))" \
  grep -q "ezpz test: 2 ranks on 2 node(s): all-reduce, broadcast, barrier OK" "$workdir/flags.log"
"$ezpz" render --system slurm -N two -t 1 -- true >/dev/null 2>"$workdir/flags-bad.err"
code=$?
check "no spec file: bad flag values exit 1 (got $code)" test "$code" -eq 1
check "no spec file: the errors name the flags ($(cat "$workdir/flags-bad.err"))" \
  bash -c "grep -q '^ezpz: -N two: error' '$workdir/flags-bad.err' && grep -q '^ezpz: -t 1: error' '$workdir/flags-bad.err'"

# A batch script of the user's own: submitted as it is, with the same record.
cat >"$workdir/mine.sh" <<'SCRIPT'
#!/bin/bash
#SBATCH --job-name=mine
#SBATCH --partition=debug
#SBATCH --output=%x-%j.log
#SBATCH --time=5
echo "my own script ran on $SLURMD_NODENAME"
exit 3
SCRIPT
before=$(md5sum <"$workdir/mine.sh")
mine=$("$ezpz" submit mine.sh --system slurm --wait 2>"$workdir/mine.err")
status=$?
check "own script: submit --wait returns the script's exit code 3 (got $status: $(tail -n 3 "$workdir/mine.err"))" \
  test "$status" -eq 3
check "own script: the file is not rewritten" test "$(md5sum <"$workdir/mine.sh")" = "$before"
check "own script: the record keeps a copy" cmp -s "$workdir/mine.sh" "$workdir/records/$mine/job.sh"
check "own script: status is failed (got '$(state_of "$mine")')" test "$(state_of "$mine")" = failed
"$ezpz" logs "$mine" >"$workdir/mine.log" 2>&1
check "own script: logs reads its --output=%x-%j.log ($(head -c 200 "$workdir/mine.log"))" \
  grep -q "my own script ran" "$workdir/mine.log"
check "own script: the output file is where its directive put it" test -s "$workdir/mine-$mine.log"
first=$("$ezpz" submit mine.sh --system slurm --hold 2>/dev/null)
check "own script: --hold holds it (got '$(state_of "$first")')" test "$(state_of "$first")" = held
second=$("$ezpz" submit mine.sh --system slurm --after "$first" 2>/dev/null)
check "own script: --after reaches sbatch as a dependency" \
  bash -c "scontrol -o show job '$second' | grep -q 'Dependency=afterok:$first'"
check "own script: cancel both" "$ezpz" cancel "$second"
"$ezpz" cancel "$first" >/dev/null 2>&1
"$ezpz" submit mine.sh --system slurm --set nodes=2 >/dev/null 2>"$workdir/mine-set.err"
check "own script: --set is refused, not ignored ($(head -c 200 "$workdir/mine-set.err"))" \
  grep -q "is a batch script: it is submitted as it is" "$workdir/mine-set.err"
finish
