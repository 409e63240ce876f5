#!/usr/bin/env bash
# Files that are not what ezpz expects, where it reads, appends and writes: scripts written under a
# strict umask stay private; a batch script that is a FIFO, has DOS line ends or a NUL is refused, one
# of 2 MiB is not; a FIFO or a link where a job's record, decisions, output or a rank's log file should
# be is an error naming it, never a hang or a write into the link's target; `logs --follow` starts
# again when the output file is truncated.
#   hostile_files_test.sh EZPZ   (ctest: e2e.hostile_files_test)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
ezpz=$1
ezpz=$(cd "$(dirname "$ezpz")" && pwd)/$(basename "$ezpz")
export PATH="$workdir/bin:$PATH" EZPZ_RECORDS_DIR="$workdir/records" EZPZ_SCHEDULER_TIMEOUT=10
unset EZPZ_SYSTEM
cd "$workdir" || exit 1

# sbatch hands out 4242, 4243, … and notes each call; scontrol reports the state in $workdir/state.
echo RUNNING >state
stand_in sbatch "n=\$(cat '$workdir/next-id' 2>/dev/null || echo 4242); echo \$((n + 1)) >'$workdir/next-id'
echo \"\$@\" >>'$workdir/sbatch.calls'; echo \$n"
stand_in scontrol "echo \"JobId=\$4 JobState=\$(cat '$workdir/state') ExitCode=0:0\""
stand_in scancel 'exit 0'
: >sbatch.calls

# run SECONDS ARGS...: ezpz ARGS within SECONDS; stdout in out, stderr in err, the exit code in $status.
run() {
  local seconds=$1
  shift
  timeout -k 2 "$seconds" "$ezpz" "$@" >"$workdir/out" 2>"$workdir/err"
  status=$?
}
mode() { stat -c %a "$1"; }
# refused WHAT PATTERN: the last run ended at once with exit 1 and an error matching PATTERN.
refused() {
  local said
  said=$(head -c 300 err | tr -d '\0')
  check "$1: exit 1, not a hang (got $status: $said)" test "$status" -eq 1
  check "... the error says so ($said)" grep -q -- "$2" err
}

# 1. A spec's env: often holds tokens: what ezpz writes follows the umask (it was 0755 whatever it was).
cat >job.yaml <<'YAML'
system: slurm
name: tokens
env: {HF_TOKEN: secret}
run: [true]
YAML
(umask 077 && "$ezpz" render job.yaml -o private.sh)
check "render -o under umask 077: mode 700 (got $(mode private.sh))" test "$(mode private.sh)" = 700
(umask 022 && "$ezpz" render job.yaml -o shared.sh)
check "render -o under umask 022: mode 755 (got $(mode shared.sh))" test "$(mode shared.sh)" = 755
(umask 077 && "$ezpz" init --system slurm new.yaml 2>/dev/null)
check "init under umask 077: mode 600 (got $(mode new.yaml))" test "$(mode new.yaml)" = 600
(umask 077 && "$ezpz" submit job.yaml >/dev/null 2>err)
check "submit under umask 077 ($(head -c 300 err))" test -f records/4242/job.sh
check "... the record's script is mode 700 (got $(mode records/4242/job.sh))" test "$(mode records/4242/job.sh)" = 700
check "... its resolved job 600 (got $(mode records/4242/job.json))" test "$(mode records/4242/job.json)" = 600

# 2. Batch scripts the scheduler would refuse are refused before it is called; a FIFO hung.
calls_before=$(wc -l <sbatch.calls)
printf '#!/bin/bash\r\n#SBATCH --job-name=dos\r\necho hi\r\n' >dos.sh
run 20 submit dos.sh --system slurm
refused "a script with DOS line ends" "^ezpz: dos.sh:1:12: error: .*CR LF"
printf '#!/bin/bash\n#SBATCH --job-name=a\0b\necho hi\n' >nul.sh
run 20 submit nul.sh --system slurm
refused "a script with a NUL in a directive" "^ezpz: nul.sh:2:21: error: .*NUL"
mkfifo fifo.sh
run 10 submit fifo.sh --system slurm
refused "a script that is a FIFO" "fifo.sh.*: it is a FIFO, not a regular file"
check "sbatch was not called for any of them" test "$(wc -l <sbatch.calls)" -eq "$calls_before"
{
  printf '#!/bin/bash\n'
  yes '# a comment line that makes the script long' | head -c $((2 << 20))
  printf 'echo hi\n'
} >long.sh
run 20 submit long.sh --system slurm
check "a 2 MiB script is submitted, as sbatch takes up to 4 MB (got $status: $(head -c 300 err))" test "$status" -eq 0
printf '#!/bin/bash\necho hi\n' >huge.sh
truncate -s 101M huge.sh
run 20 submit huge.sh --system slurm
refused "a script over 100 MiB (OpenPBS's default cap)" "more than the 104857600"

# 3. A job's output file that is a FIFO or a device; --follow after the file was truncated.
printf '#!/bin/bash\n#SBATCH --output=%s/job.out\necho hi\n' "$workdir" >logged.sh
run 20 submit logged.sh --system slurm
id=$(cat out)
check "a script with an output directive is submitted (got $status, id '$id')" test "$status" -eq 0
mkfifo job.out
run 10 logs "$id"
refused "logs of an output file that is a FIFO" "job.out.*: it is a FIFO, not a regular file"
rm job.out && ln -s /dev/zero job.out
run 10 logs "$id"
refused "logs of an output file that is /dev/zero" "job.out.*: it is a device, not a regular file"
rm job.out && printf 'first line\nsecond line\n' >job.out
timeout -k 2 30 "$ezpz" logs --follow "$id" >follow.out 2>follow.err &
follower=$!
appears() {  # appears PATTERN FILE: within 10 s
  for _ in $(seq 100); do
    grep -q "$1" "$2" && return 0
    sleep 0.1
  done
  return 1
}
check "--follow prints the file" appears 'second line' follow.out
: >job.out # a requeue or a log rotation
printf 'after\n' >>job.out
check "... and what is written after it was truncated ($(tr '\n' '|' <follow.out))" appears '^after$' follow.out
echo COMPLETED >state
wait "$follower"
status=$?
check "... and ends with the job: exit 0 (got $status)" test "$status" -eq 0
check "... saying the file was truncated ($(head -c 300 follow.err))" grep -q "job.out: file truncated" follow.err
echo RUNNING >state

# 4. A record's files that are FIFOs: status, cancel and logs hung.
record=records/$id
mv "$record/record.json" record.json.saved
mkfifo "$record/record.json"
for command in status cancel logs; do
  run 10 "$command" "$id"
  refused "$command with a FIFO record.json" "record.json.*: it is a FIFO, not a regular file"
done
run 10 status
check "status of every job with a FIFO record.json: exit 0 (got $status: $(head -c 300 err))" test "$status" -eq 0
check "... warning about it" grep -q "warning: skipping .*record.json.*it is a FIFO, not a regular file" err
rm "$record/record.json" && mv record.json.saved "$record/record.json"
mkfifo "$record/decisions.jsonl"
run 10 status "$id"
refused "status with a FIFO decisions.jsonl" "decisions.jsonl.*: it is a FIFO, not a regular file"
rm "$record/decisions.jsonl" && ln -s /etc/hostname "$record/decisions.jsonl"
run 10 status "$id"
refused "status with decisions.jsonl a link" "decisions.jsonl.*: it is a symbolic link, not a regular file"

# 5. --log-dir: a link at rank-0.log sent the rank's output into its target; a FIFO there hung the rank.
mkdir links fifos
echo precious >victim
ln -s "$workdir/victim" links/rank-0.log
run 30 launch --system local -n 1 --log-dir links -- echo leaked
refused "--log-dir with rank-0.log a link" "rank-0.log.*: it is a symbolic link, not a regular file"
check "... and the link's target is untouched ($(cat victim))" test "$(cat victim)" = precious
mkfifo fifos/rank-0.log
run 30 launch --system local -n 1 --log-dir fifos -- echo hi
refused "--log-dir with rank-0.log a FIFO" "rank-0.log.*: it is a FIFO, not a regular file"

# 6. doctor's probe of node-local storage (a shared /tmp) was ezpz-doctor-<pid>: a link planted at that
# name for each of the next pids had the probe truncate the link's target and write into it.
mkdir systems node-local
printf 'extends: local\nnode: {node_local: %s/node-local}\n' "$workdir" >systems/planted.yaml
echo precious >doctor-victim
/usr/bin/python3 -c 'import os, sys
last = int(open("/proc/loadavg").read().split()[4])
for pid in range(last + 1, last + 5001):
    os.symlink(sys.argv[1], "%s/ezpz-doctor-%d" % (sys.argv[2], pid))' "$workdir/doctor-victim" "$workdir/node-local"
EZPZ_SYSTEMS_PATH=$workdir/systems run 60 doctor --system planted
check "doctor with links planted at ezpz-doctor-<pid> runs (got $status: $(head -c 300 err))" test "$status" -ne 124
check "... and leaves the links' target alone ($(cat doctor-victim))" test "$(cat doctor-victim)" = precious
check "... and finds the storage writable ($(grep -o 'node-local[^"]*is writable' out | head -1))" \
  grep -q 'node-local.*is writable' out
finish
