#!/usr/bin/env bash
# Hostile host lists and host files never crash, hang or eat memory: a short SLURM_JOB_NODELIST that
# names billions of hosts is an error naming the variable, a host file that is a FIFO, a directory,
# /dev/zero or huge is an error naming it, and `ezpz exec` with MASTER_ADDR set does not read it at all.
# Memory is capped (ulimit -v), so expanding first and checking later would fail here.
#   hostile_hosts_test.sh EZPZ   (ctest: e2e.hostile_hosts_test)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
ezpz=$1

mkfifo "$workdir/fifo"
mkdir "$workdir/dir"
printf 'n1\n' >"$workdir/large"
truncate -s 300M "$workdir/large"  # sparse: over the 256 MiB host-file cap, no disk used
hostile_files=("$workdir/fifo" "$workdir/dir" /dev/zero "$workdir/large")

# A sanitizer build reserves terabytes of address space and cannot start under the cap: there, only
# the time limit holds.
memory_cap=(ulimit -v 1048576)
if ! ("${memory_cap[@]}" && "$ezpz" hostlist first a) >/dev/null 2>&1; then memory_cap=(true); fi
# run WHAT COMMAND...: at most 1 GiB of memory and 20 s; stdout and stderr in $workdir/out, err; sets $status.
run() {
  local what=$1
  shift
  local start=$SECONDS
  ("${memory_cap[@]}" && exec timeout -k 2 20 "$@") >"$workdir/out" 2>"$workdir/err"
  status=$?
  check "$what: ends within seconds (took $((SECONDS - start)) s)" test $((SECONDS - start)) -lt 15
}
rank_env=(env -i PATH="$PATH" HOME="$HOME" PMI_RANK=4 PMI_SIZE=8 PMI_LOCAL_RANK=0 PMI_LOCAL_SIZE=4 PBS_JOBID=7.server)

# 1. Host lists that name billions of hosts, or gigabytes of names, in a few bytes.
long_names="$(printf 'x%.0s' {1..190})[0-9999999]"  # 213 bytes, 10,000,000 names of 197 bytes: 2 GB
for list in 'n[0-99999999999]' 'a[0-99999]b[0-99999]' 'n[0-999999],m[0-999999]' "$long_names"; do
  run "launch with SLURM_JOB_NODELIST=${list:0:30}" env -i PATH="$PATH" HOME="$HOME" SLURM_JOB_ID=1 \
    SLURM_JOB_NODELIST="$list" "$ezpz" launch --system slurm --dry-run -- true
  check "... exit 1 (got $status)" test "$status" -eq 1
  check "... the error names SLURM_JOB_NODELIST ($(head -c 300 "$workdir/err"))" \
    grep -q "^ezpz: SLURM_JOB_NODELIST .*error: host list expands to more than" "$workdir/err"
  run "hostlist expand ${list:0:30}" "$ezpz" hostlist expand "$list"
  check "... exit 1 (got $status)" test "$status" -eq 1
  check "... says it expands too far ($(head -c 300 "$workdir/err"))" grep -q "error: host list expands to more than" "$workdir/err"
  check "... prints nothing" test ! -s "$workdir/out"
done
# Several arguments share one bound: each is within it, together they are not.
run "hostlist expand of two lists of 600,000" "$ezpz" hostlist expand 'a[0-599999]' 'b[0-599999]'
check "... exit 1 (got $status)" test "$status" -eq 1
check "... the second list is the one named" grep -q "^  b\[0-599999\]" "$workdir/err"
run "hostlist expand of 1,000,000 names" "$ezpz" hostlist expand 'n[1-1000000]'
check "... exit 0 (got $status)" test "$status" -eq 0
check "... prints them all" test "$(wc -l <"$workdir/out")" -eq 1000000
# Endless stdin is bounded too.
run "yes | hostlist expand -" bash -c "yes | '$ezpz' hostlist expand -"
check "... exit 1 (got $status)" test "$status" -eq 1
check "... says stdin is too long ($(head -c 300 "$workdir/err"))" grep -q "stdin is longer than the 268435456 bytes ezpz reads" "$workdir/err"
# Absurd numbers: an error at the number, no overflow.
run "a 30-digit number" "$ezpz" hostlist expand 'n[1-123456789012345678901234567890]'
check "... exit 1 (got $status)" test "$status" -eq 1
check "... number too long" grep -q "number longer than 18 digits" "$workdir/err"

# 2. Host files that would block, never end or are too large.
for file in "${hostile_files[@]}"; do
  run "exec with MASTER_ADDR and PBS_NODEFILE=$file" "${rank_env[@]}" PBS_NODEFILE="$file" MASTER_ADDR=127.0.0.1 \
    "$ezpz" exec --system pbs -- true
  check "... exit 0: the host file is not read (got $status: $(head -c 300 "$workdir/err"))" test "$status" -eq 0
  run "exec --print without MASTER_ADDR, PBS_NODEFILE=$file" "${rank_env[@]}" PBS_NODEFILE="$file" \
    "$ezpz" exec --system pbs --print
  check "... exit 1 (got $status)" test "$status" -eq 1
  check "... names PBS_NODEFILE ($(head -c 300 "$workdir/err"))" grep -qF "cannot read the host file PBS_NODEFILE=$file" "$workdir/err"
  run "launch --dry-run with PBS_NODEFILE=$file" env -i PATH="$PATH" HOME="$HOME" PBS_JOBID=7.server PBS_NODEFILE="$file" \
    "$ezpz" launch --system pbs --dry-run -- true
  check "... exit 1 (got $status)" test "$status" -eq 1
  check "... names PBS_NODEFILE" grep -qF "cannot read the host file PBS_NODEFILE=$file" "$workdir/err"
  run "launch --hostfile $file" env -i PATH="$PATH" HOME="$HOME" "$ezpz" launch --system pbs --hostfile "$file" --dry-run -- true
  check "... exit 1 (got $status)" test "$status" -eq 1
  check "... names the file" grep -qF "cannot read the host file '$file'" "$workdir/err"
done
finish
