#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted $VARS are expanded by the ranks, on purpose
# `ezpz launch --timeout`, the idle-output watchdog, with real processes: a launch whose ranks stop
# writing (a stopped rank, a sleeping one) ends in timeout + grace with exit 124 and leaves no process
# behind, locally and through a real launcher (Open MPI's mpirun); a chatty launch is never ended; and
# output is bytes: invalid UTF-8 and a 1 MB line without a newline pass through unchanged.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1

# Every process of a launch carries this marker in its command line, so the test can look for leftovers.
marker="ezpz-watchdog-test-$$"
nothing_left() { ! pgrep -f "[e]${marker#e}" >/dev/null; }  # the bracket keeps pgrep from finding itself
seconds_since() { echo $(($(date +%s) - $1)); }

# 1. A rank that stops itself (SIGSTOP: it cannot write again) and two that sleep: nothing writes.
start=$(date +%s)
"$ezpz" launch --system local -n 3 --timeout 2s -- \
  sh -c "echo \"rank \$RANK up\"; if [ \"\$RANK\" = 0 ]; then kill -STOP \$\$; fi; exec sleep 60 # $marker" \
  >"$workdir/out" 2>"$workdir/err"
code=$?
took=$(seconds_since "$start")
check "a silent launch exits 124 ($code; $(head -c 300 "$workdir/err"))" test "$code" -eq 124
check "... within timeout + grace (2 s + 5 s; took ${took} s)" test "$took" -le 9
check "... and says which ranks were silent, for how long" \
  grep -q "silent: rank 0 for 00:00:0[2-3], rank 1 for 00:00:0[2-3], rank 2 for 00:00:0[2-3]" "$workdir/err"
check "... after their output ($(tr '\n' ' ' <"$workdir/out"))" test "$(sort "$workdir/out" | tr '\n' ' ')" = \
  "rank 0 up rank 1 up rank 2 up "
sleep 0.5
check "... and no process of the launch is left (a stopped one included)" nothing_left

# 2. Chatty: a rank writes every 0.5 s for 4 s under a 2 s timeout, the other once and then waits.
"$ezpz" launch --system local -n 2 --timeout 2s -- \
  sh -c 'if [ "$RANK" = 0 ]; then i=0; while [ $i -lt 8 ]; do echo tick; sleep 0.5; i=$((i + 1)); done; else echo once; sleep 4; fi' \
  >"$workdir/out" 2>"$workdir/err"
code=$?
check "output from any rank keeps the launch alive: exit 0 ($code; $(head -c 300 "$workdir/err"))" test "$code" -eq 0
check "... all of it passed on" test "$(grep -c tick "$workdir/out")" -eq 8

# 3. Bytes, not text: invalid UTF-8, NUL, and a 1 MB line without a newline, then silence.
/usr/bin/python3 - "$workdir/expected" <<'PY'
import sys
data = bytes([0xff, 0xfe, 0x80, 0xc3, 0x28, 0x00, 0x0a]) * 1000 + b"x" * (1 << 20)
open(sys.argv[1], "wb").write(data)
PY
"$ezpz" launch --system local -n 1 --timeout 2s -- sh -c "cat '$workdir/expected'; exec sleep 60 # $marker" \
  >"$workdir/out" 2>"$workdir/err"
code=$?
check "bytes that are not UTF-8 do not break supervision: exit 124 after the silence ($code)" test "$code" -eq 124
check "... and every byte came through unchanged (1 MB line without a newline included)" \
  cmp -s "$workdir/expected" "$workdir/out"
sleep 0.5
check "... no process left" nothing_left

# 4. Through a real launcher: Open MPI's mpirun (the Sophia profile) with two silent ranks.
if command -v mpiexec.openmpi >/dev/null; then
  stand_in mpirun 'exec mpiexec.openmpi --allow-run-as-root --oversubscribe "$@"'
  printf 'localhost\n' >"$workdir/nodes"
  start=$(date +%s)
  PATH="$workdir/bin:$PATH" PBS_JOBID=1.sophia-pbs-01 PBS_NODEFILE="$workdir/nodes" \
    "$ezpz" launch --system sophia -n 2 --ppn 2 --hostfile "$workdir/nodes" --timeout 3s -- \
    sh -c "echo \"rank \$RANK up\"; exec sleep 60 # $marker" >"$workdir/out" 2>"$workdir/err"
  code=$?
  took=$(seconds_since "$start")
  check "through mpirun: exit 124 ($code; $(tail -c 300 "$workdir/err"))" test "$code" -eq 124
  check "... within timeout + grace (3 s + 5 s; took ${took} s)" test "$took" -le 10
  check "... the ranks' output came through mpirun ($(tr '\n' ' ' <"$workdir/out"))" \
    test "$(sort "$workdir/out" | tr '\n' ' ')" = "rank 0 up rank 1 up "
  check "... the launcher is named as silent" grep -q "silent: mpirun for 00:00:0[3-4]" "$workdir/err"
  sleep 0.5
  check "... no rank left on this node" nothing_left
else
  cannot_run "Open MPI's mpiexec.openmpi is not installed (scripts/install-deps.sh test)"
fi

check "--timeout takes a duration: 'abc' is a usage error (exit 2)" \
  bash -c "'$ezpz' launch --system local -n 1 --timeout abc -- true 2>/dev/null; test \$? -eq 2"
check "--timeout 0 is a usage error (exit 2)" \
  bash -c "'$ezpz' launch --system local -n 1 --timeout 0s -- true 2>/dev/null; test \$? -eq 2"
finish
