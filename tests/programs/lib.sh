# shellcheck shell=bash
# Shared by run_matrix.sh and slurm_matrix.sh (sourced after tests/e2e/lib.sh): a program of this folder
# staged in a fresh folder, its run settings, the deterministic values of a run, torchrun's baseline.

programs_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The interpreter with torch (Debian's; a `python3` on PATH may be a pyenv build without it).
python=${EZPZ_TEST_PYTHON:-/usr/bin/python3}
torchrun=/usr/bin/torchrun
# What an outer job, launcher or shell may have set: every run starts without it.
launcher_variables=(RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE GROUP_RANK NODE_RANK MASTER_ADDR MASTER_PORT
  TORCHELASTIC_RUN_ID TORCH_DEVICE TORCH_BACKEND PMI_RANK PMI_SIZE OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE
  SLURM_PROCID SLURM_JOB_ID SLURM_JOBID PBS_JOBID PALS_RANKID EZPZ_SYSTEM EZPZ_LOG_TIMESTAMP)

# all_programs: every program folder's name.
all_programs() {
  local conf
  for conf in "$programs_dir"/*/matrix.conf; do basename "$(dirname "$conf")"; done
}

# conf PROGRAM KEY: the values of PROGRAM's KEY lines in matrix.conf, one a line.
conf() {
  sed -nE "s/^$2[[:space:]]+//p" "$programs_dir/$1/matrix.conf"
}

# needs_launcher_variables PROGRAM: true when the program reads torchrun's variables itself.
needs_launcher_variables() {
  conf "$1" needs | grep -qx 'launcher-variables'
}

# program_argv PROGRAM: sets argv to the program and its arguments (matrix.conf's run line).
program_argv() {
  read -r -a argv <<<"$(conf "$1" run)"
}

# program_env PROGRAM: sets env_args to the program's NAME=VALUE settings (matrix.conf's env lines).
program_env() {
  mapfile -t env_args < <(conf "$1" env)
}

# stage PROGRAM DIR: DIR made anew with the program's files and its patches applied; false (and why on
# stderr) when a patch does not apply.
stage() {
  local patch
  rm -rf "$2" && mkdir -p "$2" || return 1
  find "$programs_dir/$1" -maxdepth 1 -type f -name '*.py' -exec cp {} "$2/" \;
  for patch in "$programs_dir/$1"/*.patch; do
    [[ -e $patch ]] || continue
    patch --batch --silent --no-backup-if-mismatch -p1 -d "$2" -i "$patch" >&2 ||
      { echo "$1: $(basename "$patch") does not apply" >&2; return 1; }
  done
}

# values PROGRAM FILE...: the program's deterministic values (its matrix.conf values patterns) found in
# FILE..., one a line, sorted. Each match is taken alone, so that two ranks' lines joined into one by a
# launcher still give both.
values() {
  local patterns
  patterns=$(conf "$1" values)
  [[ -n $patterns ]] || return 0
  grep -ohE -f <(printf '%s\n' "$patterns") "${@:2}" | LC_ALL=C sort
}

# free_port: a TCP port free on 127.0.0.1 now.
free_port() {
  "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# clean_env: the `env` arguments that start a run without launcher variables, on system local, with
# this build's ezpz Python package.
clean_env() {
  local name
  clean=(env)
  for name in "${launcher_variables[@]}"; do clean+=(-u "$name"); done
  clean+=(EZPZ_SYSTEM=local)
  [[ -n ${EZPZ_PYTHONPATH:-} ]] && clean+=("PYTHONPATH=$EZPZ_PYTHONPATH")
  return 0
}

# torchrun_command N: sets command to the program (argv) under torchrun with N ranks on this machine.
# --redirects/--tee 9:1 (no rank's output redirected): Debian's torchrun on Python 3.11 crashes without
# them (tests/torch/torchrun_test.sh). TMPDIR: torchrun's agent leaves a torchelastic_* directory there.
torchrun_command() {
  # shellcheck disable=SC2034 # for the caller
  command=(env "TMPDIR=$workdir" "$torchrun" --nproc_per_node "$1" --master_port "$(free_port)" --redirects 9:1 --tee 9:1
    --monitor_interval 0.1 "${argv[@]}")
}

# run_in DIR LOG COMMAND...: runs COMMAND in DIR (2 minutes at most) with the program's environment,
# stdout and stderr in LOG.out and LOG.err; sets code to its exit status and seconds to its wall time.
run_in() {
  local dir=$1 log=$2 start
  shift 2
  clean_env
  start=$(date +%s.%N)
  (cd "$dir" && timeout -k 5 120 "${clean[@]}" "${env_args[@]}" "$@" >"$log.out" 2>"$log.err")
  # shellcheck disable=SC2034 # for the caller
  code=$?
  # shellcheck disable=SC2034 # for the caller
  seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
}

# last_error LOG: what went wrong, for a table cell: the last Python exception line of LOG.out or
# LOG.err (as a launcher passed it on, maybe after a rank prefix), else the last line of LOG.err that is
# not a launcher's decoration.
last_error() {
  local line
  line=$(grep -hoE '\b[A-Za-z_][A-Za-z0-9_.]*(Error|Exception|Exit)(: .*|$)' "$1.out" "$1.err" | grep -v 'ChildFailedError' | tail -n 1)
  [[ -n $line ]] || line=$(grep -vE '^\s*$|^[-=*]+$|OMP_NUM_THREADS|^WARNING:torch.distributed.run' "$1.err" | tail -n 1)
  cut -c1-160 <<<"$line"
}

# require_torch_and_launchers: exits (cannot_run) unless torch, torchrun and both MPIs are here.
require_torch_and_launchers() {
  local program missing=()
  if [[ ! -x $python ]] || ! "$python" -c 'import torch.distributed' 2>/dev/null; then
    cannot_run "$python cannot import torch (Debian's python3-torch: scripts/install-deps.sh test)"
  fi
  [[ -x $torchrun ]] || missing+=("$torchrun (python3-torch)")
  for program in mpiexec.mpich mpiexec.openmpi; do
    command -v "$program" >/dev/null || missing+=("$program")
  done
  command -v patch >/dev/null || missing+=(patch)
  ((${#missing[@]} == 0)) || cannot_run "missing ${missing[*]} (scripts/install-deps.sh test)"
}
