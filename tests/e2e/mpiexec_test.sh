#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted $VARS are expanded by the ranks, on purpose
# Real mpiexec from MPICH and Open MPI starting `ezpz exec`: four distinct ranks that agree on the
# world size, the master address and the port.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1

launchers=()
command -v mpiexec.mpich >/dev/null && launchers+=("mpiexec.mpich -n 4")
command -v mpiexec.openmpi >/dev/null && launchers+=("mpiexec.openmpi --allow-run-as-root --oversubscribe -n 4")
check "MPICH and Open MPI are installed (scripts/install-deps.sh test)" test "${#launchers[@]}" -eq 2

for launcher in "${launchers[@]}"; do
  out="$workdir/out.txt"
  # shellcheck disable=SC2086 # the launcher line is split on purpose
  env -u RANK -u WORLD_SIZE -u MASTER_ADDR -u MASTER_PORT $launcher "$ezpz" exec --system local -- \
    sh -c 'echo "$RANK $WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE $MASTER_ADDR $MASTER_PORT $TORCH_DEVICE $TORCH_BACKEND"' \
    >"$out" 2>"$workdir/err"
  code=$?  # before the message: its $(…) would set $? first
  check "$launcher: exits 0 ($(head -c 300 "$workdir/err"))" test "$code" -eq 0
  # What the ranks printed, for the messages below when a check fails.
  got="output: '$(head -c 600 "$out")' stderr: '$(head -c 300 "$workdir/err")'"
  check "$launcher: four ranks 0-3 ($got)" test "$(cut -d' ' -f1 "$out" | sort -n | tr '\n' ' ')" = "0 1 2 3 "
  check "$launcher: every rank sees world size 4 ($got)" test "$(cut -d' ' -f2 "$out" | sort -u)" = "4"
  check "$launcher: local ranks 0-3 of 4 ($got)" test "$(cut -d' ' -f3,4 "$out" | sort -u | tr '\n' ' ')" = "0 4 1 4 2 4 3 4 "
  check "$launcher: one master address and port ($got)" test "$(cut -d' ' -f5,6 "$out" | sort -u | wc -l)" -eq 1
  check "$launcher: cpu and gloo here ($got)" test "$(cut -d' ' -f7,8 "$out" | sort -u)" = "cpu gloo"
  # The exit code of a failing rank reaches mpiexec (exec replaces ezpz, no wrapper in between).
  # shellcheck disable=SC2086
  $launcher "$ezpz" exec --system local -- sh -c '[ "$RANK" != 2 ] || exit 3' >/dev/null 2>&1
  check "$launcher: a failing rank fails the run" test $? -ne 0
done
finish
