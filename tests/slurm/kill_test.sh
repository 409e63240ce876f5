#!/usr/bin/env bash
# `ezpz kill --all-nodes` on the real Slurm cluster: inside a 2-node job whose batch script started 4
# ranks (2 per node) with `ezpz launch` and then runs `ezpz kill --all-nodes`, the kill goes through
# srun (one task per node, --overlap beside the running step, no SSH), signals every rank on both nodes
# and nothing else, and the job then ends. `--dry-run` before it lists the same ranks and sends nothing.
#   kill_test.sh CLUSTER_DIR EZPZ
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
cluster=$1
ezpz=$2
enter_cluster "$cluster"

pids="$workdir/pids"
mkdir -p "$pids"
cat >"$workdir/job.sh" <<JOB
#!/bin/bash
#SBATCH -J ezpz-kill -p debug -N 2 --ntasks-per-node=2 -t 5 -o $workdir/job.out
export EZPZ_SYSTEM=slurm MASTER_ADDR=127.0.0.1
"$ezpz" launch --ppn 2 -- sh -c 'echo \$\$ >"$pids/\$RANK.\$SLURMD_NODENAME"; exec sleep 300' &
for _ in \$(seq 100); do [ "\$(ls "$pids" | wc -l)" -ge 4 ] && break; sleep 0.2; done
"$ezpz" kill --all-nodes --dry-run >"$workdir/dry.out" 2>"$workdir/dry.err"
"$ezpz" kill --all-nodes >"$workdir/kill.out" 2>"$workdir/kill.err"
echo "kill exit \$?"
wait
echo "launch exit \$?"
JOB

run_batch_job "$workdir/job.sh" "a 2-node job"
files=("$pids"/*)
check "the 4 ranks had started on both nodes (${files[*]##*/})" \
  test "$(printf '%s\n' "${files[@]##*/}" | cut -d. -f2 | sort -u | wc -l)" -eq 2 -a "${#files[@]}" -eq 4
check "the job ended within 2 minutes, not at its walltime ($(squeue -h -j "$job" -o %T 2>/dev/null))" \
  test -z "$(squeue -h -j "$job" -o %T 2>/dev/null)"
check "the dry run listed all 4 ranks ($(tr '\n' '|' <"$workdir/dry.out"))" \
  test "$(grep -c "would send TERM to .*(job $job, rank [0-3]): sleep 300" "$workdir/dry.out")" -eq 4
check "the kill went through srun, one task per node beside the running step ($(head -c 300 "$workdir/kill.err"))" \
  grep -q "ezpz kill: srun .*--overlap.* -N 2 -n 2 " "$workdir/kill.err"
check "it signalled all 4 ranks ($(tr '\n' '|' <"$workdir/kill.out"))" \
  test "$(grep -c "sent TERM to .*(job $job, rank [0-3]): sleep 300" "$workdir/kill.out")" -eq 4
check "... and nothing else" test "$(wc -l <"$workdir/kill.out")" -eq 4
check "kill exited 0 ($(grep 'kill exit' "$workdir/job.out"))" grep -q "kill exit 0" "$workdir/job.out"
left=()
for file in "${files[@]}"; do
  pid=$(cat "$file")
  if alive "$pid"; then
    left+=("$pid")
    kill -KILL "$pid"
  fi
done
check "no rank is left (${left[*]:-none})" test "${#left[@]}" -eq 0
finish
