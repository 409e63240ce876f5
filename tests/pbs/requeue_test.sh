#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted $VARS are expanded by the job, on purpose
# Requeue on the real OpenPBS server (supervise.requeue: -r y): `qrerun` of a running job restarts it;
# its output keeps both runs; `ezpz status` shows 2 starts (run_count). PBS tells a job nothing about
# its reruns, so `ezpz launch --max-restarts` asks the server (qstat): a job that allows 1 restart and
# is rerun twice does not run its program a third time, and fails with exit 1.
#   requeue_test.sh SERVER_DIR EZPZ   (ctest: pbs.requeue)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
server=$1
enter_server "$server"
ezpz=$(user_copy "$2" ezpz)
user_copy "$here/pals/mpiexec" >/dev/null
python=/usr/bin/python3
[[ -x $python ]] || python=python3
trap cleanup_user_jobs EXIT

# spec FILE NAME REQUEUE RUN: a one-node, one-rank job whose output is in $userdir/NAME.out and .err.
spec() {
  printf '%s\n' "name: $2" "system: pbs" "account: MyProject" "nodes: 1" "ranks_per_node: 1" "walltime: 5m" \
    "output: $userdir/$2.out" "error: $userdir/$2.err" "setup: export PATH=$userdir/bin:/opt/pbs/bin:\$PATH" "run: $4" \
    "supervise: {requeue: $3}" >"$userdir/$1"
  chown "$EZPZ_PBS_USER:" "$userdir/$1"
}
field() { # field JOB NAME: NAME in `ezpz status JOB --json`
  as_user "$ezpz" status "$1" --json 2>/dev/null </dev/null |
    "$python" -c 'import json, sys; print(json.load(sys.stdin)[0][sys.argv[1]])' "$2" 2>/dev/null
}
wait_state() { # wait_state JOB STATE: until the server shows the job in STATE (60 s at most)
  for _ in $(seq 120); do
    [[ $(as_user qstat -x -f -F json "$1" </dev/null 2>/dev/null | "$python" -c \
      'import json, sys; print(next(iter(json.load(sys.stdin)["Jobs"].values()))["job_state"])' 2>/dev/null) == "$2" ]] &&
      return 0
    sleep 0.5
  done
  return 1
}
rerun() { # rerun JOB: once it runs (and its program had 2 s to start), qrerun it as root (an operator's command)
  wait_state "$1" R && sleep 2 && qrerun "$1" </dev/null
}

# 1. Rerun once: it starts again, and the second run ends the job.
spec once.yaml ezpz-rerun-once 2 '[bash, -c, "echo run; if [ -e '"$userdir"'/once.ran ]; then exit 0; fi; touch '"$userdir"'/once.ran; sleep 120"]'
job=$(as_user "$ezpz" submit once.yaml 2>"$workdir/submit.err" </dev/null)
check "submitted ($(cat "$workdir/submit.err"))" test -n "$job"
[[ -n $job ]] || finish
check "qrerun of the running job" rerun "$job"
check "it ran again and ended" wait_state "$job" F
check "status: completed ($(field "$job" state))" test "$(field "$job" state)" = completed
check "status: 2 starts ($(field "$job" starts))" test "$(field "$job" starts)" = 2
check "the output kept both runs ($(grep -c '^run$' "$userdir/ezpz-rerun-once.out" 2>/dev/null) run lines)" \
  test "$(grep -c '^run$' "$userdir/ezpz-rerun-once.out" 2>/dev/null)" = 2
check "... and the launch said which restart it was, from the server's run_count" \
  grep -q "ezpz launch: restart 1 of at most 2 (the scheduler's start count of $job)" "$userdir/ezpz-rerun-once.err"

# 2. Allowed 1 restart, rerun twice: the third start runs nothing.
spec twice.yaml ezpz-rerun-limit 1 '[bash, -c, "echo run; sleep 120"]'
job=$(as_user "$ezpz" submit twice.yaml 2>"$workdir/submit.err" </dev/null)
check "submitted ($(cat "$workdir/submit.err"))" test -n "$job"
[[ -n $job ]] || finish
check "rerun once" rerun "$job"
check "rerun twice" rerun "$job"
check "the job ended" wait_state "$job" F
out=$userdir/ezpz-rerun-limit.out
check "status: failed with exit 1 ($(field "$job" state) $(field "$job" exit_code))" \
  test "$(field "$job" state) $(field "$job" exit_code)" = "failed 1"
check "status: 3 starts ($(field "$job" starts))" test "$(field "$job" starts)" = 3
check "the program ran twice, not three times ($(grep -c '^run$' "$out" 2>/dev/null))" \
  test "$(grep -c '^run$' "$out" 2>/dev/null)" = 2
check "... and the launch says why ($(grep restarted "${out%.out}.err" 2>/dev/null))" \
  grep -q "this job has been restarted 2 times (the scheduler's start count of $job), more than the 1 that supervise.requeue allows" "${out%.out}.err"
finish
