#!/usr/bin/env bash
# torchrun's contract under ezpz: a program that asks torch whether torchrun started it
# (torch.distributed.is_torchelastic_launched()) and reads GROUP_RANK, ROLE_* and TORCHELASTIC_* gets
# True and torchrun's values under `ezpz launch -np 2` and `mpiexec.mpich -n 2 ezpz exec`, the values
# torchrun itself gives the same program (torchrun --standalone, run here), and the ranks still join
# over env:// (rank 0 hosts the store: TORCHELASTIC_USE_AGENT_STORE=False). Needs Debian's python3-torch:
# skipped (77) without it, failed under CI=true.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
ezpz=$(realpath "$1")
python=/usr/bin/python3
if [[ ! -x $python ]] || ! "$python" -c 'import torch.distributed' 2>/dev/null; then
  cannot_run "$python cannot import torch: install Debian's python3-torch (scripts/install-deps.sh test)"
fi
command -v mpiexec.mpich >/dev/null || cannot_run "MPICH's mpiexec.mpich is not installed (scripts/install-deps.sh test)"
[[ -x /usr/bin/torchrun ]] || cannot_run "/usr/bin/torchrun not found (Debian python3-torch)"

export EZPZ_SYSTEM=local
unset PBS_NODEFILE PBS_JOBID SLURM_JOB_ID SLURM_JOB_NODELIST SLURM_NODELIST EZPZ_JOB_ID OMP_NUM_THREADS MASTER_ADDR \
  MASTER_PORT RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE GROUP_RANK TORCHELASTIC_RUN_ID
cd "$workdir" || exit 1
# One line per rank: torch's answer and every variable of the contract, then a real all-reduce over
# env:// (the sum of rank + 1 over 2 ranks is 3). The run id goes to a file of its own: it differs
# between launchers, and must be the same on every rank of one launch.
cat >elastic.py <<'PY'
import os, sys
import torch, torch.distributed as dist
names = ["GROUP_RANK", "GROUP_WORLD_SIZE", "ROLE_RANK", "ROLE_WORLD_SIZE", "ROLE_NAME", "LOCAL_WORLD_SIZE",
         "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_USE_AGENT_STORE", "OMP_NUM_THREADS"]
values = " ".join("%s=%s" % (name, os.environ.get(name, "unset")) for name in names)
dist.init_process_group("gloo", init_method="env://")
total = torch.tensor([dist.get_rank() + 1.0])
dist.all_reduce(total)
print("rank=%d launched=%s %s sum=%d" % (dist.get_rank(), dist.is_torchelastic_launched(), values, total.item()),
      flush=True)
with open("%s.run_id.%d" % (sys.argv[1], dist.get_rank()), "w") as f:
    f.write(os.environ.get("TORCHELASTIC_RUN_ID", "unset"))
# What torchrun's agent sets that a program can read, by name.
with open("%s.names.%d" % (sys.argv[1], dist.get_rank()), "w") as f:
    f.write("\n".join(sorted(n for n in os.environ if n.startswith(("TORCHELASTIC_", "GROUP_", "ROLE_")))) + "\n")
dist.destroy_process_group()
PY

# run NAME COMMAND...: runs it (3 minutes at most), its ranks' records sorted into NAME.out, one a line.
# Records, not lines: torchrun's workers (python -u) write the newline apart from the text, so two
# ranks' records can share a line ("… sum=3rank=1 …").
record='rank=[0-9]+ launched=[A-Za-z]+( [A-Z_]+=[^ ]*)* sum=[0-9]+'
run() {
  local name=$1 code
  shift
  timeout -k 5 180 "$@" >"$name.raw" 2>"$name.err"
  code=$?
  grep -aoE "$record" "$name.raw" | sort >"$name.out"
  check "$name: exit 0 ($(tail -c 400 "$name.err"))" test "$code" -eq 0
  check "$name: two ranks ($(cat "$name.raw"))" test "$(wc -l <"$name.out")" -eq 2
}
port=$((20000 + RANDOM % 20000))
# --redirects/--tee: Debian's torchrun on Python 3.11 crashes without them (tests/torch/torchrun_test.sh).
# TMPDIR: its agent leaves a torchelastic_* directory there.
run torchrun env "TMPDIR=$workdir" /usr/bin/torchrun --standalone --nproc_per_node 2 --redirects 9:1 --tee 9:1 --monitor_interval 0.1 \
  elastic.py torchrun
run launch "$ezpz" launch -np 2 -- "$python" elastic.py launch
MASTER_PORT=$port run mpiexec mpiexec.mpich -n 2 "$ezpz" exec -- "$python" elastic.py mpiexec

for name in launch mpiexec; do
  check "$name: is_torchelastic_launched() is True on both ranks ($(cat "$name.out"))" \
    test "$(grep -c ' launched=True ' "$name.out")" -eq 2
  check "$name: the ranks joined over env:// and all-reduced ($(cat "$name.out"))" \
    test "$(grep -c ' sum=3$' "$name.out")" -eq 2
  check "$name: torchrun's values, line for line (torchrun: $(cat torchrun.out); $name: $(cat "$name.out"))" \
    cmp -s torchrun.out "$name.out"
  check "$name: one run id on every rank ($(cat "$name".run_id.*))" test "$(cat "$name".run_id.0)" = "$(cat "$name".run_id.1)"
  check "$name: a run id ($(cat "$name".run_id.0))" test "$(cat "$name".run_id.0)" != unset
  # Every name torchrun gives, except the error file its agent collects (docs/runtime-env.md).
  missing=$(comm -23 <(grep -v '^TORCHELASTIC_ERROR_FILE$' torchrun.names.0) "$name".names.0 | tr '\n' ' ')
  check "$name: every variable torchrun gives a rank is set (missing: $missing)" test -z "$missing"
done
check "ezpz launch: the run id is the rendezvous (no job here; got $(cat launch.run_id.0))" \
  grep -qE '^127\.0\.0\.1:[0-9]+$' launch.run_id.0
check "mpiexec: the run id is the rendezvous (got $(cat mpiexec.run_id.0))" test "$(cat mpiexec.run_id.0)" = "127.0.0.1:$port"
PBS_JOBID=77.pbs run job "$ezpz" launch -np 2 -- "$python" elastic.py job
check "in a job the run id is the job id, as torchrun's --rdzv_id=\$JOB_ID (got $(cat job.run_id.*))" \
  test "$(cat job.run_id.0) $(cat job.run_id.1)" = "77.pbs 77.pbs"

# Two "nodes" of one rank each: torchrun's worker groups are nodes, and one local rank keeps OMP_NUM_THREADS unset.
run nodes "$ezpz" launch -np 2 -nh 2 -- "$python" elastic.py nodes
check "-nh 2: GROUP_RANK is the node, GROUP_WORLD_SIZE the nodes, OMP_NUM_THREADS unset ($(cat nodes.out))" \
  test "$(grep -oE 'GROUP_RANK=[0-9]+ GROUP_WORLD_SIZE=[0-9]+' nodes.out | tr '\n' ' ')$(grep -c OMP_NUM_THREADS=unset nodes.out)" \
  = "GROUP_RANK=0 GROUP_WORLD_SIZE=2 GROUP_RANK=1 GROUP_WORLD_SIZE=2 2"
OMP_NUM_THREADS=3 run user "$ezpz" launch -np 2 -- "$python" elastic.py user
check "the user's OMP_NUM_THREADS stays ($(cat user.out))" test "$(grep -c ' OMP_NUM_THREADS=3 ' user.out)" -eq 2

# --retries: the attempt is torchrun's restart count (rank 1 fails the first attempt).
# shellcheck disable=SC2016 # the ranks expand the variables
timeout -k 5 60 "$ezpz" launch -np 2 --retries 2 --retry-delay 0 -- sh -c \
  'echo "attempt $TORCHELASTIC_RESTART_COUNT of $TORCHELASTIC_MAX_RESTARTS"; [ "$RANK$TORCHELASTIC_RESTART_COUNT" != 10 ]' \
  >retries.out 2>retries.err
code=$?
check "--retries 2: the second attempt succeeds ($(tail -c 300 retries.err))" test "$code" -eq 0
check "--retries 2: restart counts 0 then 1, of at most 2 ($(sort -u retries.out | tr '\n' ' '))" \
  test "$(sort -u retries.out | tr '\n' ' ')" = "attempt 0 of 2 attempt 1 of 2 "
finish
