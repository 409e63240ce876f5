#!/usr/bin/env bash
# shellcheck disable=SC2016 # awk programs in single quotes, on purpose
# The signal before the allocation ends (`ezpz launch --signal-before`), with real processes: every rank
# (Python programs that trap the signal, as a checkpointing training script does) gets it at the end
# time from EZPZ_JOB_END_TIME minus the lead time, locally and through the real MPICH and Open MPI
# launchers in the form rendered scripts use (`ezpz launch --verbatim -- mpiexec … ezpz exec -- …`).
# A USR2 the user sends to ezpz launch reaches the ranks too. No retry starts after the signal.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1
python=/usr/bin/python3
[[ -x $python ]] || cannot_run "Debian's python3 is not installed (scripts/install-deps.sh test)"

cp "$here/end_signal_rank.py" "$workdir/rank.py"
markers="$workdir/markers"

# check_markers WHAT RANKS DUE SIGNAL: one marker per rank, each within 2 s after DUE (seconds since the epoch).
check_markers() {
  local what=$1 ranks=$2 due=$3 signal=$4
  check "$what: every rank got $signal ($(tr '\n' ';' <"$markers" 2>/dev/null))" \
    test "$(awk -v s="SIG$signal" '$3 == s { print $1 }' "$markers" 2>/dev/null | sort | tr '\n' ' ')" = "$ranks"
  check "$what: ... at the due time (due $due; 2 s allowed for a loaded machine)" \
    awk -v due="$due" '{ if ($2 < due - 0.5 || $2 > due + 2) bad = 1 } END { exit bad }' "$markers"
}

# 1. Local ranks: the allocation ends in 8 s, the signal is asked for 5 s before that.
end=$(($(date +%s) + 8))
EZPZ_JOB_END_TIME=$end "$ezpz" launch --system local -n 2 --signal-before 5s -- "$python" "$workdir/rank.py" "$markers" \
  >"$workdir/out" 2>"$workdir/err"
code=$?
check "local: the ranks exit 0 on the signal ($code; $(tail -c 300 "$workdir/err"))" test "$code" -eq 0
check_markers local "0 1 " $((end - 5)) USR2
check "local: rank 0 says what it sent, and when the allocation ends (once)" \
  test "$(grep -c "ezpz exec: the allocation ends in 00:00:05; sending USR2 to the program of every rank" "$workdir/err")" -eq 1

# 2. Through MPICH's mpiexec (Hydra), as a rendered script runs it: ezpz launch --verbatim around it.
if command -v mpiexec.mpich >/dev/null; then
  rm -f "$markers"
  end=$(($(date +%s) + 8))
  EZPZ_JOB_END_TIME=$end "$ezpz" launch --verbatim --signal USR1 --signal-before 4s -- \
    mpiexec.mpich -n 2 "$ezpz" exec --system local -- "$python" "$workdir/rank.py" "$markers" \
    >"$workdir/out" 2>"$workdir/err"
  code=$?
  check "mpiexec.mpich: exit 0 ($code; $(tail -c 300 "$workdir/err"))" test "$code" -eq 0
  check_markers mpiexec.mpich "0 1 " $((end - 4)) USR1
else
  cannot_run "MPICH's mpiexec.mpich is not installed (scripts/install-deps.sh test)"
fi

# 3. Through Open MPI's mpirun.
if command -v mpiexec.openmpi >/dev/null; then
  rm -f "$markers"
  end=$(($(date +%s) + 8))
  EZPZ_JOB_END_TIME=$end "$ezpz" launch --verbatim --signal-before 4s -- \
    mpiexec.openmpi --allow-run-as-root --oversubscribe -n 2 "$ezpz" exec --system local -- \
    "$python" "$workdir/rank.py" "$markers" >"$workdir/out" 2>"$workdir/err"
  code=$?
  check "mpiexec.openmpi: exit 0 ($code; $(tail -c 300 "$workdir/err"))" test "$code" -eq 0
  check_markers mpiexec.openmpi "0 1 " $((end - 4)) USR2
else
  cannot_run "Open MPI's mpiexec.openmpi is not installed (scripts/install-deps.sh test)"
fi

# 4. A USR2 sent to ezpz launch by the user is passed on to the ranks, and does not end the launch by itself.
rm -f "$markers"
"$ezpz" launch --system local -n 2 -- "$python" "$workdir/rank.py" "$markers" >"$workdir/out" 2>"$workdir/err" &
launch=$!
for _ in $(seq 1 100); do
  [[ $(grep -c ready "$workdir/out" 2>/dev/null) == 2 ]] && break
  sleep 0.1
done
kill -USR2 "$launch"
wait "$launch"
code=$?
check "a USR2 sent to ezpz launch reaches every rank; they exit 0 ($code)" test "$code" -eq 0
check "... both ranks wrote their marker ($(tr '\n' ';' <"$markers" 2>/dev/null))" \
  test "$(cut -d' ' -f1 "$markers" 2>/dev/null | sort | tr '\n' ' ')" = "0 1 "

# 5. After the signal no retry starts: the ranks fail on it here, and --retries would run them again.
end=$(($(date +%s) + 5))
EZPZ_JOB_END_TIME=$end "$ezpz" launch --system local -n 1 --retries 3 --retry-delay 0 --signal-before 3s -- \
  "$python" -c 'import signal, sys, time; signal.signal(signal.SIGUSR2, lambda n, f: sys.exit(5)); time.sleep(30)' \
  >/dev/null 2>"$workdir/err"
code=$?
check "a launch that fails on the end signal is not retried: exit 5 ($code)" test "$code" -eq 5
check "... and says why" grep -q "attempt 1 of 4 ended: .*; not retrying: the ranks were told that the allocation is about to end" "$workdir/err"

# 6. Errors: no end time known (exit 1, says what to set); a signal ezpz does not know (exit 2).
env -u EZPZ_JOB_END_TIME -u SLURM_JOB_END_TIME "$ezpz" launch --system local -n 1 --signal-before 1m -- true \
  >/dev/null 2>"$workdir/err"
code=$?
check "--signal-before without a known end: exit 1 ($code)" test "$code" -eq 1
check "... naming EZPZ_JOB_END_TIME" grep -q "EZPZ_JOB_END_TIME" "$workdir/err"
"$ezpz" launch --system local -n 1 --signal-before 1m --signal BOGUS -- true >/dev/null 2>&1
code=$?
check "--signal BOGUS is a usage error: exit 2 ($code)" test "$code" -eq 2
finish
