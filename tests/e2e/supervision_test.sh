#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted $VARS are expanded by the ranks, on purpose
# `ezpz launch --timeout` and `--retries` with real processes. The idle-output watchdog: a launch whose
# ranks stop writing (a stopped rank, a sleeping one) ends in timeout + grace with exit 124 and leaves no
# process behind, locally and through a real launcher (Open MPI's mpirun); a chatty launch is never
# ended; output is bytes: invalid UTF-8 and a 1 MB line without a newline pass through unchanged.
# Retries: a job that fails twice and then succeeds exits 0 after 3 attempts, each logged.
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
check "... within timeout + grace (2 s + 5 s, and 5 s for a loaded machine; took ${took} s; the ranks sleep 60 s)" test "$took" -le 12
check "... and says which ranks were silent, for how long" \
  grep -q "silent: rank 0 for 00:00:0[2-9], rank 1 for 00:00:0[2-9], rank 2 for 00:00:0[2-9]" "$workdir/err"
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
  check "... within timeout + grace (3 s + 5 s, and 5 s for a loaded machine; took ${took} s)" test "$took" -le 13
  check "... the ranks' output came through mpirun ($(tr '\n' ' ' <"$workdir/out"))" \
    test "$(sort "$workdir/out" | tr '\n' ' ')" = "rank 0 up rank 1 up "
  check "... the launcher is named as silent" grep -q "silent: mpirun for 00:00:0[3-9]" "$workdir/err"
  sleep 0.5
  check "... no rank left on this node" nothing_left
else
  cannot_run "Open MPI's mpiexec.openmpi is not installed (scripts/install-deps.sh test)"
fi

# 5. Retries: rank 0 fails on its first two attempts (a counter file), then all succeed.
count="$workdir/attempts"
"$ezpz" launch --system local -n 2 --retries 2 --retry-delay 0.2 -- sh -c \
  "if [ \"\$RANK\" = 0 ]; then n=\$((\$(cat '$count' 2>/dev/null || echo 0) + 1)); echo \$n >'$count'; [ \$n -ge 3 ] || exit 3; fi; echo \"rank \$RANK ok\"" \
  >"$workdir/out" 2>"$workdir/err"
code=$?
check "--retries 2 on a job that fails twice, then succeeds: exit 0 ($code; $(tail -c 400 "$workdir/err"))" test "$code" -eq 0
check "... after 3 attempts" test "$(cat "$count")" -eq 3
check "... each logged with why it ended, the wait doubling (0.2 s, 0.4 s)" test "$(grep -c "ended: rank 0 failed with exit code 3 after .*; retrying in 0.[24] s" "$workdir/err")" -eq 2
check "... and the last as a success" grep -q "attempt 3 of 3 succeeded" "$workdir/err"
rm -f "$count"
"$ezpz" launch --system local -n 1 --retries 5 --retry-delay 0 -- sh -c "echo x >>'$count'; exit 4" >/dev/null 2>"$workdir/err"
code=$?
check "a job that always fails: its exit code after 1 + 5 attempts ($code)" test "$code" -eq 4 -a "$(wc -l <"$count")" -eq 6
check "... the last says no retries are left" grep -q "attempt 6 of 6 ended: rank 0 failed with exit code 4 .*; no retries left" "$workdir/err"
rm -f "$count"
EZPZ_JOB_END_TIME=$(($(date +%s) + 1)) "$ezpz" launch --system local -n 1 --retries 5 --retry-delay 2 -- \
  sh -c "echo x >>'$count'; exit 4" >/dev/null 2>"$workdir/err"
check "no attempt starts that cannot finish before the allocation ends (EZPZ_JOB_END_TIME)" \
  test "$(wc -l <"$count")" -eq 1
check "... and it says why" grep -q "not retrying: .*allocation ends in\|not retrying: the allocation has ended" "$workdir/err"
rm -f "$count"
"$ezpz" launch --system local -n 1 --retries 3 --retry-delay 0 --timeout 1s -- sh -c "echo x >>'$count'; exec sleep 30 # $marker" \
  >/dev/null 2>"$workdir/err"
code=$?
check "a hang ended by the watchdog is retried, and the last attempt's 124 is returned ($code)" \
  test "$code" -eq 124 -a "$(wc -l <"$count")" -eq 4
sleep 0.5
check "... nothing left" nothing_left

check "--timeout takes a duration: 'abc' is a usage error (exit 2)" \
  bash -c "'$ezpz' launch --system local -n 1 --timeout abc -- true 2>/dev/null; test \$? -eq 2"
check "--timeout 0 is a usage error (exit 2)" \
  bash -c "'$ezpz' launch --system local -n 1 --timeout 0s -- true 2>/dev/null; test \$? -eq 2"
finish
