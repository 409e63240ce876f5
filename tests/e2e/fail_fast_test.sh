#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted $VARS are expanded by the ranks, on purpose
# Fail fast under real launchers: when rank 1 of 4 exits 3 while the others would sleep 300 s, MPICH's
# Hydra mpiexec (directly, and as `ezpz launch` of the pbs profile through a stand-in for PALS
# mpiexec) and Open MPI's end within seconds with exit code 3 and leave no rank behind. And a
# multi-node job whose MASTER_ADDR does not resolve stops at once in `ezpz exec`.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
ezpz=$1
rank=$here/fail_fast_rank.sh  # rank 1 exits 3 once the other three sleep
limit=30  # seconds a launch may take before it counts as not failing fast

pids_of() { echo "$workdir/pids-${1//[^a-z]/_}"; }  # pids_of NAME: where that run's ranks record PIDs

# run_failing NAME COMMAND...: runs COMMAND (4 ranks of fail_fast_rank.sh with `pids_of NAME` as argument) and
# checks exit code 3, the time taken, and that no sleeping rank is left.
run_failing() {
  local name=$1 pids
  shift
  pids=$(pids_of "$name")
  mkdir -p "$pids"
  local start=$SECONDS
  timeout -k 5 $((limit * 3)) "$@" >"$workdir/out" 2>"$workdir/err"
  local status=$? elapsed=$((SECONDS - start))
  check "$name: exits with the failing rank's code 3 (got $status; $(tail -c 300 "$workdir/err"))" test "$status" -eq 3
  check "$name: ends within $limit s (took ${elapsed}s)" test "$elapsed" -lt "$limit"
  local files=("$pids"/*) file pid left=()
  check "$name: the three other ranks had started (${files[*]##*/})" test "${#files[@]}" -eq 3
  for file in "${files[@]}"; do
    [[ -e $file ]] || continue
    pid=$(cat "$file")
    for _ in $(seq 50); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then
      left+=("$pid")
      kill -KILL "$pid"
    fi
  done
  check "$name: no rank is left running (${left[*]:-none})" test "${#left[@]}" -eq 0
}

command -v mpiexec.mpich >/dev/null || cannot_run "MPICH's mpiexec.mpich is not installed (scripts/install-deps.sh test)"
command -v mpiexec.openmpi >/dev/null || cannot_run "Open MPI's mpiexec.openmpi is not installed (scripts/install-deps.sh test)"
unset RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT PBS_NODEFILE PBS_JOBID SLURM_JOB_ID

# Hydra stops the other ranks only for a PMI client that ends before PMI finalize: ezpz exec is one.
run_failing "mpiexec.mpich" mpiexec.mpich -n 4 "$ezpz" exec --system local -- "$rank" "$(pids_of mpiexec.mpich)"
# Open MPI's mpirun stops the others by default and returns the first failing rank's code.
run_failing "mpiexec.openmpi" mpiexec.openmpi --allow-run-as-root --oversubscribe -n 4 \
  "$ezpz" exec --system local -- "$rank" "$(pids_of mpiexec.openmpi)"

# `ezpz launch` of the pbs profile writes a PALS line (--ppn, --depth, --cpu-bind, --hostfile); this
# stand-in drops what Hydra does not take and runs the ranks on real Hydra.
mkdir -p "$workdir/bin"
cat >"$workdir/bin/mpiexec" <<'SH'
#!/usr/bin/env bash
# Stand-in for HPE PALS mpiexec: real MPICH Hydra on this machine, PALS-only options dropped.
args=()
while (($#)); do
  case $1 in
    -n) args+=(-n "$2"); shift 2 ;;
    --ppn|--hostfile|--cpu-bind) shift 2 ;;
    --depth=*|--cpu-bind=*) shift ;;
    *) break ;;
  esac
done
exec mpiexec.mpich "${args[@]}" "$@"
SH
chmod +x "$workdir/bin/mpiexec"
echo localhost >"$workdir/nodefile"
run_failing "ezpz launch pbs" env PATH="$workdir/bin:$PATH" EZPZ_SYSTEM=pbs \
  "$ezpz" launch --system pbs --hostfile "$workdir/nodefile" -n 4 -- "$rank" "$(pids_of "ezpz launch pbs")"
check "ezpz launch ran the pbs profile's PALS line" grep -q "ezpz launch: mpiexec -n 4 --ppn 4 --depth=1 --cpu-bind depth --hostfile" "$workdir/err"

# A 2-node job (rank 0 of 4, 2 per node, as MPICH sets it) whose first host is not in DNS.
printf 'no-such-host.invalid\nlocalhost\n' >"$workdir/nodes2"
two_nodes=(PMI_RANK=0 PMI_SIZE=4 MPI_LOCALRANKID=0 MPI_LOCALNRANKS=2 PBS_NODEFILE="$workdir/nodes2" PBS_JOBID=12.pbs)
start=$SECONDS
timeout 60 env "${two_nodes[@]}" "$ezpz" exec --system pbs -- sleep 300 >"$workdir/out" 2>"$workdir/err"
status=$? elapsed=$((SECONDS - start))
check "unresolvable MASTER_ADDR: exit 1 (got $status)" test "$status" -eq 1
check "unresolvable MASTER_ADDR: at once (took ${elapsed}s)" test "$elapsed" -lt 10
check "the error names MASTER_ADDR, its value and where it came from ($(cat "$workdir/err"))" \
  grep -q "^ezpz: error: MASTER_ADDR 'no-such-host' does not resolve on this node (.*); it comes from the first host 'no-such-host' of PBS_NODEFILE=$workdir/nodes2 in master_addr '{first_host}' of profile 'pbs'" "$workdir/err"
timeout 60 env "${two_nodes[@]}" MASTER_ADDR=no-such-host.invalid "$ezpz" exec --system pbs -- true 2>"$workdir/err"
check "an exported MASTER_ADDR is checked too (exit $?)" grep -q "MASTER_ADDR 'no-such-host.invalid' does not resolve on this node .*; it comes from MASTER_ADDR set in the environment" "$workdir/err"
env "${two_nodes[@]}" "$ezpz" exec --system pbs --print >/dev/null 2>&1
check "--print looks nothing up (exit $?)" test $? -eq 0
env PMI_RANK=0 PMI_SIZE=2 MPI_LOCALRANKID=0 MPI_LOCALNRANKS=2 PBS_NODEFILE="$workdir/nodes2" \
  "$ezpz" exec --system pbs -- true 2>"$workdir/err"
code=$?  # before the message: its $(…) would set $? first
check "a single-node job does not need its host list to resolve (exit $code; $(cat "$workdir/err"))" test "$code" -eq 0
finish
