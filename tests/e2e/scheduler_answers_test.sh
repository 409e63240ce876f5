#!/usr/bin/env bash
# Odd scheduler answers and unusable record directories end in a state or a clear error, never an abort:
# stand-in qstat/scontrol/sacct on PATH print fields of unexpected JSON types, truncated JSON, garbage
# lines; EZPZ_RECORDS_DIR points where no directory can be made.
#   scheduler_answers_test.sh EZPZ   (ctest: e2e.scheduler_answers_test)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
ezpz=$1
export PATH="$workdir/bin:$PATH" EZPZ_RECORDS_DIR="$workdir/records" EZPZ_SCHEDULER_TIMEOUT=10
unset EZPZ_SYSTEM
# qstat and scontrol print $workdir/NAME.out and exit 0.
stand_in qstat "cat '$workdir/qstat.out'"
stand_in scontrol "cat '$workdir/scontrol.out'"
# state_of SYSTEM: sets $state to what `ezpz status 42 --json` reports, $status to its exit code (stderr
# in $workdir/err).
state_of() {
  timeout -k 2 20 "$ezpz" status 42 --system "$1" --json >"$workdir/out" 2>"$workdir/err"
  status=$?
  state=$(/usr/bin/python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[0]['state'])" "$workdir/out" 2>/dev/null)
}
job() { printf '{"Jobs":{"42.server":%s}}' "$1" >"$workdir/qstat.out"; }

for fields in '{"job_state":7}' '{"job_state":null}' '{"job_state":["F"]}' '{"job_state":"F","Exit_status":"0"}' \
  '{"job_state":"F","Exit_status":1e300}' '{"job_state":"F","Exit_status":18446744073709551615}' \
  '{"job_state":"F","Exit_status":0,"substate":{"a":[]}}' '{"job_state":"F","comment":false}' '42' '[]'; do
  job "$fields"
  state_of pbs
  check "qstat job $fields: exit 0 (got $status: $(head -c 300 "$workdir/err"))" test "$status" -eq 0
  check "... state unknown (got '$state')" test "$state" = unknown
done
python3 -c "print('{\"Jobs\":{\"42.server\":{\"job_state\":\"R\",\"comment\":' + '[' * 1000000 + ']' * 1000000 + '}}}')" \
  >"$workdir/qstat.out"
state_of pbs
check "qstat nested a million deep: exit 0 (got $status: $(head -c 300 "$workdir/err"))" test "$status" -eq 0
check "... state unknown (got '$state')" test "$state" = unknown
for out in '{"Jobs":{"42.server":{"job_state":"F","Exit_st' '{"Jobs":[1]}' 'garbage'; do
  printf '%s' "$out" >"$workdir/qstat.out"
  state_of pbs
  check "qstat printed '$out': exit 1 (got $status)" test "$status" -eq 1
  check "... a one-line error that names qstat ($(head -c 300 "$workdir/err"))" \
    grep -q "^ezpz: error: qstat exited 0 but named no job" "$workdir/err"
done

printf 'JobId=42 JobState=COMPLETED ExitCode=0:2147483647 = == x= \001\n\nno equals here\n' >"$workdir/scontrol.out"
state_of slurm
check "odd scontrol lines: exit 0 (got $status: $(head -c 300 "$workdir/err"))" test "$status" -eq 0
check "... completed (got '$state')" test "$state" = completed
check "... without an overflowed exit code" /usr/bin/python3 -c \
  "import json, sys; assert json.load(open(sys.argv[1]))[0]['exit_code'] is None" "$workdir/out"
{ printf 'JobId=42 JobState=RUNNING Reason='; head -c 5000000 /dev/zero | tr '\0' r; printf '\n'; } >"$workdir/scontrol.out"
state_of slurm
check "a 5 MB scontrol line: exit 0 (got $status)" test "$status" -eq 0
check "... running (got '$state')" test "$state" = running
printf 'slurm_load_jobs error: Invalid job id specified\n' >"$workdir/scontrol.err"
stand_in scontrol "cat '$workdir/scontrol.err' >&2; exit 1"
stand_in sacct 'printf "COMPLETED|0:0 JobState=FAILED\n"'
state_of slurm
check "a sacct line with a smuggled field: exit 0 (got $status)" test "$status" -eq 0
check "... completed: the field is not read as the state (got '$state')" test "$state" = completed

# Job ids after "--" reach the command (`status -- 42` once listed every job), and an id that would be an
# option of the scheduler's command is refused before anything runs (`cancel -- -5` ran `scancel -5`).
job '{"job_state":"R"}'
timeout 20 "$ezpz" status --system pbs --json -- 42 >"$workdir/out" 2>"$workdir/err"
check "status -- 42: exit 0 ($(head -c 300 "$workdir/err"))" test $? -eq 0
check "... about job 42" /usr/bin/python3 -c \
  "import json, sys; assert [j['job_id'] for j in json.load(open(sys.argv[1]))] == ['42']" "$workdir/out"
stand_in scancel "echo ran >'$workdir/scancel.ran'"
for id in -5 --user=bob ..; do
  timeout 20 "$ezpz" cancel --system slurm -- "$id" >"$workdir/out" 2>"$workdir/err"
  status=$?
  check "cancel -- $id: exit 1 (got $status)" test "$status" -eq 1
  check "... is not a job id ($(head -c 300 "$workdir/err"))" grep -qF "ezpz: error: '$id' is not a job id" "$workdir/err"
  check "... and scancel never ran" test ! -e "$workdir/scancel.ran"
done
# A scheduler's answer about another job is not this job's: unknown, never its state.
job '{"job_state":"F","Exit_status":0}'
sed -i 's/"42.server"/"56.server"/' "$workdir/qstat.out"
timeout 20 "$ezpz" status --system pbs --json 55 >"$workdir/out" 2>"$workdir/err"
check "status 55 answered about 56: unknown ($(head -c 300 "$workdir/out"))" /usr/bin/python3 -c \
  "import json, sys; j = json.load(open(sys.argv[1]))[0]; assert j['state'] == 'unknown' and 'another job' in j['detail']" \
  "$workdir/out"

# Records directories that cannot be made: one clear error naming the directory, exit 1.
cat >"$workdir/job.yaml" <<'YAML'
system: slurm
name: records
run: [true]
YAML
stand_in sbatch 'echo 4242'
: >"$workdir/a-file"
for dir in /proc/ezpz-records "$workdir/a-file/records"; do
  EZPZ_RECORDS_DIR=$dir timeout 20 "$ezpz" submit "$workdir/job.yaml" >"$workdir/out" 2>"$workdir/err"
  status=$?
  check "submit with records in $dir: exit 1 (got $status)" test "$status" -eq 1
  check "... the error names the directory ($(head -c 300 "$workdir/err"))" \
    grep -qF "ezpz: error: cannot keep the job's record in $dir: " "$workdir/err"
  check "... says nothing was submitted" grep -q "nothing was submitted" "$workdir/err"
  check "... nothing on stdout" test ! -s "$workdir/out"
  EZPZ_RECORDS_DIR=$dir timeout 20 "$ezpz" status >"$workdir/out" 2>"$workdir/err"
  status=$?
  check "status with records in $dir: exit 1 (got $status)" test "$status" -eq 1
  check "... the error names the directory ($(head -c 300 "$workdir/err"))" \
    grep -qF "ezpz: error: no job ids given and no job records in $dir" "$workdir/err"
  check "... one line and a hint" test "$(wc -l <"$workdir/err")" -le 2
done
finish
