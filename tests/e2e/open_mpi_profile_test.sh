#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted $VARS are expanded by the ranks, on purpose
# A profile whose launcher is Open MPI's mpirun (Sophia) run for real: `ezpz launch --system sophia`
# builds mpirun -n -N --hostfile with -x for every variable the ranks need, a real Open MPI 4 mpirun
# (Debian's, under the name `mpirun` the profile uses) takes that line, and each rank's `ezpz exec`
# finds its rank in OMPI_COMM_WORLD_*, its GPU, nccl and MASTER_ADDR on lab.alcf.anl.gov.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1

command -v mpiexec.openmpi >/dev/null || cannot_run "Open MPI's mpiexec.openmpi is not installed (scripts/install-deps.sh test)"

# `mpirun` is Open MPI's here whatever the alternatives say; as root it needs --allow-run-as-root.
mkdir -p "$workdir/bin"
cat >"$workdir/bin/mpirun" <<'SH'
#!/bin/sh
exec mpiexec.openmpi --allow-run-as-root --oversubscribe "$@"
SH
chmod +x "$workdir/bin/mpirun"
export PATH="$workdir/bin:$PATH"
printf 'localhost\n' >"$workdir/nodes"
export PBS_JOBID=31415.sophia-pbs-01 PBS_NODEFILE="$workdir/nodes"
unset EZPZ_SYSTEM EZPZ_TORCH_BACKEND EZPZ_TORCH_DEVICE RANK WORLD_SIZE LOCAL_RANK MASTER_ADDR MASTER_PORT CUDA_VISIBLE_DEVICES
rank_line='echo "$RANK $LOCAL_RANK $WORLD_SIZE $LOCAL_WORLD_SIZE $CUDA_VISIBLE_DEVICES $TORCH_DEVICE $TORCH_BACKEND $MASTER_ADDR $MASTER_PORT $EZPZ_SYSTEM"'

line=$("$ezpz" launch --system sophia -n 2 --ppn 2 --hostfile "$workdir/nodes" --dry-run -- true 2>/dev/null)
check "the launch line is Open MPI's ($line)" grep -q "^mpirun -n 2 -N 2 --hostfile $workdir/nodes -x EZPZ_BIN -x EZPZ_SYSTEM " <<<"$line"
for name in EZPZ_TORCH_BACKEND EZPZ_TORCH_DEVICE PATH LD_LIBRARY_PATH PBS_JOBID PBS_NODEFILE EZPZ_HOSTFILE; do
  check "it passes $name with -x" grep -q -- " -x $name " <<<"$line"
done

out="$workdir/out"
"$ezpz" launch --system sophia -n 2 --ppn 2 --hostfile "$workdir/nodes" -- sh -c "$rank_line" >"$out" 2>"$workdir/err"
code=$?  # before the message: its $(…) would set $? first
check "Open MPI runs the line: exit 0 ($(head -c 400 "$workdir/err"))" test "$code" -eq 0
check "two ranks 0 and 1 on one node of 2" test "$(cut -d' ' -f1-4 "$out" | sort | tr '\n' ' ')" = "0 0 2 2 1 1 2 2 "
check "each rank sees its own GPU" test "$(cut -d' ' -f5,6 "$out" | sort | tr '\n' ' ')" = "0 cuda:0 1 cuda:0 "
check "nccl, and the ranks were told the system" test "$(cut -d' ' -f7,10 "$out" | sort -u)" = "nccl sophia"
check "MASTER_ADDR is the first host on lab.alcf.anl.gov ($(cut -d' ' -f8 "$out" | sort -u))" \
  test "$(cut -d' ' -f8 "$out" | sort -u)" = "localhost.lab.alcf.anl.gov"
check "one port for both ranks" test "$(cut -d' ' -f9 "$out" | sort -u | wc -l)" -eq 1

# cpu_bind reaches Open MPI as --bind-to, and mpirun takes it.
"$ezpz" launch --system sophia -n 2 --ppn 2 --hostfile "$workdir/nodes" --cpu-bind core -- sh -c "$rank_line" \
  >"$out" 2>"$workdir/err"
code=$?  # before the message: its $(…) would set $? first
check "--cpu-bind core becomes --bind-to core and runs ($(head -c 400 "$workdir/err"))" test "$code" -eq 0
check "... both ranks ran" test "$(wc -l <"$out")" -eq 2

# A failing rank fails the launch (Open MPI aborts the job).
"$ezpz" launch --system sophia -n 2 --ppn 2 --hostfile "$workdir/nodes" -- sh -c '[ "$RANK" != 1 ] || exit 3' \
  >/dev/null 2>&1
check "a failing rank fails mpirun" test $? -ne 0
finish
