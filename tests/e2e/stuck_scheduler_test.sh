#!/usr/bin/env bash
# A stuck or broken scheduler command never hangs ezpz: stand-in sbatch/scontrol/scancel on PATH that
# hang, print forever or take bad settings; every case ends within its limit, exit 1, with a message
# naming the command and, for sbatch, whether the job may have been submitted.
#   stuck_scheduler_test.sh EZPZ   (ctest: e2e.stuck_scheduler_test)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
ezpz=$1
export PATH="$workdir/bin:$PATH" EZPZ_RECORDS_DIR="$workdir/records" EZPZ_SCHEDULER_TIMEOUT=1
unset EZPZ_SYSTEM
cat >"$workdir/job.yaml" <<'YAML'
system: slurm
name: stuck
run: [true]
YAML
# sbatch prints the id and then hangs: the id is named, and the job may have been submitted.
stand_in sbatch "echo 4242; echo \$\$ >'$workdir/sbatch.pid'; sleep 60"
start=$SECONDS
timeout -k 2 30 "$ezpz" submit "$workdir/job.yaml" >"$workdir/out" 2>"$workdir/err"
status=$?
check "a hanging sbatch: exit 1 (got $status)" test "$status" -eq 1
check "... within seconds (took $((SECONDS - start)) s)" test $((SECONDS - start)) -lt 10
check "... the message names the command" grep -q "sbatch did not finish in time: sbatch --parsable" "$workdir/err"
check "... and says the job may have been submitted as 4242" grep -q "it printed '4242': the job may have been submitted" "$workdir/err"
check "... nothing on stdout" test ! -s "$workdir/out"
sleep 0.5
check "... the hanging sbatch was killed" bash -c "! ps -o stat= -p \"\$(cat '$workdir/sbatch.pid')\" | grep -qv Z"

# scontrol prints forever: status ends at the limit, memory bounded.
stand_in scontrol "exec yes"
start=$SECONDS
timeout -k 2 30 "$ezpz" status 77 --system slurm >/dev/null 2>"$workdir/err"
status=$?
check "endless scontrol output: exit 1 (got $status)" test "$status" -eq 1
check "... within seconds (took $((SECONDS - start)) s)" test $((SECONDS - start)) -lt 10
check "... names scontrol" grep -q "scontrol did not finish in time" "$workdir/err"

# scancel that fails with megabytes on stderr: the message shows at most 4 KiB of it.
stand_in scancel "head -c 3000000 /dev/zero | tr '\\\\0' e >&2; exit 1"
"$ezpz" cancel 77 --system slurm 2>"$workdir/err"
check "a failing scancel: exit 1" test $? -eq 1
check "... its stderr is cut in the message ($(wc -c <"$workdir/err") bytes)" test "$(wc -c <"$workdir/err")" -lt 6000
check "... and says how much was left out" grep -q "more bytes\]" "$workdir/err"

# Scheduler output that is not UTF-8 still gives JSON (the byte becomes U+FFFD), not an abort.
stand_in scontrol "printf 'JobId=77 JobState=PENDING Reason=caf\\351\\n'"
"$ezpz" status 77 --system slurm --json >"$workdir/out" 2>"$workdir/err"
code=$?  # before the message: its $(…) would set $? first
check "status --json of Latin-1 scontrol output exits 0 ($(head -c 200 "$workdir/err"))" test "$code" -eq 0
check "... and prints JSON" /usr/bin/python3 -c "import json, sys; assert json.load(open(sys.argv[1]))[0]['state'] == 'queued'" "$workdir/out"

# Bad settings stop before anything is submitted.
stand_in sbatch "echo 1 >>'$workdir/sbatch.calls'; echo 99"
EZPZ_POLL_SECONDS=abc timeout 30 "$ezpz" submit "$workdir/job.yaml" --wait >/dev/null 2>"$workdir/err"
check "EZPZ_POLL_SECONDS=abc: exit 1" test $? -eq 1
check "... says what is wrong" grep -q "EZPZ_POLL_SECONDS='abc' is not a number of seconds" "$workdir/err"
EZPZ_SCHEDULER_TIMEOUT=soon timeout 30 "$ezpz" submit "$workdir/job.yaml" >/dev/null 2>"$workdir/err"
check "EZPZ_SCHEDULER_TIMEOUT=soon: exit 1" test $? -eq 1
check "... says what is wrong" grep -q "EZPZ_SCHEDULER_TIMEOUT='soon' is not a number of seconds" "$workdir/err"
check "... and nothing was submitted" test ! -e "$workdir/sbatch.calls"
finish
