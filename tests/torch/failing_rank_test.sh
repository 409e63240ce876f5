#!/usr/bin/env bash
# A rank whose check fails (--fail-rank 1, of 3 ranks): it exits 1 and says why, rank 0 exits 1 and
# reports FAILED naming that rank, and the rank that passed exits 0.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
program=$1

run_ranks 3 fail "$program" --fail-rank 1 --iterations 5 --size-mb 0.5 --timeout 60
show_ranks 3 fail
out=$workdir/fail.0.out
check "the failing rank exits 1" test "$(rank_status fail 1)" -eq 1
check "the failing rank says what failed" grep -q "rank 1 on .*: all-reduce (sum of rank+1): expected every element to be 6, got values from 7 to 7" "$workdir/fail.1.err"
check "rank 0 exits 1 because a rank failed" test "$(rank_status fail 0)" -eq 1
check "the passing rank exits 0" test "$(rank_status fail 2)" -eq 0
check "rank 0 marks rank 1's row FAILED" grep -Eq '^ *1 +1 .* FAILED$' "$out"
check "rank 0 still shows the other rows" test "$(grep -Ec '^ *[02] +[02] .* ok$' "$out")" -eq 2
check "the last line is FAILED with the reason" \
  test "$(tail -n 1 "$out")" = "ezpz test: 3 ranks on 1 node(s): FAILED (rank 1: all-reduce (sum of rank+1): expected every element to be 6, got values from 7 to 7)"
finish
