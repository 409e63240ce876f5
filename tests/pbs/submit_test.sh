#!/usr/bin/env bash
# ezpz submit/status/cancel/logs against the real OpenPBS server, as its non-root user, with jobs that
# run: ranks started by the profiles' PALS mpiexec line (tests/pbs/pals/mpiexec over MPICH) through
# `ezpz exec`; submit --wait returns the job's exit code; status (text, --json, with stdin closed);
# --hold; cancel of a held and of a running job; logs, logs --stderr and logs --follow (complete
# output, for a spooled job and for Aurora's -k doe); --after with a parent that succeeds and one that
# fails; a job over its walltime; a job given by flags without a spec file; a batch script of the user's
# own (record, status, logs, --wait, --hold, --after); the server's queue limits and an unknown queue.
#   submit_test.sh SERVER_DIR EZPZ   (ctest: pbs.submit)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
server=$1
enter_server "$server"
ezpz=$(user_copy "$2" ezpz)
user_copy "$here/pals/mpiexec" >/dev/null
bin=$userdir/bin
trap cleanup_user_jobs EXIT
python=/usr/bin/python3
[[ -x $python ]] || python=python3

ezpz() { as_user "$ezpz" "$@"; }
status_field() { # status_field JOBID FIELD: a field of `ezpz status JOBID --json` (its stderr in $workdir/status.err)
  ezpz status "$1" --json 2>"$workdir/status.err" </dev/null |
    "$python" -c 'import json, sys; v = json.load(sys.stdin)[0][sys.argv[1]]; print("None" if v is None else v)' "$2" 2>/dev/null
}
state_of() { status_field "$1" state; }
pbs_attr() { # pbs_attr JOBID ATTRIBUTE: the attribute in the server's own qstat -x -f -F json
  as_user qstat -x -f -F json "$1" </dev/null 2>/dev/null |
    "$python" -c 'import json, sys; j = next(iter(json.load(sys.stdin)["Jobs"].values())); print(j.get(sys.argv[1], ""))' "$2" 2>/dev/null
}
# server_wait JOBID SECONDS [STATE]: waits until the server (not ezpz) shows the job in STATE (default F,
# ended), so that each check below tests one thing even when an earlier ezpz command returned too soon.
server_wait() {
  local deadline=$((SECONDS + $2))
  until [[ $(pbs_attr "$1" job_state) == "${3:-F}" ]]; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}
# spec FILE NAME SYSTEM WALLTIME RUN [EXTRA YAML LINE…]: a one-node job whose ranks find the PALS
# stand-in and ezpz on PATH.
spec() {
  local file=$1 name=$2 system=$3 walltime=$4 run=$5
  shift 5
  {
    echo "name: $name"
    echo "system: $system"
    echo "account: MyProject"
    echo "nodes: 1"
    echo "ranks_per_node: 2"
    echo "walltime: \"$walltime\""
    # Aurora's jobs name filesystems and load its default modules: there is no module command here.
    [[ $system == aurora ]] && printf '%s\n' "filesystems: [home, flare]" "modules: []"
    echo "setup: export PATH=$bin:\$PATH"
    echo "run: $run"
    printf '%s\n' "$@"
  } >"$userdir/$file"
  chown "$EZPZ_PBS_USER:" "$userdir/$file"
}

# --- a job that succeeds: submit --wait, status, logs ---
# shellcheck disable=SC2016 # expanded by the job
spec ok.yaml ezpz-ok pbs 5m '[bash, -c, "for i in $(seq 1 500); do echo rank $RANK line $i; done; echo rank $RANK of $WORLD_SIZE done; echo to stderr $RANK >&2"]'
started=$SECONDS
job=$(ezpz submit ok.yaml --wait 2>"$workdir/submit.err" </dev/null)
rc=$?
check "submit --wait of a job that succeeds returns 0 (got $rc: $(tail -n 5 "$workdir/submit.err"))" test "$rc" -eq 0
check "submit --wait waited for the job to end ($((SECONDS - started))s; server says $(pbs_attr "$job" job_state))" \
  test "$(pbs_attr "$job" job_state)" = F
check "only the job id is printed on stdout (got '$job')" grep -Eqx "[0-9]+\.$EZPZ_PBS_HOST" <<<"$job"
server_wait "$job" 120
check "the record keeps the exact script" test -s "$EZPZ_RECORDS_DIR/$job/job.sh"
check "the server ran it with Exit_status 0 (got '$(pbs_attr "$job" Exit_status)')" test "$(pbs_attr "$job" Exit_status)" = 0
check "status --json: completed (got '$(state_of "$job")')" test "$(state_of "$job")" = completed
check "status --json: exit code 0 (got '$(status_field "$job" exit_code)')" test "$(status_field "$job" exit_code)" = 0
ezpz status "$job" >"$workdir/status.txt" 2>&1 </dev/null
check "status (text) shows the job completed with exit 0: $(cat "$workdir/status.txt")" \
  grep -Eq "^${job//./\\.} +ezpz-ok +completed +0 " "$workdir/status.txt"
check "status with stdin closed still reaches the server (got '$(state_of "$job" <&-)')" \
  test "$(state_of "$job" <&-)" = completed
ezpz logs "$job" >"$workdir/logs.txt" 2>"$workdir/logs.err" </dev/null
rc=$?
check "logs exits 0 (got $rc: $(cat "$workdir/logs.err"))" test "$rc" -eq 0
check "logs: both ranks printed all 500 lines ($(grep -c ' line ' "$workdir/logs.txt") lines)" \
  test "$(grep -c '^rank [01] line [0-9]*$' "$workdir/logs.txt")" -eq 1000
check "logs: ranks 0 and 1 of 2 ran, through ezpz exec ($(grep ' done$' "$workdir/logs.txt" | tr '\n' ' '))" \
  test "$(grep -c '^rank [01] of 2 done$' "$workdir/logs.txt")" -eq 2
check "logs: stderr is not mixed into stdout" test "$(grep -c 'to stderr' "$workdir/logs.txt")" -eq 0
ezpz logs --stderr "$job" >"$workdir/stderr.txt" 2>"$workdir/stderr.err" </dev/null
rc=$?
check "logs --stderr exits 0 (got $rc: $(head -c 300 "$workdir/stderr.err"))" test "$rc" -eq 0
check "logs --stderr shows what both ranks wrote to stderr ($(head -c 300 "$workdir/stderr.txt"))" \
  test "$(grep -c '^to stderr [01]$' "$workdir/stderr.txt")" -eq 2

# --- a job that fails: --wait returns its exit code ---
spec fail.yaml ezpz-fail pbs 5m '[bash, -c, "echo failing; exit 3"]'
failing=$(ezpz submit fail.yaml --wait 2>"$workdir/fail.err" </dev/null)
rc=$?
check "submit --wait of a job that exits 3 returns 3 (got $rc: $(tail -n 3 "$workdir/fail.err"))" test "$rc" -eq 3
server_wait "$failing" 120
check "the server has Exit_status 3 (got '$(pbs_attr "$failing" Exit_status)')" test "$(pbs_attr "$failing" Exit_status)" = 3
check "status: failed (got '$(state_of "$failing")')" test "$(state_of "$failing")" = failed
check "status: exit code 3 (got '$(status_field "$failing" exit_code)')" test "$(status_field "$failing" exit_code)" = 3

# --- --hold, then cancel of the held job ---
held=$(ezpz submit ok.yaml --hold 2>"$workdir/hold.err" </dev/null)
check "submit --hold exits 0 ($(cat "$workdir/hold.err"))" test -n "$held"
check "the server holds it (job_state '$(pbs_attr "$held" job_state)', Hold_Types '$(pbs_attr "$held" Hold_Types)')" \
  test "$(pbs_attr "$held" job_state)" = H
check "status: held (got '$(state_of "$held")')" test "$(state_of "$held")" = held
ezpz cancel "$held" >"$workdir/cancel.out" 2>&1 </dev/null
rc=$?
check "cancel of a held job exits 0 (got $rc: $(cat "$workdir/cancel.out"))" test "$rc" -eq 0
server_wait "$held" 30
check "the server deleted the held job (job_state '$(pbs_attr "$held" job_state)')" test "$(pbs_attr "$held" job_state)" = F
check "status: the held job is cancelled (got '$(state_of "$held")')" test "$(state_of "$held")" = cancelled

# --- cancel of a running job (stdin closed, as from cron or a workflow tool) ---
spec sleep.yaml ezpz-sleep pbs 5m '[sleep, "300"]'
sleeper=$(ezpz submit sleep.yaml 2>/dev/null </dev/null)
server_wait "$sleeper" 60 R
check "status: the sleeping job is running (server: $(pbs_attr "$sleeper" job_state); ezpz: $(state_of "$sleeper"))" \
  test "$(state_of "$sleeper")" = running
ezpz cancel "$sleeper" >"$workdir/cancel.out" 2>&1 <&-
rc=$?
check "cancel of a running job exits 0 (got $rc: $(cat "$workdir/cancel.out"))" test "$rc" -eq 0
server_wait "$sleeper" 60
state=$(state_of "$sleeper")
check "the server ended the running job (job_state '$(pbs_attr "$sleeper" job_state)')" test "$(pbs_attr "$sleeper" job_state)" = F
check "status: the job deleted while running is cancelled (got '$state', exit $(status_field "$sleeper" exit_code))" \
  test "$state" = cancelled

# --- logs --follow: the whole output, for a job PBS spools (copied at the end) and for -k doe ---
# shellcheck disable=SC2016 # expanded by the job
slow='[bash, -c, "for i in $(seq 1 40); do echo rank $RANK step $i; sleep 0.1; done; echo rank $RANK finished"]'
for system in pbs aurora; do
  spec "follow-$system.yaml" "ezpz-follow-$system" "$system" 5m "$slow"
  follow=$(ezpz submit "follow-$system.yaml" 2>"$workdir/follow.err" </dev/null)
  check "$system: submit of the follow job exits 0 ($(cat "$workdir/follow.err"))" test -n "$follow"
  started=$SECONDS
  timeout 180 runuser -u "$EZPZ_PBS_USER" -- "$ezpz" logs --follow "$follow" >"$workdir/follow.txt" 2>"$workdir/follow.log" </dev/null
  rc=$?
  check "$system: logs --follow ends by itself when the job ends, exit 0 (got $rc after $((SECONDS - started))s: $(head -c 300 "$workdir/follow.log"))" \
    test "$rc" -eq 0
  check "$system: the job had ended when logs --follow returned (server: $(pbs_attr "$follow" job_state))" \
    test "$(pbs_attr "$follow" job_state)" = F
  server_wait "$follow" 120
  check "$system: logs --follow got every line of both ranks ($(grep -c ' step ' "$workdir/follow.txt") of 80)" \
    test "$(grep -c '^rank [01] step [0-9]*$' "$workdir/follow.txt")" -eq 80
  check "$system: logs --follow got both ranks' last lines" test "$(grep -c '^rank [01] finished$' "$workdir/follow.txt")" -eq 2
  ezpz logs "$follow" >"$workdir/after.txt" 2>/dev/null </dev/null
  check "$system: logs --follow printed the same as logs afterwards" cmp -s "$workdir/follow.txt" "$workdir/after.txt"
done
check "aurora: the job kept its output in place (-k doe: $(pbs_attr "$follow" Keep_Files))" test "$(pbs_attr "$follow" Keep_Files)" = doe

# --- --after: the dependent runs after a parent that succeeds, never after one that fails ---
# run_dependent PARENT_EXIT: a held parent that sleeps and exits PARENT_EXIT, a dependent submitted
# with --after PARENT --wait, then the parent released; sets $parent, $child, $child_depend (the
# server's depend attribute before the release) and $child_rc.
run_dependent() {
  rm -f "$userdir/parent.end" "$userdir/child.ran" "$workdir/child.id"
  spec parent.yaml ezpz-parent pbs 5m "[bash, -c, \"sleep 2; date +%s.%N >parent.end; exit $1\"]"
  # shellcheck disable=SC2016 # expanded by the job
  spec child.yaml ezpz-child pbs 5m '[bash, -c, "test $RANK != 0 || { test -f parent.end && echo after >child.ran || echo before >child.ran; }"]'
  parent=$(ezpz submit parent.yaml --hold 2>/dev/null </dev/null)
  ezpz submit child.yaml --after "$parent" --wait >"$workdir/child.id" 2>"$workdir/child.err" </dev/null &
  local waiter=$! deadline=$((SECONDS + 30))
  until [[ -s $workdir/child.id ]] || ((SECONDS > deadline)); do sleep 0.2; done
  child=$(cat "$workdir/child.id")
  check "--after (parent exits $1): the dependent's id is printed ($child; $(cat "$workdir/child.err"))" \
    grep -Eqx "[0-9]+\.$EZPZ_PBS_HOST" <<<"$child"
  # The server drops the attribute once the dependency is released: read it while the parent is held.
  child_depend=$(pbs_attr "$child" depend)
  as_user qrls "$parent" </dev/null
  wait "$waiter"
  child_rc=$?
  server_wait "$parent" 120
  server_wait "$child" 120
}
run_dependent 0
check "--after, parent succeeds: the dependent was submitted ($(cat "$workdir/child.err"))" test -n "$child"
check "--after reached the server (depend '$child_depend')" grep -q "^afterok:$parent" <<<"$child_depend"
check "--after, parent succeeds: --wait returns the dependent's 0 (got $child_rc: $(tail -n 3 "$workdir/child.err"))" \
  test "$child_rc" -eq 0
check "--after, parent succeeds: the dependent ran after the parent ended ($(cat "$userdir/child.ran" 2>/dev/null))" \
  test "$(cat "$userdir/child.ran" 2>/dev/null)" = after
check "--after, parent succeeds: the dependent is completed (got '$(state_of "$child")')" test "$(state_of "$child")" = completed

run_dependent 3
check "--after, parent fails: the parent is failed 3 (got '$(state_of "$parent") $(status_field "$parent" exit_code)')" \
  test "$(state_of "$parent") $(status_field "$parent" exit_code)" = "failed 3"
check "--after, parent fails: the dependent never ran" test ! -e "$userdir/child.ran"
check "--after, parent fails: the server ended the dependent without running it (job_state '$(pbs_attr "$child" job_state)', Exit_status '$(pbs_attr "$child" Exit_status)', comment '$(pbs_attr "$child" comment)')" \
  test "$(pbs_attr "$child" job_state)" = F
check "--after, parent fails: --wait does not return 0 for the dependent, but not-run's 123 (docs/jobs.md; got $child_rc: $(tail -n 3 "$workdir/child.err"))" \
  test "$child_rc" -eq 123
child_state=$(state_of "$child")
check "--after, parent fails: status calls the dependent not-run, not completed, finished or unknown (got '$child_state', exit $(status_field "$child" exit_code); $(head -c 300 "$workdir/status.err"))" \
  test "$child_state" = not-run
check "--after, parent fails: status gives the dependent no exit code 0 (got '$(status_field "$child" exit_code)')" \
  test "$(status_field "$child" exit_code)" != 0

# --- a job over its walltime (MoM checks every 2-5 s: server.sh's $min/$max_check_poll) ---
spec walltime.yaml ezpz-walltime pbs 00:00:08 '[sleep, "300"]'
started=$SECONDS
over=$(ezpz submit walltime.yaml --wait 2>"$workdir/walltime.err" </dev/null)
rc=$?
check "walltime: submit --wait does not return 0, but timeout's 124 (docs/jobs.md; got $rc after $((SECONDS - started))s: $(tail -n 3 "$workdir/walltime.err"))" \
  test "$rc" -eq 124
server_wait "$over" 120
check "walltime: the server killed the job at its walltime ($((SECONDS - started))s; Exit_status '$(pbs_attr "$over" Exit_status)')" \
  test "$(pbs_attr "$over" Exit_status)" = -29
check "walltime: status names it timeout (got '$(state_of "$over")', detail '$(status_field "$over" detail)')" \
  test "$(state_of "$over")" = timeout

# --- a job without a spec file, and a batch script the user wrote (docs/jobs.md) ---
# shellcheck disable=SC2016 # the ranks expand $RANK
flagged=$(ezpz submit --system pbs -N 1 -t 5m -A MyProject --set ranks_per_node=2 --set "setup=export PATH=$bin:\$PATH" \
  --wait -- bash -c 'echo rank $RANK of $WORLD_SIZE from flags' 2>"$workdir/flags.err" </dev/null)
rc=$?
check "no spec file: submit --wait with flags returns 0 (got $rc: $(tail -n 3 "$workdir/flags.err"))" test "$rc" -eq 0
check "no spec file: the -A flag reached the server" test "$(pbs_attr "$flagged" Account_Name)" = MyProject
ezpz logs "$flagged" >"$workdir/flags.log" 2>&1 </dev/null
check "no spec file: the program after '--' ran as 2 ranks ($(head -c 300 "$workdir/flags.log"))" \
  test "$(grep -c 'of 2 from flags' "$workdir/flags.log")" -eq 2
ezpz submit --system pbs -t 90 -- true >/dev/null 2>"$workdir/flags-bad.err" </dev/null
check "no spec file: a bad flag value is located at the flag ($(head -c 300 "$workdir/flags-bad.err"))" \
  grep -q "^ezpz: -t 90: error: invalid walltime" "$workdir/flags-bad.err"

cat >"$userdir/mine.sh" <<'SCRIPT'
#!/bin/bash
#PBS -N mine
#PBS -A MyProject
#PBS -l select=1
#PBS -l walltime=00:05:00
#PBS -o mine.out
#PBS -j oe
echo "my own script ran"
echo "to its stderr" >&2
exit 3
SCRIPT
chown "$EZPZ_PBS_USER:" "$userdir/mine.sh"
before=$(md5sum <"$userdir/mine.sh")
mine=$(ezpz submit mine.sh --system pbs --wait 2>"$workdir/mine.err" </dev/null)
rc=$?
check "own script: submit --wait returns the script's exit code 3 (got $rc: $(tail -n 3 "$workdir/mine.err"))" test "$rc" -eq 3
check "own script: the file is not rewritten" test "$(md5sum <"$userdir/mine.sh")" = "$before"
check "own script: the record keeps a copy" cmp -s "$userdir/mine.sh" "$userdir/records/$mine/job.sh"
check "own script: the record has the name of its -N directive" \
  "$python" -c 'import json, sys; assert json.load(open(sys.argv[1]))["name"] == "mine"' "$userdir/records/$mine/record.json"
check "own script: status says failed (got '$(state_of "$mine")')" test "$(state_of "$mine")" = failed
ezpz logs "$mine" >"$workdir/mine.log" 2>&1 </dev/null
check "own script: logs reads the -o path of its directive ($(head -c 200 "$workdir/mine.log"))" \
  grep -q "my own script ran" "$workdir/mine.log"
check "own script: -j oe put stderr into the output too" grep -q "to its stderr" "$workdir/mine.log"
check "own script: with -j oe the record has no error file" \
  "$python" -c 'import json, sys; assert json.load(open(sys.argv[1]))["error"] == ""' "$userdir/records/$mine/record.json"
first=$(ezpz submit mine.sh --system pbs --hold 2>"$workdir/mine-hold.err" </dev/null)
check "own script: --hold holds it (got '$(state_of "$first")')" test "$(state_of "$first")" = held
second=$(ezpz submit mine.sh --system pbs --after "$first" 2>"$workdir/mine-after.err" </dev/null)
check "own script: --after reaches qsub as a dependency ($(pbs_attr "$second" depend))" \
  grep -q "afterok:$first" <<<"$(pbs_attr "$second" depend)"
check "own script: cancel of the dependent job" ezpz cancel "$second"
check "own script: cancel of the held job" ezpz cancel "$first"

# --- ezpz doctor asks the real server (qstat -B) ---
ezpz doctor --system pbs --json >"$workdir/doctor.json" 2>"$workdir/doctor.err" </dev/null
check "doctor: the scheduler check got the server's answer ($(head -c 300 "$workdir/doctor.json"))" \
  "$python" -c 'import json, sys
f = [f for f in json.load(open(sys.argv[1]))["findings"] if f["check"] == "scheduler"][0]
assert f["status"] == "ok" and f["finding"].startswith("qstat -B answered"), f' "$workdir/doctor.json"

# --- the server's limits and queues: loud failures that keep the script ---
# The server's debug queue takes what any profile's does: 8 nodes and 2 h (Crux).
ezpz submit ok.yaml --set queue=debug --set nodes=9 >"$workdir/limit.out" 2>"$workdir/limit.err" </dev/null
rc=$?
check "more nodes than queue debug allows: exit 1 (got $rc: $(head -c 400 "$workdir/limit.err"))" test "$rc" -eq 1
check "more nodes than queue debug allows: qsub's own message is shown" \
  grep -q "Job violates queue and/or server resource limits" "$workdir/limit.err"
check "more nodes than queue debug allows: nothing on stdout" test ! -s "$workdir/limit.out"
kept=$(grep -o "kept at .*" "$workdir/limit.err" | cut -d' ' -f3)
check "the refused script is kept ($kept)" test -s "$kept"
ezpz submit ok.yaml --set queue=debug --set walltime=3h >/dev/null 2>"$workdir/limit.err" </dev/null
check "a walltime over queue debug's 2 h: exit 1 and qsub's message ($(head -c 300 "$workdir/limit.err"))" \
  grep -q "Job violates queue and/or server resource limits" "$workdir/limit.err"
ezpz submit ok.yaml --set queue=nope >/dev/null 2>"$workdir/nope.err" </dev/null
check "an unknown queue: exit 1 and qsub's message ($(head -c 300 "$workdir/nope.err"))" grep -q "Unknown queue" "$workdir/nope.err"

# Nothing of this test left on the server (the EXIT trap deletes what is).
mapfile -t left < <(as_user qselect -u "$EZPZ_PBS_USER" </dev/null)
check "no job of the test is left queued or running (${left[*]})" test "${#left[@]}" -eq 0
finish
