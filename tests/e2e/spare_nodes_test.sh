#!/usr/bin/env bash
# `ezpz launch --spare-nodes` from the command line: the launcher line it builds leaves the hosts to
# each attempt ({hostfile} for a host-file launcher, --nodelist={hosts} for srun) and runs on all
# hosts but the spares; what it refuses, with the exit codes scripts rely on (1: cannot run, 2: bad
# options). The failover itself runs on the real Slurm cluster (slurm.failover).
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1

printf 'h1\nh2\nh3\n' >"$workdir/hosts"

# 1. A host-file launcher (PALS mpiexec): 2 of 3 hosts, the file left to each attempt.
"$ezpz" launch --system pbs --hostfile "$workdir/hosts" --spare-nodes 1 --dry-run -- python3 train.py \
  >"$workdir/out" 2>"$workdir/err"
check "--dry-run exits 0 ($?: $(cat "$workdir/err"))" test -s "$workdir/out"
check "mpiexec on 2 nodes, the host file left open: $(cat "$workdir/out")" \
  grep -Eq "^mpiexec -n 2 --ppn 1 .*--hostfile '\{hostfile\}' .*exec -- python3 train.py$" "$workdir/out"

# 2. srun: its host list left open; the allocation from SLURM_JOB_NODELIST.
SLURM_JOB_NODELIST='n[1-4]' SLURM_JOB_ID=7 "$ezpz" launch --system slurm --spare-nodes 2 --dry-run -- python3 train.py \
  >"$workdir/out" 2>"$workdir/err"
check "srun on 2 of 4 nodes with --nodelist={hosts}: $(cat "$workdir/out")" \
  grep -Eq "^srun .*-N 2 -n 2 .*'--nodelist=\{hosts\}' .*exec -- python3 train.py$" "$workdir/out"

# 3. What it refuses.
expect_error() { # expect_error CODE TEXT ARGS...: ezpz launch ARGS exits CODE and says TEXT
  local code=$1 text=$2
  shift 2
  "$ezpz" launch "$@" >"$workdir/out" 2>"$workdir/err"
  local got=$? said=no
  grep -qF -- "$text" "$workdir/err" && said=yes
  check "launch $* exits $code ($got) and says '$text' ($(head -c 300 "$workdir/err"))" \
    test "$got $said" = "$code yes"
}
expect_error 1 "--spare-nodes needs an allocation's nodes" --system local --spare-nodes 1 -- true
expect_error 1 "names neither" --system pbs --hostfile "$workdir/hosts" --verbatim --spare-nodes 1 -- mpiexec -n 2 true
expect_error 1 "--nodes 3 and 1 spare(s) are more than the 3 hosts" \
  --system pbs --hostfile "$workdir/hosts" --nodes 3 --spare-nodes 1 -- true
expect_error 1 "spare nodes need the allocation's hosts" --system pbs --verbatim --spare-nodes 1 -- mpiexec --hostfile '{hostfile}' true
expect_error 2 "--progress" --system pbs --spare-nodes 1 --progress '((' -- true
expect_error 2 "--probe-timeout" --system pbs --spare-nodes 1 --probe-timeout soon -- true
expect_error 2 "--spare-nodes" --system pbs --spare-nodes 0 -- true
finish
