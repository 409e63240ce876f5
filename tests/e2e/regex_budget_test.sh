#!/usr/bin/env bash
# Regular expressions on input someone else controls end, whatever the pattern and the input: known
# catastrophic patterns (exponential backtracking in std::regex) on long lines, and long values that
# libstdc++'s std::regex recursed on until the stack ran out. Each command runs under `timeout`.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1

# ends_within SECONDS WHAT COMMAND...: COMMAND ends within SECONDS (SIGKILL then) and is not killed by
# a signal: an exit code below 128 or 143 (ezpz's own after SIGTERM); the code is in $code, its stderr
# in $workdir/err.
code=0
ends_within() {
  local seconds=$1 what=$2
  shift 2
  local start=$SECONDS
  timeout -s KILL "$seconds" "$@" >"$workdir/out" 2>"$workdir/err"
  code=$?
  check "$what ends within ${seconds}s (exit $code after $((SECONDS - start))s; $(head -c 300 "$workdir/err"))" \
    test "$code" -lt 128 -o "$code" -eq 143
}

# 1. A launch under spare-node failover: the fake mpiexec (every attempt and every probe) prints a
# line of 4,000 'a's and a 'b', or of 'x's, and fails. --progress '^(a|a)*$' and a profile's
# failover pattern '(x+x+)+y' are tried on each line; std::regex backtracked for ever and the stuck
# thread was the one that handles SIGTERM and --timeout.
long_a=$(printf 'a%.0s' {1..4000})b
long_x=$(printf 'x%.0s' {1..4000})
stand_in mpiexec "echo $long_a; echo $long_x; exit 1"
printf 'h1\nh2\n' >"$workdir/hosts"
mkdir -p "$workdir/profiles"
cat >"$workdir/profiles/hostile.yaml" <<'YAML'
extends: pbs
description: a profile with a catastrophic failover pattern
failover:
  patterns:
    - name: nested
      regex: '(x+x+)+y'
      host_group: 1
YAML
ends_within 20 "launch --progress '^(a|a)*\$'" env PATH="$workdir/bin:$PATH" \
  "$ezpz" launch --system pbs --hostfile "$workdir/hosts" --spare-nodes 1 --retries 1 --progress '^(a|a)*$' -- true
check "... and says the attempt failed: $(head -c 300 "$workdir/err")" grep -q 'failover' "$workdir/err"
ends_within 20 "launch with failover pattern '(x+x+)+y'" env PATH="$workdir/bin:$PATH" \
  EZPZ_SYSTEMS_PATH="$workdir/profiles" \
  "$ezpz" launch --system hostile --hostfile "$workdir/hosts" --spare-nodes 1 --retries 1 -- true

# SIGTERM and the idle-output watchdog (--timeout) still end a launch whose rank printed such a line
# and then went quiet.
stand_in mpiexec "echo $long_a; exec sleep 60"
ends_within 20 "launch --progress '^(a|a)*\$' sent SIGTERM after 3s" env PATH="$workdir/bin:$PATH" \
  timeout --preserve-status -s TERM 3 "$ezpz" launch --system pbs --hostfile "$workdir/hosts" --spare-nodes 1 \
  --probe-timeout 0 --progress '^(a|a)*$' -- true
check "... exits 143 after SIGTERM ($code)" test "$code" -eq 143
ends_within 20 "launch --progress '^(a|a)*\$' --timeout 2s" env PATH="$workdir/bin:$PATH" \
  "$ezpz" launch --system pbs --hostfile "$workdir/hosts" --spare-nodes 1 --probe-timeout 0 --retries 0 \
  --timeout 2s --progress '^(a|a)*$' -- true
check "... exits 124 for --timeout ($code)" test "$code" -eq 124

# 2. A detect pattern with a hostile value.
cat >"$workdir/profiles/hostile.yaml" <<'YAML'
extends: pbs
description: a profile with a catastrophic detect pattern
detect:
  env:
    EZPZ_TEST_HOSTILE: '^(x+x+)+y'
YAML
ends_within 20 "systems detect with detect pattern '^(x+x+)+y'" env EZPZ_SYSTEMS_PATH="$workdir/profiles" \
  EZPZ_TEST_HOSTILE="$long_x" "$ezpz" systems detect

# 3. Detection on a long PBS_O_HOST (Sophia's pattern '^sophia-login-[0-9]+'): 30,000 digits crashed
# exec --print, systems detect and render; a 120 KB value was printed whole.
host=sophia-login-$(printf '1%.0s' {1..30000})
printf 'name: t\nrun: [x]\n' >"$workdir/job.yaml"
for command in "systems detect" "exec --print" "render $workdir/job.yaml"; do
  # shellcheck disable=SC2086  # the command's words
  ends_within 20 "$command with a 30,000-digit PBS_O_HOST" env PBS_O_HOST="$host" PBS_JOBID=1.server "$ezpz" $command
done
env PBS_O_HOST="$host" PBS_JOBID=1.server "$ezpz" systems detect >"$workdir/out" 2>"$workdir/err"
check "detect finds sophia: $(head -c 100 "$workdir/out")" grep -qx sophia "$workdir/out"
check "detect shows the value cut, with its length ($(wc -c <"$workdir/err") bytes)" \
  test "$(wc -c <"$workdir/err")" -lt 1000
check "... and its length" grep -q '(30013 bytes)' "$workdir/err"
finish
