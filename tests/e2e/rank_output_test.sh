#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted $VARS are expanded by the ranks, on purpose
# Per-rank output (`ezpz launch --label`, `--log-dir`), with real processes: labels on every line,
# locally and through MPICH's mpiexec, where 4 ranks write 3,000 long lines each at once into the
# launcher's one pipe and no line is cut into by another; a line written in two pieces stays one line;
# --log-dir writes each rank's stdout and stderr to its own file, appended across launches, and the
# console shows rank 0 only.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1
ezpz=$(cd "$(dirname "$ezpz")" && pwd)/$(basename "$ezpz")
cd "$workdir" || exit 1

# 1. --label on local ranks: stdout and stderr lines, a line written in two pieces.
"$ezpz" launch --system local -n 3 --label -- \
  sh -c 'echo "out $RANK"; echo "err $RANK" >&2; printf "two "; sleep 0.2; echo "pieces $RANK"' >out 2>err
code=$?
check "--label: exit 0 ($code)" test "$code" -eq 0
check "every stdout line carries its rank ($(tr '\n' '|' <out))" \
  test "$(grep -c '^\[rank \([0-2]\)\] out \1$' out)" -eq 3
check "... stderr too" test "$(grep -c '^\[rank \([0-2]\)\] err \1$' err)" -eq 3
check "... a line written in two pieces is one labelled line" test "$(grep -c '^\[rank \([0-2]\)\] two pieces \1$' out)" -eq 3
check "... and nothing else is on stdout" test "$(wc -l <out)" -eq 6

# 2. Through a real launcher's shared pipe: 4 ranks x 3000 lines of 300 bytes, written as fast as they can.
writer='i=0; while [ $i -lt 3000 ]; do printf "%s-%s-%0290d\n" "$RANK" "$i" 0; i=$((i + 1)); done'
if command -v mpiexec.mpich >/dev/null; then
  "$ezpz" launch --verbatim --label -- mpiexec.mpich -n 4 "$ezpz" exec --system local -- sh -c "$writer" >out 2>err
  code=$?
  check "mpiexec.mpich --label: exit 0 ($code; $(tail -c 300 err))" test "$code" -eq 0
  check "all 12000 lines came through" test "$(wc -l <out)" -eq 12000
  check "no line was cut into: each is one rank's whole line, with that rank's label" \
    test "$(grep -c '^\[rank \([0-3]\)\] \1-[0-9]*-0\{290\}$' out)" -eq 12000
  for rank in 0 1 2 3; do
    check "... rank $rank's 3000 lines, in order" \
      test "$(grep "^\[rank $rank\] " out | cut -d- -f2 | awk '$1 != NR - 1 { bad = 1 } END { print NR, bad + 0 }')" = "3000 0"
  done
else
  cannot_run "MPICH's mpiexec.mpich is not installed (scripts/install-deps.sh test)"
fi

# 3. Without --label, locally: lines stay whole too (ezpz launch passes each rank's lines on whole).
"$ezpz" launch --system local -n 4 -- sh -c "$writer" >out 2>err
check "local, no label: 12000 whole lines" test "$(grep -c '^[0-3]-[0-9]*-0\{290\}$' out)" -eq 12000

# 4. --log-dir: one file per rank with its stdout and stderr; the console shows rank 0; appended.
for run in 1 2; do
  "$ezpz" launch --system local -n 3 --log-dir logs -- sh -c "echo \"run $run out \$RANK\"; echo \"run $run err \$RANK\" >&2" >out 2>err
  code=$?
  check "--log-dir, launch $run: exit 0 ($code; $(tail -c 300 err))" test "$code" -eq 0
done
files=(logs/*)
check "one file per rank (${files[*]})" test "${files[*]##*/}" = "rank-0.log rank-1.log rank-2.log"
for rank in 0 1 2; do
  check "rank $rank's file has its stdout and stderr of both launches, appended ($(tr '\n' '|' <"logs/rank-$rank.log"))" \
    test "$(sort "logs/rank-$rank.log" | tr '\n' '|')" = "run 1 err $rank|run 1 out $rank|run 2 err $rank|run 2 out $rank|"
done
check "the console shows rank 0 only ($(tr '\n' '|' <out))" test "$(cat out)" = "run 2 out 0"
check "... its stderr too" grep -qx "run 2 err 0" err
check "... and no other rank's" test "$(grep -c 'run 2 err [12]' err)" -eq 0
mkdir -p blocked && chmod 0500 blocked
if [[ ! -w blocked ]]; then  # root may write anywhere
  "$ezpz" launch --system local -n 1 --log-dir blocked/sub -- true >out 2>err
  code=$?
  check "a log dir that cannot be made fails the rank: exit 1 ($code)" test "$code" -eq 1
  check "... saying which file" grep -q "cannot open the log file 'blocked/sub/rank-0.log\|cannot open the log file '.*blocked/sub/rank-0.log'" err
fi
finish
