#!/usr/bin/env bash
# ezpz submit/status/cancel/logs against the strict fake PBS: the job id of a PBS server is parsed,
# --hold and --after reach qsub, states and exit codes are read from `qstat -x -f -F json`, qdel
# cancels, and a server that is down (or a missing qsub) is a loud error that keeps the script.
#   submit_test.sh EZPZ   (ctest: fake_pbs.submit)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
ezpz=$1
export PATH="$here:$PATH" FAKE_PBS_DIR="$workdir/pbs" FAKE_PBS_ALLOW_ROOT=1 EZPZ_RECORDS_DIR="$workdir/records"
export EZPZ_POLL_SECONDS=0.1
unset EZPZ_SYSTEM FAKE_PBS_SERVER
mkdir -p "$FAKE_PBS_DIR"
printf 'debug 2 3600\ndebug-scaling 256 3600 2\n' >"$FAKE_PBS_DIR/queues"
cd "$workdir" || exit 1
state_of() {
  "$ezpz" status "$1" --json 2>/dev/null | /usr/bin/python3 -c "import json, sys; s = json.load(sys.stdin)[0]; print(s['state'], s['exit_code'])"
}

cat >"$workdir/job.yaml" <<'YAML'
name: pbs-e2e
system: aurora
account: MyProject
nodes: 2
walltime: 30m
run: [python3, train.py]
YAML

job=$("$ezpz" submit job.yaml --hold --after 100.fakepbs-0001.hostmgmt.cm.example 2>"$workdir/err")
code=$?  # before the message: its $(…) would set $? first
check "submit exits 0 ($(cat "$workdir/err"))" test "$code" -eq 0
check "the PBS job id is printed whole (got '$job')" grep -qx '[0-9]*\.fakepbs-0001\.hostmgmt\.cm\.example' <<<"$job"
check "--hold reached qsub" test "$(cat "$FAKE_PBS_DIR/jobs/$job/state")" = H
check "--after became a dependency" grep -q 'afterok:100.fakepbs-0001' "$FAKE_PBS_DIR/jobs/$job/attributes.json"
check "the record keeps the script qsub got" cmp -s "$workdir/records/$job/job.sh" "$FAKE_PBS_DIR/jobs/$job/script"
check "held" test "$(state_of "$job")" = "held None"
echo R >"$FAKE_PBS_DIR/jobs/$job/state"
check "running" test "$(state_of "$job")" = "running None"
echo F >"$FAKE_PBS_DIR/jobs/$job/state"
echo 0 >"$FAKE_PBS_DIR/jobs/$job/exit_status"
check "completed with exit code 0" test "$(state_of "$job")" = "completed 0"
short=${job%%.*}
check "the short id finds the job" test "$(state_of "$short")" = "completed 0"
echo "hello from the job" >"$workdir/pbs-e2e.o$short"
check "logs prints PBS's default output file" bash -c "'$ezpz' logs '$short' | grep -qx 'hello from the job'"

failing=$("$ezpz" submit job.yaml 2>/dev/null)
echo F >"$FAKE_PBS_DIR/jobs/$failing/state"
echo 3 >"$FAKE_PBS_DIR/jobs/$failing/exit_status"
check "a failed job shows its exit code" test "$(state_of "$failing")" = "failed 3"

running=$("$ezpz" submit job.yaml 2>/dev/null)
echo R >"$FAKE_PBS_DIR/jobs/$running/state"
check "cancel exits 0" "$ezpz" cancel "$running"
check "a job qdel'd while running is cancelled, not failed 143" test "$(state_of "$running")" = "cancelled 143"

# ezpz started from a caller with no stdin (CI, cron, a workflow tool): qstat and qdel must still reach
# the server (a real OpenPBS qstat with fd 0 closed says "cannot connect" and exits 0).
queued=$("$ezpz" submit job.yaml 2>/dev/null)
check "status with stdin closed: queued, not 'unknown'" test "$(state_of "$queued" <&-)" = "queued None"
"$ezpz" cancel "$queued" <&- 2>"$workdir/err"
check "cancel with stdin closed: qdel deleted the job" test "$(cat "$FAKE_PBS_DIR/jobs/$queued/state")" = F
check "a job qdel'd while queued is cancelled" test "$(state_of "$queued")" = "cancelled None"

# submit --wait: the job's own exit code, and a named code for ends that are not the job's.
finish_job() {  # finish_job ID [EXIT_STATUS]: queued -> running -> F, while --wait polls
  local tries=0
  until [[ -f $FAKE_PBS_DIR/jobs/$1/state ]] || ((++tries > 100)); do sleep 0.1; done
  sleep 0.3
  echo R >"$FAKE_PBS_DIR/jobs/$1/state"
  sleep 0.3
  if (($# > 1)); then echo "$2" >"$FAKE_PBS_DIR/jobs/$1/exit_status"; fi
  echo F >"$FAKE_PBS_DIR/jobs/$1/state"
}
wait_for_job() {  # wait_for_job [EXIT_STATUS]: submit --wait, finishing the job from the side; prints its exit code
  local next
  next=$(cat "$FAKE_PBS_DIR/next_id" 2>/dev/null || echo 1)
  finish_job "$next.fakepbs-0001.hostmgmt.cm.example" "$@" &
  "$ezpz" submit job.yaml --wait <&- >/dev/null 2>"$workdir/wait.err"
  echo $?
  wait
}
check "--wait: a job that exits 3 returns 3 ($(cat "$workdir/wait.err" 2>/dev/null))" test "$(wait_for_job 3)" -eq 3
check "--wait: a job that exits 0 returns 0" test "$(wait_for_job 0)" -eq 0
check "--wait: a job over its walltime (Exit_status -29) returns 124" test "$(wait_for_job -29)" -eq 124
check "--wait: says why" grep -q "timeout (PBS ended the job at its walltime" "$workdir/wait.err"
check "--wait: a job ended without running (no Exit_status) returns 123, not 0" test "$(wait_for_job)" -eq 123
check "--wait: says it never ran" grep -q "not-run" "$workdir/wait.err"

# An afterok child whose parent failed: PBS ends it in state F with no Exit_status.
child=$("$ezpz" submit job.yaml --after "$failing" 2>/dev/null)
echo F >"$FAKE_PBS_DIR/jobs/$child/state"
check "a dependent of a failed job is not-run, not finished" test "$(state_of "$child")" = "not-run None"

# With no job history (OpenPBS's default), a finished job is unknown: never success.
touch "$FAKE_PBS_DIR/no_history"
check "without job history a finished job is unknown" test "$(state_of "$failing")" = "unknown None"
rm "$FAKE_PBS_DIR/no_history"

# logs: --stderr without error: in the spec is PBS's <name>.e<number>; --follow loses nothing.
echo "an error line" >"$workdir/pbs-e2e.e$short"
check "logs --stderr prints PBS's default error file" bash -c "'$ezpz' logs --stderr '$short' | grep -qx 'an error line'"
follow=$("$ezpz" submit job.yaml 2>/dev/null)
follow_out="$workdir/pbs-e2e.o${follow%%.*}"
echo R >"$FAKE_PBS_DIR/jobs/$follow/state"
"$ezpz" logs "$follow" 2>"$workdir/err"
check "logs of a running PBS job without its file exits 1" test $? -eq 1
check "logs says PBS copies the file at the end" grep -q "PBS copies a job's output" "$workdir/err"
"$ezpz" logs --follow "$follow" >"$workdir/followed" 2>"$workdir/follow.err" &
follower=$!
for i in 1 2 3 4 5; do
  printf 'line %s\n' "$i" >>"$follow_out"
  sleep 0.7  # longer than a poll, so the follower reads nothing new in between
done
printf 'last line, no newline' >>"$follow_out"
echo 0 >"$FAKE_PBS_DIR/jobs/$follow/exit_status"
echo F >"$FAKE_PBS_DIR/jobs/$follow/state"
wait "$follower"
check "logs --follow ends when the job ends" test $? -eq 0
check "logs --follow printed every byte ($(wc -c <"$workdir/followed") of $(wc -c <"$follow_out"))" cmp -s "$follow_out" "$workdir/followed"

# One records directory per user: status, logs and cancel find a job from any directory.
mkdir -p "$workdir/specs" "$workdir/elsewhere" "$workdir/home"
cp job.yaml "$workdir/specs/job.yaml"
anywhere=$(env -u EZPZ_RECORDS_DIR -u XDG_STATE_HOME HOME="$workdir/home" "$ezpz" submit "$workdir/specs/job.yaml" 2>/dev/null)
check "the record is under ~/.local/state/ezpz/jobs" test -s "$workdir/home/.local/state/ezpz/jobs/$anywhere/record.json"
check "status finds it from another directory" \
  bash -c "cd '$workdir/elsewhere' && env -u EZPZ_RECORDS_DIR -u XDG_STATE_HOME HOME='$workdir/home' '$ezpz' status | grep -q '^$anywhere .* queued'"

# No record, no submission: a records directory that cannot be made stops before qsub.
before=$(grep -c '"cmd": "qsub"' "$FAKE_PBS_DIR/calls.jsonl")
touch "$workdir/not-a-dir"
EZPZ_RECORDS_DIR="$workdir/not-a-dir/records" "$ezpz" submit job.yaml >"$workdir/out" 2>"$workdir/err"
check "an unwritable records directory fails with exit 1, not an abort" test $? -eq 1
check "the message names the directory" grep -q "cannot keep the job's record in $workdir/not-a-dir/records" "$workdir/err"
check "nothing was submitted" test "$(grep -c '"cmd": "qsub"' "$FAKE_PBS_DIR/calls.jsonl")" -eq "$before"

# A job id with no record on a system without a scheduler (a PBS login node detects as local).
EZPZ_SYSTEM=local "$ezpz" cancel 123 >/dev/null 2>"$workdir/err"
check "cancel on a system without a scheduler exits 1, no crash" test $? -eq 1
check "and says there is no cancel command" grep -q "has no cancel command" "$workdir/err"
EZPZ_SYSTEM=local "$ezpz" status 123 >/dev/null 2>"$workdir/err"
check "status on a system without a scheduler exits 1" test $? -eq 1

touch "$FAKE_PBS_DIR/down"
"$ezpz" submit job.yaml >"$workdir/out" 2>"$workdir/err"
check "a server that is down fails the submission" test $? -eq 1
check "nothing on stdout" test ! -s "$workdir/out"
check "qsub's own message is shown" grep -q "qsub: cannot connect to server" "$workdir/err"
check "the command is shown" grep -q "qsub failed (exit code 162): qsub " "$workdir/err"
kept=$(grep -o "kept at .*" "$workdir/err" | cut -d' ' -f3)
check "the script is kept ($kept)" test -s "$kept"
rm "$FAKE_PBS_DIR/down"

PATH=/usr/bin:/bin "$ezpz" submit job.yaml >/dev/null 2>"$workdir/err"
check "a missing qsub is a loud error" grep -q "qsub failed (exit code 127)" "$workdir/err"
finish
