#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted $VARS are expanded by the ranks, on purpose
# `ezpz launch` on this machine (system local, no MPI): ranks, the collective smoke test on 2 and 4
# ranks, a failing rank's exit code, signal forwarding, and no processes left behind.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1
marker="ezpz-launch-test-$$"

"$ezpz" launch --system local -n 3 -- sh -c 'echo "$RANK $WORLD_SIZE $MASTER_ADDR:$MASTER_PORT"' >"$workdir/out" 2>/dev/null
check "three local ranks run" test "$(cut -d' ' -f1 "$workdir/out" | sort -n | tr '\n' ' ')" = "0 1 2 "
check "they share one rendezvous" test "$(cut -d' ' -f2,3 "$workdir/out" | sort -u | wc -l)" -eq 1

start=$SECONDS
"$ezpz" launch --system local -n 3 -- sh -c "if [ \$RANK = 1 ]; then exit 7; fi; exec sleep 60 # $marker" 2>"$workdir/err"
status=$?
check "the failing rank's exit code is returned" test "$status" -eq 7
check "the others are stopped at once" test $((SECONDS - start)) -lt 20
check "the failure is reported" grep -q "rank 1 failed with exit code 7" "$workdir/err"
sleep 0.2
check "no rank is left running" test -z "$(pgrep -f "$marker")"

"$ezpz" launch --system local -n 2 -- sh -c "exec sleep 60 # $marker-term" 2>/dev/null &
launcher=$!
for _ in $(seq 50); do [[ -n $(pgrep -f "$marker-term") ]] && break; sleep 0.1; done
kill -TERM "$launcher"
wait "$launcher"
check "SIGTERM is forwarded and reported as 128+15" test $? -eq 143
sleep 0.2
check "no rank survives SIGTERM" test -z "$(pgrep -f "$marker-term")"

check "--dry-run prints and runs nothing" bash -c "'$ezpz' launch --system local -n 2 --dry-run -- false | grep -q 'exec -- false'"
: >"$workdir/no-hosts"
"$ezpz" launch --system pbs --hostfile "$workdir/no-hosts" --dry-run -- true >/dev/null 2>"$workdir/err"
check "an empty host file is exit 1, not a one-node launch (got $?)" test $? -eq 1
check "... and says so" grep -q "the host file '$workdir/no-hosts' names no hosts" "$workdir/err"
PBS_NODEFILE="$workdir/no-hosts" PBS_JOBID=1 "$ezpz" launch --dry-run -- true >/dev/null 2>"$workdir/err"
check "an empty PBS_NODEFILE is an error ($(cat "$workdir/err"))" grep -q "PBS_NODEFILE=.* names no hosts" "$workdir/err"
"$ezpz" launch --system local -n 3 --nodes 2 -- true >/dev/null 2>&1
check "-n that does not divide over the nodes is an error" test $? -eq 1

if command -v mpiexec.mpich >/dev/null; then
  mpiexec.mpich -n 1 "$ezpz" launch --system local -n 2 -- sh -c 'echo "$RANK $WORLD_SIZE"' >"$workdir/nested" 2>/dev/null
  check "a launch inside mpiexec gives its ranks their own identity" test "$(sort "$workdir/nested" | tr '\n' ' ')" = "0 2 1 2 "
fi

torch_test="$(dirname "$ezpz")/ezpz-torch-test"
if [[ -x $torch_test ]]; then
  for n in 2 4; do
    "$ezpz" launch --system local -n "$n" -- "$ezpz" test --iterations 5 --size-mb 1 >"$workdir/test$n" 2>&1
    code=$?  # before the message: its $(…) would set $? first
    check "ezpz test on $n ranks passes ($(tail -n 3 "$workdir/test$n"))" test "$code" -eq 0
    check "ezpz test on $n ranks reports every rank" grep -q "ezpz test: $n ranks on 1 node(s): all-reduce, broadcast, barrier OK" "$workdir/test$n"
  done
else
  fail "ezpz-torch-test is not built next to $ezpz (LibTorch missing?)"
fi
finish
