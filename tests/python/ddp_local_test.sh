#!/usr/bin/env bash
# tests/python/ddp_check.py (PyTorch DistributedDataParallel, Gloo, CPU) under `ezpz launch` on this
# machine with N ranks: exit 0, one OK line per rank with its local rank and the all-reduce sum
# n(n+1)/2, rank 0's summary, every line whole. With --fail-rank (N=2 only) the mismatch fails the run.
#   ddp_local_test.sh EZPZ N
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
ezpz=$1
n=$2
require_torch
sum=$((n * (n + 1) / 2))

start=$SECONDS
"$ezpz" launch --system local -n "$n" -- "$python" "$ddp_check" --steps 3 >"$workdir/out" 2>"$workdir/err"
status=$?
echo "--- $n ranks: exit $status after $((SECONDS - start)) s"
sed 's/^/    out: /' "$workdir/out"
sed 's/^/    err: /' "$workdir/err"
check "the DDP run on $n ranks exits 0" test "$status" -eq 0
for ((r = 0; r < n; r++)); do
  check "rank $r prints its OK line (local rank $r of $n, gloo, cpu, sum $sum)" \
    grep -qxE "ddp_check: rank $r/$n local $r/$n on [^ ]+, backend gloo, device cpu: 3 DDP step\(s\), all-reduce sum $sum \(expected $sum\): OK" "$workdir/out"
done
check "exactly $n rank lines" test "$(grep -c '^ddp_check: rank ' "$workdir/out")" -eq "$n"
check "rank 0's summary: $n ranks on 1 node, sum $sum, OK" \
  grep -qxE "ddp_check: $n ranks on 1 node\(s\) \([^ ]+\), backend gloo, all-reduce sum $sum \(expected $sum\): OK" "$workdir/out"
check "every output line is whole ($(broken_lines "$workdir/out" "$workdir/err" | head -n 3))" \
  test -z "$(broken_lines "$workdir/out" "$workdir/err")"

if ((n == 2)); then
  "$ezpz" launch --system local -n 2 -- "$python" "$ddp_check" --steps 1 --fail-rank 1 >"$workdir/fail.out" 2>"$workdir/fail.err"
  status=$?
  echo "--- 2 ranks, rank 1 adds 1 to the all-reduce: exit $status"
  sed 's/^/    out: /' "$workdir/fail.out"
  sed 's/^/    err: /' "$workdir/fail.err"
  check "a wrong all-reduce sum fails the run (exit $status)" test "$status" -eq 1
  check "rank 1 reports the wrong sum" \
    grep -q "^ddp_check: rank 1/2 .*FAILED: all-reduce of rank+1 gave 4, expected 3" "$workdir/fail.out"
  check "the launcher reports a failed rank" grep -q "^ezpz launch: rank [01] failed with exit code 1" "$workdir/fail.err"
fi
finish
