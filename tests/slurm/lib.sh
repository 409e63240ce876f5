# shellcheck shell=bash
# Shared by the Slurm tests (sourced): whether a real Slurm cluster can run here.

# Exits the test unless Slurm, munge and root are there (cannot_run in tests/e2e/lib.sh: skipped on a
# developer's machine, failed under CI=true).
require_slurm() {
  local missing=() program
  for program in munged mungekey slurmctld slurmd sbatch srun squeue scontrol sinfo sacct scancel; do
    command -v "$program" >/dev/null || missing+=("$program")
  done
  local why=
  if ((${#missing[@]})); then
    why="Slurm is not installed (missing ${missing[*]}): run scripts/install-deps.sh test (Debian packages slurm-wlm, munge)"
  elif ((EUID != 0)); then
    why="the test Slurm cluster needs root (slurmd starts jobs as their owner)"
  fi
  [[ -n $why ]] || return 0
  cannot_run "$why"
}

# Enters the cluster for a test that submits jobs through ezpz: requires Slurm (above), takes the
# cluster's SLURM_CONF, polls fast, keeps job records in $workdir (tests/e2e/lib.sh) and works there.
enter_cluster() {  # enter_cluster CLUSTER_DIR
  require_slurm
  local env_lines
  env_lines=$("$(dirname "${BASH_SOURCE[0]}")/cluster.sh" env "$1") || exit 1
  eval "$env_lines"
  # shellcheck disable=SC2154 # workdir comes from tests/e2e/lib.sh, which every caller sources first
  export EZPZ_POLL_SECONDS=0.5 EZPZ_RECORDS_DIR="$workdir/records"
  unset EZPZ_SYSTEM
  cd "$workdir" || exit 1
}

# The tests' Python (Debian's, with json).
python=/usr/bin/python3
[[ -x $python ]] || python=python3

# job_field JOB NAME: NAME of the job in `ezpz status JOB --json` (with or without a record).
job_field() {
  "${ezpz:?}" status "$1" --system slurm --json 2>/dev/null |
    "$python" -c 'import json, sys; print(json.load(sys.stdin)[0][sys.argv[1]])' "$2"
}
# job_output JOB: the path of the job's standard output, as Slurm has it.
job_output() { scontrol -o show job "$1" | grep -o 'StdOut=[^ ]*' | cut -d= -f2; }
# wait_job_done JOB [SECONDS]: until ezpz says the job will not change any more (90 s unless told).
wait_job_done() {
  local _
  for _ in $(seq $((${2:-90} * 2))); do
    [[ $(job_field "$1" done) == True ]] && return 0
    sleep 0.5
  done
  return 1
}

# run_batch_job SCRIPT WHAT: submits SCRIPT with sbatch, checks that it was taken, and waits up to two
# minutes until Slurm no longer lists it. Sets $job (empty when sbatch refused it, and the test ends).
run_batch_job() {
  job=$(sbatch --parsable "$1")
  check "submitted $2 ($job)" test -n "$job"
  [[ -n $job ]] || finish
  for _ in $(seq 240); do
    [[ -z $(squeue -h -j "$job" -o %T 2>/dev/null) ]] && break
    sleep 0.5
  done
}
