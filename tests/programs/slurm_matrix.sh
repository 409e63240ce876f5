#!/usr/bin/env bash
# The verification matrix's Slurm column (tests/programs/README.md): every program of this folder as a
# job of 2 nodes x 2 ranks on the real test Slurm cluster (tests/slurm), submitted with `ezpz submit
# --wait` (the generic Slurm profile: srun + ezpz exec), its deterministic values compared with the same
# program's under /usr/bin/torchrun in the same shape on this machine (2 agents x 2 ranks).
#   slurm_matrix.sh CLUSTER_DIR EZPZ [--table FILE] [PROGRAM...]
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=../slurm/lib.sh
source "$here/../slurm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"

usage() { echo "usage: $0 CLUSTER_DIR EZPZ [--table FILE] [PROGRAM...]" >&2; exit 2; }
(($# >= 2)) || usage
cluster=$1
ezpz=$2
shift 2
table=/dev/null
programs=()
while (($#)); do
  case $1 in
    --table) table=$2; shift 2 ;;
    -*) usage ;;
    *) programs+=("$1"); shift ;;
  esac
done
((${#programs[@]})) || mapfile -t programs < <(all_programs)
[[ -n ${EZPZ_PYTHONPATH:-} && -f $EZPZ_PYTHONPATH/ezpz/__init__.py ]] ||
  cannot_run "EZPZ_PYTHONPATH does not name a built ezpz Python package"
require_torch_and_launchers
enter_cluster "$cluster"

# torchrun_two_nodes: sets command to the program (argv) under two torchrun agents on this machine,
# node ranks 0 and 1 of 2 with 2 ranks each (a static rendezvous on 127.0.0.1): the job's shape, so that
# local ranks and what each node's local rank 0 does compare. Its status is the first failing agent's.
torchrun_two_nodes() {
  local agent=(env "TMPDIR=$workdir" "$torchrun" --nnodes 2 --nproc_per_node 2 --master_addr 127.0.0.1 --master_port "$(free_port)"
    --redirects 9:1 --tee 9:1 --monitor_interval 0.1)
  # shellcheck disable=SC2016 # the inner script's own expansions
  command=(bash -c 'n=$1; shift; "${@:1:n}" --node_rank 1 "${@:n+1}" & other=$!
    "${@:1:n}" --node_rank 0 "${@:n+1}"; mine=$?; wait "$other"; theirs=$?; exit $((mine ? mine : theirs))'
    _ "${#agent[@]}" "${agent[@]}" "${argv[@]}")
}

row() {  # row PROGRAM RESULT SECONDS
  printf '%-28s %-15s %-6s %s\n' "$1" slurm-2x2 "$3" "$2" | tee -a "$table"
}
matrix_start=$SECONDS
for program in "${programs[@]}"; do
  program_argv "$program"
  program_env "$program"
  base=$workdir/run/$program
  if ! stage "$program" "$base/torchrun-2x2" || ! stage "$program" "$base/slurm"; then
    row "$program" "FAIL (a patch does not apply)" -
    fail "$program: a patch does not apply"
    continue
  fi
  torchrun_two_nodes
  run_in "$base/torchrun-2x2" "$base/torchrun" "${command[@]}"
  baseline=$(values "$program" "$base/torchrun.out" "$base/torchrun.err")
  baseline_code=$code
  ((code == 0)) || fail "$program under torchrun-2x2 exits $code: $(last_error "$base/torchrun")"

  # The virtual nodes share this host: rendezvous on loopback, Gloo over lo.
  {
    printf 'name: ezpz-program\nsystem: slurm\nqueue: debug\nnodes: 2\nranks_per_node: 2\nwalltime: 5m\n'
    printf 'env: {MASTER_ADDR: 127.0.0.1, GLOO_SOCKET_IFNAME: lo, PYTHONPATH: "%s"' "$EZPZ_PYTHONPATH"
    for setting in "${env_args[@]}"; do printf ', %s: "%s"' "${setting%%=*}" "${setting#*=}"; done
    printf '}\nrun: ["%s"' "$python"
    for word in "${argv[@]}"; do printf ', "%s"' "$word"; done
    printf ']\n'
  } >"$base/slurm/job.yaml"
  start=$SECONDS
  launcher_unset=()
  for name in "${launcher_variables[@]}"; do launcher_unset+=(-u "$name"); done
  job=$(cd "$base/slurm" && env "${launcher_unset[@]}" "$ezpz" submit job.yaml --wait 2>"$base/submit.err")
  status=$?
  seconds=$((SECONDS - start))
  "$ezpz" logs "$job" >"$base/slurm.out" 2>&1
  got=$(values "$program" "$base/slurm.out")
  if ((status != 0)); then
    cp "$base/slurm.out" "$base/job.out" && : >"$base/job.err"
    result="FAIL (job $job exits $status: $(last_error "$base/job"))"
  elif ((baseline_code != 0)); then
    result="FAIL (no baseline: torchrun-2x2 exits $baseline_code: $(last_error "$base/torchrun"))"
  elif [[ $got != "$baseline" ]]; then
    result="FAIL (values differ from torchrun-2x2: $(diff <(echo "$baseline") <(echo "$got") | grep '^[<>]' | head -n 2 | tr '\n' ' '))"
  elif [[ -n $(conf "$program" values) && -z $got ]]; then
    result="FAIL (no values printed)"
  else
    result=ok
  fi
  row "$program" "$result" "$seconds"
  if [[ $result != ok ]]; then
    fail "$program as a 2x2 Slurm job: $result"
    sed 's/^/    submit: /' "$base/submit.err" | tail -n 10
    sed 's/^/    log: /' "$base/slurm.out" | tail -n 30
  fi
done
echo "the Slurm matrix took $((SECONDS - matrix_start)) s"
finish
