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
check "submit exits 0 ($(cat "$workdir/err"))" test $? -eq 0
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
check "a job qdel'd while running is cancelled (exit 271 = 256 + SIGTERM)" test "$(state_of "$running")" = "cancelled 143"

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
