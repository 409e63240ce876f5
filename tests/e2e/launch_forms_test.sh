#!/usr/bin/env bash
# The Python ezpz's launch lines (its docs: quickstart.md, cli/launch/index.md, recipes.md), each run for
# real with `ezpz launch`: -np/--nproc/--world_size, -ppn/--nproc_per_node, -nh/--nhosts/--nnodes, a
# program without '--' whose own options and '--' stay its own, -x NAME=VALUE for every rank (on
# 'local', and through a real Open MPI mpirun), --timeout in plain seconds; every alias in --help,
# errors that name the option as it was typed.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
ezpz=$(realpath "$1")
python=/usr/bin/python3
[[ -x $python ]] || python=$(command -v python3) || cannot_run "no python3"

# As a job script on a machine without a scheduler exports it; the lines below are the users' own.
export EZPZ_SYSTEM=local
unset PBS_NODEFILE PBS_JOBID SLURM_JOB_ID SLURM_JOB_NODELIST SLURM_NODELIST SLURM_STEP_NODELIST EZPZ_HOSTFILE FOO
cd "$workdir" || exit 1
cat >prog.py <<'PY'
import os, sys
e = os.environ
print("rank=%s world=%s local=%s/%s node=%s foo=%s args=%s" % (
    e["RANK"], e["WORLD_SIZE"], e["LOCAL_RANK"], e["LOCAL_WORLD_SIZE"], e["NODE_RANK"], e.get("FOO", "-"),
    " ".join(sys.argv[1:])), flush=True)
PY

# line EXPECTED WORDS...: `ezpz WORDS...` exits 0 and its ranks print EXPECTED (sorted, one line each,
# joined by ';').
line() {
  local expected=$1 got code
  shift
  timeout -k 5 120 "$ezpz" "$@" >out 2>err
  code=$?
  got=$(sort out | tr '\n' ';')
  check "ezpz $*: exit 0 ($(head -c 300 err))" test "$code" -eq 0
  check "ezpz $*: ranks print '$expected' (got '$got')" test "$got" = "$expected"
}
two="rank=0 world=2 local=0/2 node=0 foo=- args=;rank=1 world=2 local=1/2 node=0 foo=- args=;"
line "$two" launch -np 2 -- "$python" prog.py
line "$two" launch -np 2 -ppn 2 -- "$python" prog.py
line "$two" launch --np 2 -- "$python" prog.py
line "$two" launch --nproc 2 -- "$python" prog.py
line "$two" launch --world_size 2 -- "$python" prog.py
line "$two" launch --nproc_per_node 2 -- "$python" prog.py
line "$two" launch -np=2 --ppn=2 -- "$python" prog.py
line "$two" launch -n 2 --ranks-per-node 2 -- "$python" prog.py  # ezpz's own names, unchanged
line "$two" launch -np 2 --timeout 1800 -- "$python" prog.py
# Nodes: on 'local' each "node" is a group of local ranks (NODE_RANK, LOCAL_WORLD_SIZE).
spread="rank=0 world=2 local=0/1 node=0 foo=- args=;rank=1 world=2 local=0/1 node=1 foo=- args=;"
line "$spread" launch -np 2 -nh 2 -- "$python" prog.py
line "$spread" launch -np 2 --nhosts 2 -- "$python" prog.py
line "$spread" launch -ppn 1 --nnodes 2 -- "$python" prog.py

# Without '--': the program starts at the first word that is not an ezpz option; everything after it,
# its own options (--timeout, -np) and a later '--' too, is the program's.
args="--lr 1 --timeout 5 -np 3 -- x"
# shellcheck disable=SC2086 # split into words on purpose
line "rank=0 world=2 local=0/2 node=0 foo=- args=$args;rank=1 world=2 local=1/2 node=0 foo=- args=$args;" \
  launch -np 2 "$python" prog.py $args
line "rank=0 world=1 local=0/1 node=0 foo=- args=;" launch "$python" prog.py
# -m MODULE: the environment's python3 runs the module ($VIRTUAL_ENV/bin/python3, else python3 on PATH),
# and the words after the module are its own.
mkdir -p venv/bin && ln -sf "$python" venv/bin/python3
VIRTUAL_ENV=$workdir/venv line "rank=0 world=2 local=0/2 node=0 foo=- args=--lr 1;rank=1 world=2 local=1/2 node=0 foo=- args=--lr 1;" \
  launch -np 2 -m prog --lr 1
# (A module of this suite, tests/python/ddp_check.py: the dependency audit takes the word after python3's -m for a
# module /usr/bin/python3 must import.)
dry=$(env -u VIRTUAL_ENV "$ezpz" launch --dry-run -np 2 -m ddp_check --lr 1 -- x 2>err)
check "launch -m ddp_check: python3 on PATH runs it ($dry $(head -c 300 err))" \
  test "$dry" = "$ezpz exec -- python3 -m ddp_check --lr 1 -- x"
# A flag is no option's value: after --dry-run, -np and --timeout are still ezpz's, and the program follows.
dry=$("$ezpz" launch --dry-run -np 2 --timeout 60 "$python" prog.py --lr 1 2>err)
check "launch --dry-run -np 2 --timeout 60 PROGRAM: the program and its words ($dry $(head -c 300 err))" \
  test "$dry" = "$ezpz exec -- $python prog.py --lr 1"

# -x: on 'local' (no mpiexec) as Open MPI's mpiexec has it: the variable reaches every rank.
foo="rank=0 world=2 local=0/2 node=0 foo=bar args=;rank=1 world=2 local=1/2 node=0 foo=bar args=;"
line "$foo" launch -np 2 -x FOO=bar -- "$python" prog.py
line "$foo" launch --nproc 2 -x FOO=bar --retries 1 -x OTHER=1 -- "$python" prog.py
FOO=bar line "$foo" launch -np 2 -x FOO -- "$python" prog.py

# --timeout SECONDS is seconds (Slurm would read a bare 1 as a minute): a silent rank ends in 1 s + 5 s grace.
start=$SECONDS
timeout -k 5 60 "$ezpz" launch -np 1 --timeout 1 -- sleep 30 >/dev/null 2>err
code=$?
took=$((SECONDS - start))
check "--timeout 1: the watchdog ends a silent launch with 124 (got $code: $(head -c 300 err))" test "$code" -eq 124
check "--timeout 1: within 1 s + 5 s grace (and 4 s for a loaded machine; took $took s)" test "$took" -le 10

# Errors name the option as it was typed (CLI11 knows each option by one name: --ranks).
usage() {  # usage EXPECTED WORDS...: `ezpz WORDS...` is a usage error (exit 2) whose message has EXPECTED
  local expected=$1 code
  shift
  timeout 30 "$ezpz" "$@" >/dev/null 2>err
  code=$?
  check "ezpz $*: usage error, exit 2 (got $code)" test "$code" -eq 2
  check "ezpz $*: says '$expected' ($(head -c 300 err))" grep -qF -- "$expected" err
}
usage "usage error: -np: Value 0 not in range" launch -np 0 -- true
usage "usage error: -np: Value p not in range" launch -np p -- true
usage "usage error: -ppn: Value x not in range" launch -ppn x -- true
usage "usage error: --nproc: Value 0 not in range" launch --nproc 0 -- true
usage "usage error: --nproc_per_node: Value 0 not in range" launch --nproc_per_node=0 -- true
usage "usage error: -nh: Value 0 not in range" launch -nh 0 -- true
usage "usage error: --ranks-per-node: Value 0 not in range" launch --ranks-per-node 0 -- true
usage "usage error: --timeout: must be more than 0" launch --timeout 0 -- true
usage "usage error: -x: not an option of 'ezpz launch'; a launcher's own options go before '--'" \
  launch -np 2 -x FOO=bar "$python" prog.py
usage "usage error: --lable: not an option of 'ezpz launch' (did you mean '--label'?)" launch --lable "$python" prog.py
timeout 30 "$ezpz" launch -np 2 --tag-output -- true >/dev/null 2>err
check "'local' has no launcher: another launcher option is an error, exit 1 ($(head -c 300 err))" \
  grep -q "'--tag-output' is not an option of ezpz launch, and system 'local' has no launcher" err

# Every alias in --help (and so in the man page and completions, which tests/completion compare with it).
"$ezpz" launch --help >help
for name in -n -np --ranks --np --nproc --nprocs --world_size -ppn --ppn --ranks-per-node --nproc_per_node \
  -nh --nh --nhost --nhosts --nnode --nnodes --nodes --hostfile --cpu-bind --timeout; do
  check "launch --help shows $name" grep -qE -- "(^|[ ,])$name([ ,]|$)" help
done

# A launcher's own options pass to it, after the profile's words and before the ranks' command.
printf 'localhost\n' >nodes
dry=$(PBS_JOBID=1.sophia PBS_NODEFILE=$workdir/nodes "$ezpz" launch --system sophia -np 2 -ppn 2 -x FOO=bar \
  --bind-to none --dry-run -- "$python" prog.py 2>/dev/null)
check "sophia: FOO goes to Open MPI's mpirun by name (-x FOO), --bind-to none after it, before ezpz exec ($dry)" \
  grep -qE -- "^mpirun .* -x FOO --bind-to none [^ ]*ezpz exec -- $python prog.py\$" <<<"$dry"
# -x on launchers that pass the whole environment is ezpz's to set, never theirs: srun would read -x as
# "exclude these nodes". The other options still go to the launcher.
printf 'nid0001\nnid0002\n' >nodes2
for system in frontier pbs; do
  dry=$(PBS_JOBID=1.pbs PBS_NODEFILE=$workdir/nodes2 SLURM_JOB_ID=7 SLURM_JOB_NODELIST='nid[0001-0002]' \
    SLURM_NNODES=2 "$ezpz" launch --system "$system" -np 2 -ppn 1 -x FOO=bar --line-buffer --dry-run -- \
    "$python" prog.py 2>err)
  # shellcheck disable=SC2016 # $1 is the inner shell's
  check "$system: -x is not passed to the launcher ($dry $(head -c 300 err))" \
    bash -c '[[ -n $1 && ! $1 =~ (^| )-x( |$) ]]' _ "$dry"
  check "$system: --line-buffer is ($dry)" grep -qE -- " --line-buffer [^ ]*ezpz exec -- " <<<"$dry"
done
if command -v mpiexec.openmpi >/dev/null; then
  mkdir -p bin
  printf '#!/bin/sh\nexec mpiexec.openmpi --allow-run-as-root --oversubscribe "$@"\n' >bin/mpirun
  chmod +x bin/mpirun
  # The rank line as Open MPI's ranks print it; CUDA_VISIBLE_DEVICES etc. do not matter here.
  PATH="$workdir/bin:$PATH" PBS_JOBID=1.sophia PBS_NODEFILE=$workdir/nodes EZPZ_TORCH_DEVICE=cpu \
    line "$foo" launch --system sophia -np 2 -ppn 2 -x FOO=bar -- "$python" prog.py
else
  fail "Open MPI's mpiexec.openmpi is not installed (scripts/install-deps.sh test)"
fi
finish
