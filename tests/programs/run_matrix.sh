#!/usr/bin/env bash
# The verification matrix on this machine (tests/programs/README.md): every program of this folder,
# unchanged but for its recorded patches, under ezpz launch (2 and 4 ranks), mpiexec.mpich and
# mpiexec.openmpi with and without ezpz exec (2 ranks) and as one plain process, each run's
# deterministic values compared with the same program's under /usr/bin/torchrun with as many ranks.
#   run_matrix.sh EZPZ [--launchers L,...] [--table FILE] [PROGRAM...]
# Prints "program launcher result seconds" per run (FILE gets the same lines) and each failed run's
# output; exits 0 when no run failed, 1 otherwise, 77 when something it needs is missing.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"

all_launchers=(launch-2 launch-4 mpich-2 mpich-exec-2 openmpi-2 openmpi-exec-2 plain)
usage() { echo "usage: $0 EZPZ [--launchers ${all_launchers[*]// /,}] [--table FILE] [PROGRAM...]" >&2; exit 2; }
(($#)) || usage
ezpz=$1
shift
launchers=("${all_launchers[@]}")
table=/dev/null
programs=()
while (($#)); do
  case $1 in
    --launchers) IFS=, read -r -a launchers <<<"$2"; shift 2 ;;
    --table) table=$2; shift 2 ;;
    -*) usage ;;
    *) programs+=("$1"); shift ;;
  esac
done
((${#programs[@]})) || mapfile -t programs < <(all_programs)
for program in "${programs[@]}"; do
  [[ -f $programs_dir/$program/matrix.conf ]] || { echo "$0: no program '$program' in $programs_dir" >&2; exit 2; }
done
[[ -x $ezpz ]] || { echo "$0: '$ezpz' is not an executable" >&2; exit 2; }
require_torch_and_launchers

# launcher_command LAUNCHER: sets ranks and command (the program, argv, under LAUNCHER); false for an
# unknown name.
launcher_command() {
  local exec=() mpi
  case $1 in
    plain) ranks=1; command=("$python" "${argv[@]}"); return 0 ;;
    launch-*) ranks=${1#launch-}; command=("$ezpz" launch --system local -n "$ranks" -- "$python" "${argv[@]}"); return 0 ;;
    mpich-exec-* | openmpi-exec-*) exec=("$ezpz" exec --) ;;
    mpich-* | openmpi-*) ;;
    *) return 1 ;;
  esac
  ranks=${1##*-}
  case $1 in
    mpich-*) mpi=(mpiexec.mpich -n "$ranks") ;;
    # Open MPI refuses root without --allow-run-as-root, and more ranks than cores without --oversubscribe.
    openmpi-*) mpi=(mpiexec.openmpi --allow-run-as-root --oversubscribe -n "$ranks") ;;
  esac
  # A bare mpiexec gives no port: ezpz's rule would take 29500, which another test may hold.
  command=(env "MASTER_PORT=$(free_port)" "${mpi[@]}" "${exec[@]}" "$python" "${argv[@]}")
}
for launcher in "${launchers[@]}"; do
  launcher_command "$launcher" >/dev/null || { echo "$0: unknown launcher '$launcher'" >&2; usage; }
done

row() {  # row PROGRAM LAUNCHER RESULT SECONDS
  printf '%-28s %-15s %-6s %s\n' "$1" "$2" "$4" "$3" | tee -a "$table"
}
show_log() {  # show_log LOG: a failed run's output, for the ctest log
  sed 's/^/    out: /' "$1.out" | tail -n 25
  sed 's/^/    err: /' "$1.err" | tail -n 25
}

logs=$workdir/logs
mkdir -p "$logs"
matrix_start=$SECONDS
for program in "${programs[@]}"; do
  program_argv "$program"
  program_env "$program"
  declare -A baseline=() baseline_ok=()
  for launcher in "${launchers[@]}"; do
    launcher_command "$launcher"
    if needs_launcher_variables "$program" && [[ $launcher == plain || ($launcher == *-* && $launcher != launch-* && $launcher != *-exec-*) ]]; then
      row "$program" "$launcher" "n/a (reads torchrun's variables itself: nothing here sets them)" "-"
      continue
    fi
    # torchrun's values with as many ranks, once per rank count.
    if [[ -z ${baseline_ok[$ranks]:-} ]]; then
      log=$logs/$program.torchrun-$ranks
      if ! stage "$program" "$workdir/run/$program/torchrun-$ranks"; then
        row "$program" "$launcher" "FAIL (a patch does not apply)" "-"
        continue
      fi
      torchrun_command "$ranks"
      run_in "$workdir/run/$program/torchrun-$ranks" "$log" "${command[@]}"
      baseline[$ranks]=$(values "$program" "$log.out" "$log.err")
      baseline_ok[$ranks]=$code
      row "$program" "torchrun-$ranks" "$( ((code == 0)) && echo "baseline, $(grep -c . <<<"${baseline[$ranks]}") value(s)" ||
        echo "FAIL (exit $code: $(last_error "$log"))")" "$seconds"
      ((code == 0)) || { fail "$program under torchrun-$ranks exits $code"; show_log "$log"; }
    fi
    launcher_command "$launcher"
    dir=$workdir/run/$program/$launcher
    log=$logs/$program.$launcher
    stage "$program" "$dir" || { row "$program" "$launcher" "FAIL (a patch does not apply)" "-"; continue; }
    run_in "$dir" "$log" "${command[@]}"
    got=$(values "$program" "$log.out" "$log.err")
    if ((code != 0)); then
      result="FAIL (exit $code: $(last_error "$log"))"
    elif ((baseline_ok[$ranks] != 0)); then
      result="FAIL (no baseline: torchrun-$ranks failed)"
    elif [[ $got != "${baseline[$ranks]}" ]]; then
      result="FAIL (values differ from torchrun-$ranks: $(diff <(echo "${baseline[$ranks]}") <(echo "$got") | grep '^[<>]' | head -n 2 | tr '\n' ' '))"
    elif [[ -n $(conf "$program" values) && -z $got ]]; then
      result="FAIL (no values printed)"
    else
      result=ok
    fi
    row "$program" "$launcher" "$result" "$seconds"
    if [[ $result != ok ]]; then
      fail "$program under $launcher: $result"
      echo "--- ${command[*]} (in $dir)"
      show_log "$log"
    fi
  done
  unset baseline baseline_ok
done
echo "the matrix took $((SECONDS - matrix_start)) s"
finish
