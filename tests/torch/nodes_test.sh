#!/usr/bin/env bash
# 4 ranks as 2 simulated nodes of 2 ranks (node names from EZPZ_NODE_NAME, Gloo on GLOO_SOCKET_IFNAME=lo
# because a job across nodes may not use a loopback MASTER_ADDR otherwise): rank 0 reports 2 nodes,
# the node of every rank and its local rank; without GLOO_SOCKET_IFNAME every rank refuses to start.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
program=$1
ranks_per_node=2

rank_env=(GLOO_SOCKET_IFNAME=lo)
run_ranks 4 nodes "$program" --iterations 5 --size-mb 0.5 --timeout 60
show_ranks 4 nodes
out=$workdir/nodes.0.out
for r in 0 1 2 3; do
  check "rank $r exits 0" test "$(rank_status nodes $r)" -eq 0
  check "rank $r is local rank $((r % 2)) on sim-node$((r / 2))" \
    grep -Eq "^ *$r +$((r % 2)) +sim-node$((r / 2)) +cpu +gloo .* ok$" "$out"
done
check "rank 0 counts 2 nodes" grep -q '^ezpz test: world size 4, 2 node(s), ' "$out"
check "the OK line" test "$(tail -n 1 "$out")" = "ezpz test: 4 ranks on 2 node(s): all-reduce, broadcast, barrier OK"

rank_env=()
run_ranks 4 loopback "$program" --timeout 60
show_ranks 4 loopback
for r in 0 1 2 3; do
  check "without GLOO_SOCKET_IFNAME rank $r refuses the loopback MASTER_ADDR" \
    grep -q "leads to the loopback address 127.0.0.1 here, but the job spans several nodes" "$workdir/loopback.$r.err"
  check "without GLOO_SOCKET_IFNAME rank $r exits 1" test "$(rank_status loopback $r)" -eq 1
done
finish
