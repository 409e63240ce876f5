#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted $VARS are expanded by the tasks, on purpose
# The test cluster works: `sbatch -N 2` of a script whose `srun` runs 2 tasks on each of 2 nodes
# completes, the 4 tasks ran on 2 distinct virtual nodes, and the finished job's state can be read
# back the ways `ezpz status` can: scontrol/squeue (for MinJobAge seconds), sacct -c (the jobcomp
# file); plain sacct has no accounting database here.
#   sbatch_smoke_test.sh CLUSTER_DIR   (a cluster started by cluster.sh start CLUSTER_DIR)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
require_slurm
cluster=$1
env_lines=$("$here/cluster.sh" env "$cluster") || exit 1
eval "$env_lines"

cat >"$workdir/job.sh" <<'EOF'
#!/bin/bash
srun -N 2 --ntasks-per-node=2 bash -c 'echo "task $SLURM_PROCID of $SLURM_NTASKS on $SLURMD_NODENAME"'
EOF
submitted=$(sbatch --parsable -N 2 --ntasks-per-node=2 --job-name=ezpz-smoke -D "$workdir" \
  -o "$workdir/out.txt" "$workdir/job.sh" 2>"$workdir/err")
code=$?  # before the message: its $(…) would set $? first
check "sbatch exits 0 ($(cat "$workdir/err"))" test "$code" -eq 0
job=${submitted%%;*}  # --parsable prints "ID" or "ID;CLUSTER"
check "sbatch --parsable prints a job id (got '$submitted')" grep -qx '[0-9][0-9]*' <<<"$job"
if ((failures)); then finish; fi

# Wait (at most 60 s) until slurmctld reports a final state.
state=
for ((i = 0; i < 300; i++)); do
  state=$(scontrol -o show job "$job" | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
  case $state in
    PENDING | CONFIGURING | RUNNING | COMPLETING | '') sleep 0.2 ;;
    *) break ;;
  esac
done
check "the job completed (state '$state'; output: $(head -c 500 "$workdir/out.txt" 2>/dev/null))" \
  test "$state" = COMPLETED
check "scontrol: exit code 0:0" bash -c "scontrol -o show job '$job' | grep -q ' ExitCode=0:0 '"

out=$workdir/out.txt
check "4 tasks 0-3 of 4 ($(tr '\n' '|' <"$out"))" \
  test "$(awk '{print $2, $4}' "$out" | sort -n | tr '\n' ' ')" = "0 4 1 4 2 4 3 4 "
check "tasks on 2 distinct nodes" test "$(awk '{print $6}' "$out" | sort -u | wc -l)" -eq 2
check "2 tasks on each node" test "$(awk '{print $6}' "$out" | sort | uniq -c | awk '{print $1}' | sort -u)" = 2
check "the nodes are virtual nodes of the test cluster" test -z "$(awk '{print $6}' "$out" | grep -vx 'n[1-3]')"

# The finished job as `ezpz status` sees it.
check "squeue --states=all still lists it as COMPLETED" \
  test "$(squeue --noheader --states=all --jobs="$job" --format=%T)" = COMPLETED
check "plain squeue does not list a finished job" test -z "$(squeue --noheader --jobs="$job" --format=%T)"
# The jobcomp record is written when the job ends; give it a moment.
for ((i = 0; i < 25; i++)); do
  comp=$(sacct -c --noheader --parsable2 --jobs="$job" --format=JobID,JobName,State,ExitCode,NNodes 2>&1)
  [[ -n $comp ]] && break
  sleep 0.2
done
check "sacct -c reads the jobcomp file (got '$comp')" test "$comp" = "$job|ezpz-smoke|COMPLETED|0:0|2"
check "the jobcomp file has the job" grep -q "^JobId=$job .* JobState=COMPLETED " "$cluster/jobcomp.txt"
sacct --jobs="$job" >/dev/null 2>"$workdir/sacct.err"
check "plain sacct fails without slurmdbd" test $? -ne 0
check "plain sacct says accounting is disabled ($(cat "$workdir/sacct.err"))" \
  grep -q 'accounting storage is disabled' "$workdir/sacct.err"
finish
