#!/usr/bin/env bash
# shellcheck disable=SC2016 # awk programs in single quotes, on purpose
# The signal before the walltime on the real Slurm cluster: a 2-node x 2-rank job with a 2-minute
# walltime asks for USR2 60 s before its end (supervise.signal_before). Every rank (a Python program
# that traps it, through srun and ezpz exec) writes a marker when the signal arrives; the markers come
# from both nodes, and their times are within a few seconds of Slurm's StartTime + 60 s. The job also
# asks for supervise.label: every rank's line in the job's output carries its rank.
#   end_signal_test.sh CLUSTER_DIR EZPZ
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
cluster=$1
ezpz=$2
python=/usr/bin/python3
[[ -x $python ]] || cannot_run "Debian's python3 is not installed (scripts/install-deps.sh test)"
enter_cluster "$cluster"

markers="$workdir/markers"
cat >"$workdir/job.yaml" <<YAML
name: ezpz-end-signal
system: slurm
queue: debug
nodes: 2
ranks_per_node: 2
walltime: 2m
env: {MASTER_ADDR: 127.0.0.1}
run: [$python, $here/../e2e/end_signal_rank.py, $markers, "170"]
supervise: {signal_before: 60s, label: true}
YAML

job=$(timeout -k 5 200 "$ezpz" submit job.yaml --wait 2>"$workdir/submit.err")
status=$?
check "the job ends with exit 0: every rank exits on the signal (got $status; $(tail -n 5 "$workdir/submit.err"))" \
  test "$status" -eq 0
if ((status == 124)); then scancel "$(squeue -h -n ezpz-end-signal -o %i | head -n 1)"; fi

start_text=$(scontrol -o show job "$job" 2>/dev/null | grep -o 'StartTime=[^ ]*' | cut -d= -f2)
start=$(date -d "$start_text" +%s 2>/dev/null || echo 0)
check "Slurm knows when job $job started ($start_text)" test "$start" -gt 0
check "every rank got USR2 ($(tr '\n' ';' <"$markers" 2>/dev/null))" \
  test "$(awk '$3 == "SIGUSR2" { print $1 }' "$markers" 2>/dev/null | sort | tr '\n' ' ')" = "0 1 2 3 "
check "... on both nodes" test "$(awk '{ print $4 }' "$markers" 2>/dev/null | sort -u | wc -l)" -eq 2
# StartTime has whole seconds; the script starts a moment after it, and its clock is the nodes' clock.
check "... 60 s before the end: StartTime + 60 s, within 3 s (StartTime $start)" \
  awk -v due=$((start + 60)) '{ if ($2 < due - 1 || $2 > due + 3) bad = 1 } END { exit bad }' "$markers"
output=$(scontrol -o show job "$job" 2>/dev/null | grep -o 'StdOut=[^ ]*' | cut -d= -f2)
check "supervise.label: each rank's line carries its rank ($(grep -c ready "$output" 2>/dev/null) ready lines)" \
  test "$(grep -c '^\[rank \([0-3]\)\] rank \1 ready$' "$output" 2>/dev/null)" -eq 4
check "rank 0 said it sent the signal, once ($(tail -n 3 "$output" 2>/dev/null))" \
  test "$(grep -c "ezpz exec: the allocation ends in 00:01:00; sending USR2" "$output" 2>/dev/null)" -eq 1
finish
