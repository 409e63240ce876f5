#!/usr/bin/env bash
# tests/python/ddp_check.py --setup ezpz: a DDP script that joins through ezpz.setup_torch() alone (the
# ezpz Python package from this build, $EZPZ_PYTHONPATH, or the one installed in $EZPZ_TEST_PYTHON's
# venv), started by a launcher that knows nothing of ezpz, or by ezpz launch: N ranks, each with its own
# rank and local rank, the all-reduce sum n(n+1)/2.
#   setup_torch_test.sh EZPZ launch|mpiexec|openmpi|torchrun N
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
ezpz=$1
mode=$2
n=$3
require_torch
use_test_package
# Nothing from an outer job or launcher may leak in: each launcher below sets its own variables.
unset EZPZ_SYSTEM RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT TORCH_DEVICE TORCH_BACKEND
sum=$((n * (n + 1) / 2))
# A port of its own: other tests may run beside this one (a user's lone mpiexec job may keep 29500).
port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
program=("$python" "$ddp_check" --setup ezpz --steps 2 --timeout 60)

case $mode in
  launch) command=("$ezpz" launch --system local -n "$n" -- "${program[@]}") ;;
  mpiexec)
    command=(env MASTER_PORT="$port" mpiexec.mpich -n "$n" "${program[@]}")
    command -v mpiexec.mpich >/dev/null || cannot_run "mpiexec.mpich not found (Debian mpich: scripts/install-deps.sh test)"
    ;;
  openmpi)
    # Open MPI's ranks know their rank from OMPI_COMM_WORLD_*; as root it needs --allow-run-as-root.
    command=(env MASTER_PORT="$port" mpiexec.openmpi --allow-run-as-root --oversubscribe -n "$n" "${program[@]}")
    command -v mpiexec.openmpi >/dev/null || cannot_run "mpiexec.openmpi not found (Debian openmpi-bin: scripts/install-deps.sh test)"
    ;;
  torchrun)
    [[ -x /usr/bin/torchrun ]] || cannot_run "/usr/bin/torchrun not found (Debian python3-torch)"
    # --redirects/--tee: Debian's torchrun on Python 3.11 crashes without them (tests/torch/torchrun_test.sh).
    # TMPDIR: torchrun's agent leaves a torchelastic_* directory there.
    command=(env "TMPDIR=$workdir" /usr/bin/torchrun --nproc_per_node "$n" --master_port "$port" --redirects 9:1 --tee 9:1
             --monitor_interval 0.1 "$ddp_check" --setup ezpz --steps 2 --timeout 60)
    ;;
  *) echo "usage: $0 EZPZ launch|mpiexec|openmpi|torchrun N" >&2; exit 2 ;;
esac

timeout -k 5 180 "${command[@]}" >"$workdir/out" 2>"$workdir/err"
status=$?
echo "--- ${command[*]}: exit $status"
sed 's/^/    out: /' "$workdir/out"
grep -v '^\*\*\*\|OMP_NUM_THREADS\|^WARNING:torch.distributed.run:$' "$workdir/err" | sed 's/^/    err: /'
check "$mode with $n ranks exits 0" test "$status" -eq 0
# A bare mpiexec may join two ranks' lines on one line of its own output: match each rank's text alone.
for ((r = 0; r < n; r++)); do
  check "rank $r of $n: local rank $r, gloo on cpu, all-reduce sum $sum, OK" \
    grep -qE "ddp_check: rank $r/$n local $r/$n on [^ ]+, backend gloo, device cpu: 2 DDP step\(s\), all-reduce sum $sum \(expected $sum\): OK" "$workdir/out"
done
check "rank 0's summary: $n ranks, sum $sum, OK" \
  grep -qE "ddp_check: $n ranks on 1 node\(s\) \([^ ]+\), backend gloo, all-reduce sum $sum \(expected $sum\): OK" "$workdir/out"
finish
