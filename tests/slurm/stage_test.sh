#!/usr/bin/env bash
# A job spec's `stage:` entry through the real Slurm cluster on localhost: `ezpz submit --wait` of a
# 2-node job (2 ranks per node) of the generic Slurm profile whose stage entry copies a directory
# tree (a 5 MB file, small files, a nested directory, a non-ASCII name) to DEST/%n: the yeet step
# (srun, one rank per node, MPICH over Slurm's PMI2) gives each virtual node its own copy, the ranks
# read from their node's copy, and the copies equal the source. A stage entry whose SRC does not
# exist fails the job before the run command starts.
#   stage_test.sh CLUSTER_DIR EZPZ
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
cluster=$1
ezpz=$2
enter_cluster "$cluster"
# The rendered script runs "$EZPZ_BIN" yeet; ezpz-yeet-mpi sits beside it.
check "ezpz-yeet-mpi is built beside ezpz" test -x "$(dirname "$ezpz")/ezpz-yeet-mpi"

# The source tree: one file of 5 MB (several reads and broadcasts), small files, an empty file, a
# nested directory and a non-ASCII name.
src=$workdir/src
mkdir -p "$src/sub/deeper"
head -c $((5 * 1024 * 1024)) /dev/urandom >"$src/big.bin"
echo "hello from the staged copy" >"$src/hello.txt"
echo "nested" >"$src/sub/deeper/n.txt"
echo "ünïcødé" >"$src/sub/Grüße – 日本.txt"
: >"$src/sub/empty"
big_sum=$(sha256sum <"$src/big.bin" | cut -d' ' -f1)

# One rank per node would hide a yeet step that starts a rank per job rank: use 2 per node.
staged=$workdir/staged
cat >"$workdir/stage.yaml" <<YAML
name: ezpz-stage
system: slurm
queue: debug
nodes: 2
ranks_per_node: 2
walltime: 5m
stage:
  - {src: "$src", dest: "$staged/%n/data"}
# The virtual nodes' names (n1, n2) resolve nowhere, and ezpz exec checks the rendezvous host of a
# multi-node job: the nodes share this host's loopback, as in the other Slurm tests.
env: {MASTER_ADDR: 127.0.0.1}
run: [bash, -c, 'echo "rank \$SLURM_PROCID on \$SLURMD_NODENAME: \$(sha256sum <"$staged/\$SLURMD_NODENAME/data/big.bin" | cut -d" " -f1) \$(cat "$staged/\$SLURMD_NODENAME/data/hello.txt")"']
YAML
"$ezpz" render stage.yaml >"$workdir/stage.sh" 2>"$workdir/render.err"
code=$?  # before the message: its $(…) would set $? first
check "render exits 0 ($(cat "$workdir/render.err"))" test "$code" -eq 0
check "the script has a yeet step before the launch" \
  grep -q "\"\$EZPZ_BIN\" yeet -- .*/src .*/staged/%n/data" "$workdir/stage.sh"

start=$SECONDS
job=$("$ezpz" submit stage.yaml --wait 2>"$workdir/submit.err")
status=$?
echo "the staging job took $((SECONDS - start)) s"
check "submit --wait returns the job's exit code 0 ($(tail -n 5 "$workdir/submit.err"))" test "$status" -eq 0
check "only the job id is printed on stdout (got '$job')" grep -qx '[0-9][0-9]*' <<<"$job"
"$ezpz" logs "$job" >"$workdir/logs.txt" 2>&1
check "yeet copied to both nodes, one yeet rank each ($(grep 'ezpz yeet' "$workdir/logs.txt" | tail -n 3))" \
  grep -q "^ezpz yeet: 2 nodes: 2 copied, 0 cached, 0 shared, 0 failed; 5.00 MiB each" "$workdir/logs.txt"
for rank in 0 1 2 3; do
  check "rank $rank read the 5 MB file and hello.txt from its node's staged copy ($(grep "^rank $rank " "$workdir/logs.txt" || tail -n 2 "$workdir/logs.txt"))" \
    grep -qE "^rank $rank on n[0-9]: $big_sum hello from the staged copy\$" "$workdir/logs.txt"
done
check "yeet finished before the ranks started" \
  test "$(grep -nE '^(ezpz yeet: 2 nodes|rank [0-9] on)' "$workdir/logs.txt" | head -n 1 | cut -d: -f2)" = "ezpz yeet"
job_nodes=$(sed -nE 's/^rank [0-9] on (n[0-9]+): .*/\1/p' "$workdir/logs.txt" | sort -u | tr '\n' ' ')
staged_nodes=$(find "$staged" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort | tr '\n' ' ')
check "the ranks ran on two distinct virtual nodes (got '$job_nodes')" test "$(wc -w <<<"$job_nodes")" -eq 2
check "one staged copy per node of the job, no other (staged: '$staged_nodes', job: '$job_nodes')" \
  test "$staged_nodes" = "$job_nodes"
for node in $job_nodes; do
  check "the copy on $node equals the source ($(diff -r -x .ezpz-yeet "$src" "$staged/$node/data" 2>&1 | head -c 300))" \
    diff -r -x .ezpz-yeet "$src" "$staged/$node/data"
done
leftovers=$(find "$staged" -name '.*.yeet-*' 2>&1)
check "no staging leftovers ($leftovers)" test -z "$leftovers"

# The same job again: every node already holds the same copy (DEST/.ezpz-yeet), nothing is copied.
again=$("$ezpz" submit stage.yaml --wait 2>"$workdir/again.err")
code=$?  # before the message: its $(…) would set $? first
check "the second job exits 0 ($(tail -n 3 "$workdir/again.err"))" test "$code" -eq 0
"$ezpz" logs "$again" >"$workdir/again-logs.txt" 2>&1
check "the second job's yeet finds both copies cached ($(grep 'ezpz yeet' "$workdir/again-logs.txt" | tail -n 3))" \
  grep -q "^ezpz yeet: 2 nodes: 0 copied, 2 cached, 0 shared, 0 failed" "$workdir/again-logs.txt"
check "the second job's ranks read the staged copies" \
  test "$(grep -cE "^rank [0-9] on n[0-9]: $big_sum hello from the staged copy\$" "$workdir/again-logs.txt")" -eq 4

# A stage entry whose SRC does not exist: the job fails before the run command starts.
cat >"$workdir/missing.yaml" <<YAML
name: ezpz-stage-missing
system: slurm
queue: debug
nodes: 2
ranks_per_node: 1
walltime: 5m
stage:
  - {src: "$workdir/no-such-dir", dest: "$workdir/missing/%n"}
run: [touch, "$workdir/ran"]
YAML
start=$SECONDS
failed_job=$("$ezpz" submit missing.yaml --wait 2>"$workdir/missing.err")
status=$?
echo "the failing staging job took $((SECONDS - start)) s"
check "submit --wait returns non-zero for the failed staging ($(tail -n 3 "$workdir/missing.err"))" test "$status" -ne 0
check "the job id is printed (got '$failed_job')" grep -qx '[0-9][0-9]*' <<<"$failed_job"
"$ezpz" logs "$failed_job" >"$workdir/missing-logs.txt" 2>&1
check "the log says staging failed ($(tail -n 5 "$workdir/missing-logs.txt"))" \
  grep -q "ezpz: staging $workdir/no-such-dir to $workdir/missing/%n failed; not launching" "$workdir/missing-logs.txt"
check "the run command did not execute" test ! -e "$workdir/ran"
finish
