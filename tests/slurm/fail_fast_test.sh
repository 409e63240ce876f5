#!/usr/bin/env bash
# Fail fast on the real Slurm cluster: a 2-node x 2-rank job of the generic Slurm profile whose rank 1
# exits 3 at once while the other ranks would sleep 300 s (as ranks left waiting in a rendezvous do)
# ends within seconds of a 10-minute walltime; `ezpz submit --wait` exits 3, `ezpz status` reports
# failed with exit code 3, and no rank process is left behind.
#   fail_fast_test.sh CLUSTER_DIR EZPZ
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
cluster=$1
ezpz=$2
rank=$here/../e2e/fail_fast_rank.sh  # rank 1 exits 3 once the other three sleep
enter_cluster "$cluster"
limit=60  # seconds from submission to the end of --wait

pids="$workdir/pids"
mkdir -p "$pids"
# The virtual nodes share this host: the rendezvous address is loopback.
cat >"$workdir/job.yaml" <<YAML
name: ezpz-fail-fast
system: slurm
queue: debug
nodes: 2
ranks_per_node: 2
walltime: 10m
env: {MASTER_ADDR: 127.0.0.1}
run: [$rank, $pids]
YAML

start=$SECONDS
# Without fail fast the job would run for its 10 minutes: give up well before that.
job=$(timeout -k 5 $((limit * 2)) "$ezpz" submit job.yaml --wait 2>"$workdir/submit.err")
status=$?
elapsed=$((SECONDS - start))
check "submit --wait returns the failing rank's exit code 3 (got $status; $(tail -n 5 "$workdir/submit.err"))" \
  test "$status" -eq 3
check "the job ended within $limit s of its 10 min walltime (took ${elapsed}s)" test "$elapsed" -lt "$limit"
check "only the job id is printed on stdout (got '$job')" grep -qx '[0-9][0-9]*' <<<"$job"
if ((status == 124)); then  # timed out: the job is still running
  job=$(squeue -h -n ezpz-fail-fast -o %i | head -n 1)
  scancel "$job"
fi

report=$("$ezpz" status "$job" --json 2>&1)
field() {  # field NAME: NAME of the job in `ezpz status --json`
  python3 -c "import json, sys; print(json.loads(sys.argv[1])[0][sys.argv[2]])" "$report" "$1" 2>/dev/null
}
check "ezpz status: failed ($report)" test "$(field state)" = failed
check "ezpz status: exit code 3 ($report)" test "$(field exit_code)" = 3

files=("$pids"/*)
check "the three other ranks had started (${files[*]##*/})" test "${#files[@]}" -eq 3
left=()
for file in "${files[@]}"; do
  [[ -e $file ]] || continue
  pid=$(cat "$file")
  for _ in $(seq 50); do alive "$pid" || break; sleep 0.1; done
  if alive "$pid"; then
    left+=("$pid")
    kill -KILL "$pid"
  fi
done
check "no rank of the job is left running (${left[*]:-none})" test "${#left[@]}" -eq 0
finish
