# shellcheck shell=bash
# Shared by the Slurm tests (sourced): whether a real Slurm cluster can run here.

# Exits the test unless Slurm, munge and root are there: 77 (skipped) on a developer's machine,
# 1 (failed) in CI (CI=true), where scripts/install-deps.sh test installs them.
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
  if [[ ${CI:-} == true ]]; then
    echo "FAIL: $why" >&2
    exit 1
  fi
  echo "SKIP: $why" >&2
  exit 77
}
