#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted $VARS are expanded by the ranks, on purpose
# A SIGKILLed `ezpz launch` leaves nothing running: its ranks, ranks that ignore SIGTERM, and what they
# started in their process groups are stopped (TERM, then KILL after the grace period) by the guardian
# the launch starts first. Once, ranks that ignored SIGTERM lived on (PR_SET_PDEATHSIG reached only the
# rank itself, with TERM). A launch that ends normally leaves no guardian behind.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1

marker="ezpz-launcher-killed-test-$$"
left() { pgrep -f "[e]${marker#e}"; }  # the bracket keeps pgrep from finding itself

# Rank 0 ignores TERM and starts a child that ignores it too; rank 1 is an ordinary sleeper.
"$ezpz" launch --system local -n 2 -- sh -c "trap '' TERM; sh -c 'trap \"\" TERM; sleep 300 # $marker' &
  echo up; sleep 300 # $marker" >"$workdir/out" 2>"$workdir/err" &
launch=$!
for _ in $(seq 100); do
  [[ $(grep -c up "$workdir/out") -ge 2 && $(left | wc -l) -ge 3 ]] && break
  sleep 0.1
done
check "the ranks and the child are up ($(left | wc -l) processes)" test "$(left | wc -l)" -ge 3
kill -KILL "$launch"
wait "$launch" 2>/dev/null
for _ in $(seq 150); do
  [[ -z $(left) ]] && break
  sleep 0.1
done
check "nothing of the launch is left 15 s after it was killed (grace 5 s; left: $(left | tr '\n' ' '))" test -z "$(left)"

# A launch that ends on its own leaves no guardian: no process that was the launch's child is left.
"$ezpz" launch --system local -n 2 -- sh -c "echo ok # $marker" >"$workdir/out" 2>"$workdir/err"
check "an ordinary launch exits 0 ($(head -c 300 "$workdir/err"))" test $? -eq 0
check "... and leaves nothing ($(left | tr '\n' ' '))" test -z "$(left)"
finish
