#!/usr/bin/env bash
# ezpz-torch-test on N local ranks (table, JSON and --quick): every rank exits 0, only rank 0 prints,
# and rank 0 reports the world size, one row per rank and the OK line.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
program=$1
n=$2

# The table.
run_ranks "$n" table "$program" --iterations 10 --size-mb 1 --timeout 60
show_ranks "$n" table
out=$workdir/table.0.out
for ((r = 0; r < n; r++)); do
  check "table: rank $r exits 0" test "$(rank_status table $r)" -eq 0
  check "table: rank 0 shows rank $r's row (local rank $r, cpu, gloo, timings, ok)" \
    grep -Eq "^ *$r +$r +[^ ]+ +cpu +gloo +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9] +[0-9]+\.[0-9]{3} +ok$" "$out"
  if ((r > 0)); then check "table: rank $r prints nothing on stdout" test ! -s "$workdir/table.$r.out"; fi
done
check "table: rank 0 prints the world size" grep -q "^ezpz test: world size $n, 1 node(s), LibTorch " "$out"
check "table: exactly $n rows" test "$(grep -Ec '^ *[0-9]+ +[0-9-]+ .* (ok|FAILED|MISSING)$' "$out")" -eq "$n"
check "table: the last line is the OK line" \
  test "$(tail -n 1 "$out")" = "ezpz test: $n ranks on 1 node(s): all-reduce, broadcast, barrier OK"

# The JSON document.
run_ranks "$n" json "$program" --json --iterations 5 --size-mb 0.5 --timeout 60
show_ranks "$n" json
for ((r = 0; r < n; r++)); do check "json: rank $r exits 0" test "$(rank_status json $r)" -eq 0; done
# shellcheck disable=SC2016  # $n is jq's variable
check "json: a valid document with world size $n, $n ok ranks with timings, no failures" \
  jq -e --argjson n "$n" '.world_size == $n and .nodes == 1 and .ok and .failures == [] and
    (.ranks | length) == $n and ([.ranks[] | select(.ok and .allreduce_latency_us > 0 and
      .allreduce_bandwidth_gbps > 0 and .backend == "gloo" and .device == "cpu")] | length) == $n and
    ([.ranks[].rank] == [range($n)]) and .summary == "ezpz test: \($n) ranks on 1 node(s): all-reduce, broadcast, barrier OK"' \
  "$workdir/json.0.out"

# --quick: one all-reduce.
run_ranks "$n" quick "$program" --quick --timeout 60
show_ranks "$n" quick
for ((r = 0; r < n; r++)); do check "quick: rank $r exits 0" test "$(rank_status quick $r)" -eq 0; done
check "quick: the OK line names the all-reduce only" \
  test "$(tail -n 1 "$workdir/quick.0.out")" = "ezpz test: $n ranks on 1 node(s): all-reduce OK"
finish
