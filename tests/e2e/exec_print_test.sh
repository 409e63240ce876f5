#!/usr/bin/env bash
# `ezpz exec --print` in simulated site environments: what a rank would export on Aurora (PALS),
# Polaris (PMI), Frontier (Slurm step) and Perlmutter, through the real command line.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1

exports() {  # exports SYSTEM VAR=VALUE... → the export lines on stdout
  local system=$1
  shift
  env -i PATH="$PATH" HOME="$HOME" "$@" "$ezpz" exec --system "$system" --print 2>/dev/null
}
has() {  # has OUTPUT LINE
  grep -qxF -- "$2" <<<"$1"
}

printf '%s\n' x4102c5s0b0n0.hostmgmt2102.cm.aurora.alcf.anl.gov x4102c5s1b0n0.hostmgmt2102.cm.aurora.alcf.anl.gov \
  >"$workdir/aurora.nodes"
out=$(exports aurora PALS_RANKID=13 PALS_LOCAL_RANKID=1 PALS_NODEID=1 PMI_RANK=13 PMI_SIZE=24 PMI_LOCAL_SIZE=12 \
  PBS_JOBID=8414055.aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov PBS_NODEFILE="$workdir/aurora.nodes")
for line in "export RANK=13" "export LOCAL_RANK=1" "export WORLD_SIZE=24" "export NODE_RANK=1" \
  "export MASTER_ADDR=x4102c5s0b0n0.hsn.cm.aurora.alcf.anl.gov" "export ZE_FLAT_DEVICE_HIERARCHY=FLAT" \
  "export TORCH_DEVICE=xpu:1" "export TORCH_BACKEND=xccl" "export CCL_KVS_MODE=mpi"; do
  check "aurora: $line" has "$out" "$line"
done
check "aurora: every tile stays visible (no ZE_AFFINITY_MASK)" bash -c "! grep -q ZE_AFFINITY_MASK <<<'$out'"

printf '%s\n' x3005c0s13b1n0.hsn.cm.polaris.alcf.anl.gov >"$workdir/polaris.nodes"
out=$(exports polaris PMI_RANK=3 PMI_SIZE=4 PMI_LOCAL_RANK=3 PMI_LOCAL_SIZE=4 PBS_JOBID=5.polaris-pbs-01 \
  PBS_NODEFILE="$workdir/polaris.nodes")
for line in "export CUDA_VISIBLE_DEVICES=0" "export TORCH_DEVICE=cuda:0" "export TORCH_BACKEND=nccl" \
  "export MASTER_ADDR=x3005c0s13b1n0.hsn.cm.polaris.alcf.anl.gov" "export NCCL_NET='AWS Libfabric'"; do
  check "polaris: $line" has "$out" "$line"
done

out=$(exports frontier SLURM_STEP_ID=0 SLURM_PROCID=9 SLURM_NTASKS=16 SLURM_LOCALID=1 SLURM_NODEID=1 \
  SLURM_STEP_TASKS_PER_NODE='8(x2)' SLURM_JOB_ID=77 SLURM_JOB_NODELIST='frontier[00001-00002]' ROCR_VISIBLE_DEVICES=5)
for line in "export RANK=9" "export LOCAL_WORLD_SIZE=8" "export MASTER_ADDR=frontier00001" "export TORCH_DEVICE=cuda:0" \
  "export NCCL_SOCKET_IFNAME=hsn0,hsn1,hsn2,hsn3"; do
  check "frontier: $line" has "$out" "$line"
done
check "frontier: the launcher's GPU binding is kept" bash -c "! grep -q ROCR_VISIBLE_DEVICES <<<'$out'"

out=$(exports perlmutter SLURM_STEP_ID=1 SLURM_PROCID=2 SLURM_NTASKS=4 SLURM_LOCALID=2 SLURM_NODEID=0 \
  SLURM_STEP_TASKS_PER_NODE=4 SLURM_JOB_ID=9 SLURM_JOB_NODELIST=nid001234)
for line in "export CUDA_VISIBLE_DEVICES=3,2,1,0" "export TORCH_DEVICE=cuda:2" "export MASTER_ADDR=nid001234"; do
  check "perlmutter: $line" has "$out" "$line"
done

env -i PATH="$PATH" PMI_RANK=5 PMI_SIZE=8 PMI_LOCAL_RANK=1 PMI_LOCAL_SIZE=4 "$ezpz" exec --system pbs --print \
  >/dev/null 2>"$workdir/err"
check "multi-node without hosts fails (exit 1)" test $? -eq 1
check "and says why" grep -q "will not guess localhost" "$workdir/err"
env -i PATH="$PATH" PALS_RANKID=2 PMI_RANK=1 PMI_SIZE=4 "$ezpz" exec --system aurora --print >/dev/null 2>"$workdir/err"
check "contradicting launcher variables are named" grep -q "PALS_RANKID=2 but PMI_RANK=1" "$workdir/err"
env -i PATH="$PATH" "$ezpz" exec --system local -- no-such-program-ezpz 2>/dev/null
check "a missing program exits 127 like a shell" test $? -eq 127
# ezpz launch without its system's launcher on PATH: 127 like a shell, whether it replaces itself with
# the launcher or watches it (--timeout); it was 1 on the first path.
echo localhost >"$workdir/hosts"
env -i PATH=/nonexistent HOME="$workdir" "$ezpz" launch --system polaris --hostfile "$workdir/hosts" -n 1 -- true \
  2>"$workdir/err"
code=$?
check "a missing launcher exits 127 (got $code)" test "$code" -eq 127
check "and names it with a hint" grep -q "cannot run 'mpiexec'.*" "$workdir/err"
env -i PATH=/nonexistent HOME="$workdir" "$ezpz" launch --system polaris --hostfile "$workdir/hosts" --timeout 10m \
  -n 1 -- true 2>/dev/null
code=$?
check "a missing launcher that ezpz watches exits 127 too (got $code)" test "$code" -eq 127
check "exec keeps the PID (signals and exit codes pass straight through)" \
  bash -c "'$ezpz' exec --system local -- sh -c 'exit 42'; test \$? -eq 42"
finish
