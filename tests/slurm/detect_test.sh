#!/usr/bin/env bash
# Detection of a generic Slurm cluster on the real cluster on localhost, which no named profile
# matches: outside a job, Slurm's commands and the configuration SLURM_CONF names pick the generic
# `slurm` profile (this machine may have PBS installed too, at /etc/pbs.conf), while ranks started
# here stay local; `ezpz submit job.sh` with #SBATCH lines and no --system submits it to Slurm; inside
# the job the job's variables pick `slurm`, with or without the installed commands.
#   detect_test.sh CLUSTER_DIR EZPZ
# shellcheck disable=SC2016 # the single-quoted $VARS are expanded by the ranks, on purpose
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
cluster=$1
ezpz=$2
enter_cluster "$cluster"
unset SLURM_JOB_ID SLURM_JOBID PBS_JOBID

# 1. A login node: outside any job.
"$ezpz" systems detect >"$workdir/detect.out" 2>"$workdir/detect.err"
check "outside a job: slurm ($(cat "$workdir/detect.out"))" grep -qx slurm "$workdir/detect.out"
check "... because sbatch and squeue are on PATH and SLURM_CONF names its configuration ($(cat "$workdir/detect.err"))" \
  grep -q "detected 'slurm': '.*/sbatch', '.*/squeue' on PATH, configuration SLURM_CONF='$SLURM_CONF'" "$workdir/detect.err"
check "... and ranks started here outside a job are local" \
  grep -q "outside a job use 'local'" "$workdir/detect.err"
"$ezpz" launch -n 2 -- sh -c 'echo "rank $RANK of $WORLD_SIZE"' >"$workdir/launch.out" 2>"$workdir/launch.err"
check "ezpz launch outside a job runs local ranks ($(tr '\n' ' ' <"$workdir/launch.err"))" \
  test "$(sort "$workdir/launch.out" | tr '\n' ' ')" = "rank 0 of 2 rank 1 of 2 "

# 2. A batch script of the user's own, submitted without --system. Inside the job: detection with the
#    job's environment, and once more without Slurm's commands and configuration (the job's variables).
cat >"$workdir/job.sh" <<EOF
#!/bin/bash
#SBATCH --job-name=ezpz-detect
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=1
#SBATCH --time=5
#SBATCH --output=detect-%j.out
echo "job \$SLURM_JOB_ID"
$(printf '%q' "$ezpz") systems detect 2>&1
env -u SLURM_CONF PATH=/nonexistent $(printf '%q' "$ezpz") systems detect 2>&1
EOF
chmod +x "$workdir/job.sh"
job=$("$ezpz" submit job.sh --wait 2>"$workdir/submit.err")
code=$?
check "ezpz submit job.sh without --system: the job ran and exited 0 ($code; $(tail -n 3 "$workdir/submit.err"))" \
  test "$code" -eq 0
check "... only the job id on stdout ('$job')" grep -qx '[0-9][0-9]*' <<<"$job"
[[ -n $job ]] || finish
check "... recorded as a job of system slurm" \
  "$python" -c 'import json, sys; assert json.load(open(sys.argv[1]))["system"] == "slurm"' "$workdir/records/$job/record.json"
out="$workdir/detect-$job.out"
check "inside the job: slurm, with and without Slurm's commands ($(tr '\n' ' ' <"$out" 2>/dev/null))" \
  test "$(grep -cx slurm "$out")" -eq 2
check "... by the job's variable" test "$(grep -c "detected 'slurm': SLURM_JOB_ID='$job'" "$out")" -eq 2
finish
