#!/usr/bin/env bash
# `ezpz doctor --all-nodes` in a real 2-node Slurm job where one node differs: the cluster's TaskProlog
# gives node n2's tasks one GPU where n1's have two (CUDA_VISIBLE_DEVICES), against a profile of
# 2 GPUs per node. The node checks run once per node through srun, and only the devices check, which
# differs, is printed, with each group of nodes; the scheduler check answers against the real slurmctld,
# and the caps check counts this job (squeue) against the profile's caps on the debug partition.
#   doctor_test.sh CLUSTER_DIR EZPZ
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
cluster=$1
ezpz=$2
enter_cluster "$cluster"
trap 'rm -f "$cluster/etc/task-env/n1" "$cluster/etc/task-env/n2"; rm -rf "$workdir"' EXIT

mkdir -p "$workdir/systems"
cat >"$workdir/systems/gpuslurm.yaml" <<'YAML'
extends: slurm
node: {devices: {kind: cuda, count: 2, visibility: CUDA_VISIBLE_DEVICES}}
queues: {debug: {caps: {running_per_user: 1, jobs_per_user_all_queues: 100}}}
YAML
printf 'system: gpuslurm\nqueue: debug\nnodes: 1\nrun: [x]\n' >"$workdir/spec.yaml"
echo "export CUDA_VISIBLE_DEVICES=0,1" >"$cluster/etc/task-env/n1"
echo "export CUDA_VISIBLE_DEVICES=0" >"$cluster/etc/task-env/n2"

cat >"$workdir/job.sh" <<JOB
#!/bin/bash
#SBATCH -J ezpz-doctor -p debug -N 2 -t 5 -o $workdir/job.out
export EZPZ_SYSTEMS_PATH=$workdir/systems MASTER_ADDR=127.0.0.1 PATH=/usr/bin:/bin:\$PATH
echo "running in debug \$(squeue -h -u "\$(id -un)" -p debug -t RUNNING | wc -l), all \$(squeue -h -u "\$(id -un)" --array | wc -l)"
"$ezpz" doctor --all-nodes --system gpuslurm --json >"$workdir/report.json" 2>"$workdir/doctor.err"
echo "doctor json exit \$?"
"$ezpz" doctor --all-nodes --system gpuslurm >"$workdir/report.txt" 2>&1
echo "doctor text exit \$?"
"$ezpz" doctor "$workdir/spec.yaml" --all-nodes --set nodes=2 --binary /no/such/program --json >"$workdir/shared.json" 2>"$workdir/shared.err"
echo "doctor shared exit \$?"
JOB
run_batch_job "$workdir/job.sh" "a 2-node job"
check "doctor exits 1: torch sees no GPU on either node ($(cat "$workdir/job.out" "$workdir/doctor.err" 2>/dev/null | tail -n 5))" \
  grep -qx "doctor json exit 1" "$workdir/job.out"
report() { "$python" -c "import json, sys; r = json.load(open('$workdir/report.json')); print(eval(sys.argv[1]))" "$1" 2>/dev/null; }
check "both nodes answered (got $(report 'r["nodes"]'))" test "$(report 'sorted(r["nodes"])')" = "['n1', 'n2']"
check "the node checks ran through srun, one task per node ($(head -n 1 "$workdir/doctor.err"))" \
  grep -q "^ezpz doctor: srun .* -N 2 -n 2 .*doctor --node-checks" "$workdir/doctor.err"
check "only the devices check differs between nodes (got $(report '[d["check"] for d in r["differences"]]'))" \
  test "$(report 'sorted(d["check"] for d in r["differences"] if " on all " not in d["check"])')" = "['devices on n1', 'devices on n2']"
check "the launcher check knows Debian's srun on every node" \
  test "$(report '[d["check"] for d in r["differences"] if d["check"].startswith("launcher")]')" = "[]"
check "what is wrong on both nodes is said once: torch sees no cuda ($(report '[d["finding"] for d in r["differences"] if d["check"] == "python on all 2 nodes"]'))" \
  test "$(report '[d["status"] for d in r["differences"] if d["check"] == "python on all 2 nodes"]')" = "['error']"
check "n2 is the warning, with its finding" \
  test "$(report '[(d["status"], "sees 1 x cuda" in d["finding"]) for d in r["differences"] if d["check"] == "devices on n2"]')" = "[('warn', True)]"
check "n1 is ok" test "$(report '[d["status"] for d in r["differences"] if d["check"] == "devices on n1"]')" = "['ok']"
check "the scheduler check asked the real slurmctld ($(report '[f["finding"] for f in r["findings"] if f["check"] == "scheduler"]'))" \
  test "$(report '[f["status"] for f in r["findings"] if f["check"] == "scheduler"]')" = "['ok']"
check "the site checks are not repeated per node" test "$(report 'sorted(f["check"] for f in r["findings"])')" = "['allocation', 'caps', 'caps', 'scheduler', 'system']"
# What squeue itself said inside the job: this job runs in debug, so running_per_user 1 is reached.
read -r running all < <(sed -n 's/^running in debug \([0-9]*\), all \([0-9]*\)$/\1 \2/p' "$workdir/job.out")
caps=$(report '"\n".join(f["status"] + ": " + f["finding"] for f in r["findings"] if f["check"] == "caps")')
check "squeue counted the job in the job (running $running, all $all)" test "${running:-0}" -ge 1
check "the caps check counts the running job(s) against running_per_user 1: reached ($caps)" \
  grep -q "^warn: queue 'debug': $running job(s) of user $(id -un) counted in debug, against its cap of at most 1 job(s) running per user: reached$" <<<"$caps"
check "the caps check counts every job of the user across all queues ($caps)" \
  grep -q "^ok: counted .* for user $(id -un), .*debug: $all of at most 100 job(s) per user in any state, across all queues ($(id -un))" <<<"$caps"
check "the text report says what differs ($(tail -n 4 "$workdir/report.txt"))" \
  bash -c "grep -q 'what differs between them' '$workdir/report.txt' && grep -q 'warn  devices on n2: sees 1 x cuda' '$workdir/report.txt'"
shared() { "$python" -c "import json, sys; r = json.load(open('$workdir/shared.json')); print(eval(sys.argv[1]))" "$1" 2>/dev/null; }
check "an error on every node makes exit 1" grep -qx "doctor shared exit 1" "$workdir/job.out"
check "an error on every node is reported once for all nodes ($(head -c 300 "$workdir/shared.json"))" \
  test "$(shared '[(d["status"], "/no/such/program" in d["finding"]) for d in r["differences"] if d["check"] == "mpi on all 2 nodes"]')" = "[('error', True)]"
check "the spec with --set fits the allocation" \
  test "$(shared '[f["status"] for f in r["findings"] if f["check"] == "allocation"]')" = "['ok']"
check "the nodes get the spec and --set too ($(head -n 1 "$workdir/shared.err"))" \
  grep -q "ezpz doctor .*/spec.yaml --node-checks .* --set nodes=2$" "$workdir/shared.err"
finish
