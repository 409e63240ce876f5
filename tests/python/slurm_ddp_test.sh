#!/usr/bin/env bash
# tests/python/ddp_check.py (PyTorch DistributedDataParallel, Gloo, CPU) as a 2-node x 2-rank job on
# the real Slurm cluster on localhost: the generic Slurm profile's rendered script starts
# /usr/bin/python3 through srun + ezpz exec, `ezpz submit --wait` returns its exit code 0, and the job's
# output shows 4 ranks (local ranks 0 and 1 on each of 2 distinct virtual nodes), the all-reduce sum
# 10 and rank 0's OK summary, every line whole. Then the same 2-node job with ddp_check.py --setup ezpz:
# the ranks join through ezpz.setup_torch() of the Python module ($EZPZ_PYTHONPATH) alone.
#   slurm_ddp_test.sh CLUSTER_DIR EZPZ
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=../slurm/lib.sh
source "$here/../slurm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
cluster=$1
ezpz=$2
require_torch
enter_cluster "$cluster"

# The virtual nodes share this host: rendezvous on loopback, Gloo over lo.
cat >"$workdir/ddp.yaml" <<YAML
name: ezpz-python-ddp
system: slurm
queue: debug
nodes: 2
ranks_per_node: 2
walltime: 5m
env: {MASTER_ADDR: 127.0.0.1, GLOO_SOCKET_IFNAME: lo}
run: [$python, "$ddp_check", --steps, "3"]
YAML
"$ezpz" render ddp.yaml >"$workdir/ddp.sh" 2>"$workdir/render.err"
code=$?  # before the message: its $(…) would set $? first
check "render exits 0 ($(cat "$workdir/render.err"))" test "$code" -eq 0
launch=$(grep -A 1 -E '^srun .*-N 2 -n 4 ' "$workdir/ddp.sh")
# shellcheck disable=SC2016 # the script's own "$EZPZ_BIN", literally
check "the script starts 4 ranks on 2 nodes through srun and ezpz exec ($(grep -A 2 '^srun' "$workdir/ddp.sh" | tr '\n' ' '))" \
  grep -qF '"$EZPZ_BIN" exec --' <<<"$launch"
check "the script runs $python ddp_check.py" grep -qE "^ +$python .*ddp_check\.py --steps 3\$" "$workdir/ddp.sh"

start=$SECONDS
job=$("$ezpz" submit ddp.yaml --wait 2>"$workdir/submit.err")
status=$?
echo "the DDP job took $((SECONDS - start)) s"
"$ezpz" logs "$job" >"$workdir/logs.txt" 2>&1
sed 's/^/    log: /' "$workdir/logs.txt"
check "submit --wait returns the job's exit code 0 ($(tail -n 5 "$workdir/submit.err"))" test "$status" -eq 0
check "only the job id is printed on stdout (got '$job')" grep -qx '[0-9][0-9]*' <<<"$job"
for rank in 0 1 2 3; do
  check "rank $rank prints its OK line (local rank $((rank % 2)) of 2, sum 10)" \
    grep -qxE "ddp_check: rank $rank/4 local $((rank % 2))/2 on n[0-9], backend gloo, device cpu: 3 DDP step\(s\), all-reduce sum 10 \(expected 10\): OK" \
    "$workdir/logs.txt"
done
check "exactly 4 rank lines" test "$(grep -c '^ddp_check: rank ' "$workdir/logs.txt")" -eq 4
check "rank 0's summary: 4 ranks on 2 nodes, sum 10, OK" \
  grep -qxE "ddp_check: 4 ranks on 2 node\(s\) \(n[0-9] n[0-9]\), backend gloo, all-reduce sum 10 \(expected 10\): OK" \
  "$workdir/logs.txt"
nodes=$(sed -nE 's/^ddp_check: rank [0-9]\/4 local [01]\/2 on (n[0-9]+),.*/\1/p' "$workdir/logs.txt" | sort | uniq -c |
  awk '{print $2 "x" $1}' | tr '\n' ' ')
check "2 ranks on each of 2 distinct virtual nodes (got '$nodes')" grep -qxE 'n[0-9]x2 n[0-9]x2 ' <<<"$nodes"
check "every output line is whole ($(broken_lines "$workdir/logs.txt" | head -n 3))" test -z "$(broken_lines "$workdir/logs.txt")"

# The Python ezpz user's script: nothing but ezpz.setup_torch() to join.
if [[ -n ${EZPZ_PYTHONPATH:-} && -f $EZPZ_PYTHONPATH/ezpz/__init__.py ]]; then
  cat >"$workdir/setup.yaml" <<YAML
name: ezpz-python-setup-torch
system: slurm
queue: debug
nodes: 2
ranks_per_node: 2
walltime: 5m
env: {MASTER_ADDR: 127.0.0.1, GLOO_SOCKET_IFNAME: lo, PYTHONPATH: "$EZPZ_PYTHONPATH"}
run: [$python, "$ddp_check", --setup, ezpz, --steps, "2"]
YAML
  job=$("$ezpz" submit setup.yaml --wait 2>"$workdir/setup.err")
  status=$?
  "$ezpz" logs "$job" >"$workdir/setup.txt" 2>&1
  sed 's/^/    log: /' "$workdir/setup.txt"
  check "the setup_torch() job exits 0 ($(tail -n 5 "$workdir/setup.err"))" test "$status" -eq 0
  for rank in 0 1 2 3; do
    check "setup_torch(): rank $rank (local rank $((rank % 2)) of 2) sums 10" \
      grep -qxE "ddp_check: rank $rank/4 local $((rank % 2))/2 on n[0-9], backend gloo, device cpu: 2 DDP step\(s\), all-reduce sum 10 \(expected 10\): OK" \
      "$workdir/setup.txt"
  done
  check "setup_torch(): 4 ranks on 2 nodes, OK" \
    grep -qxE "ddp_check: 4 ranks on 2 node\(s\) \(n[0-9] n[0-9]\), backend gloo, all-reduce sum 10 \(expected 10\): OK" "$workdir/setup.txt"
else
  cannot_run "EZPZ_PYTHONPATH does not name a built ezpz Python package"
fi
finish
