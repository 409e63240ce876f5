#!/usr/bin/env bash
# The test-only third scheduler (docs/adding-a-scheduler.md): Flux, added as data alone, in
# systems/schedulers/flux.yaml and systems/fluxsys.yaml on the search path, driven through the fake
# `flux` of this folder. A spec renders (shellcheck-clean), submits, shows each state and exit code,
# is cancelled, and a job Flux does not know is unknown; ezpz doctor pings it.
#   flux_test.sh EZPZ   (ctest: flux.third_scheduler)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
ezpz=$1
# A private copy of the profiles: ezpz skips profile directories another user could write
# (docs/security.md), and a checkout may be group-writable.
cp -R "$here/systems" "$workdir/systems"
chmod -R go-w "$workdir/systems"
export PATH="$here:$PATH" FAKE_FLUX_DIR="$workdir/flux" EZPZ_SYSTEMS_PATH="$workdir/systems"
export EZPZ_RECORDS_DIR="$workdir/records" EZPZ_POLL_SECONDS=0.1
unset EZPZ_SYSTEM
mkdir -p "$FAKE_FLUX_DIR"
cd "$workdir" || exit 1
state_of() {
  "$ezpz" status "$1" --json 2>/dev/null | /usr/bin/python3 -c "import json, sys; s = json.load(sys.stdin)[0]; print(s['state'], s['exit_code'])"
}
cat >job.yaml <<'YAML'
name: flux-e2e
system: fluxsys
nodes: 2
walltime: 30m
run: [python3, train.py]
YAML

check "ezpz systems list shows the Flux system" bash -c "'$ezpz' systems list | grep -q '^fluxsys  *flux '"
"$ezpz" render job.yaml >job.sh 2>err
code=$?
check "render exits 0 ($(cat err))" test "$code" -eq 0
check "the directives are Flux's, in its prefix" \
  test "$(grep '^# flux:' job.sh)" = "$(printf '# flux: --job-name=flux-e2e\n# flux: -N 2\n# flux: -t 1800s')"
check "the rendered script passes shellcheck" shellcheck -s bash job.sh

job=$("$ezpz" submit job.yaml --hold 2>err)
code=$?
check "submit exits 0 ($(cat err))" test "$code" -eq 0
check "flux batch's job id is read (got '$job')" grep -qx 'f[0-9]*Abc' <<<"$job"
check "--hold became urgency 0" grep -qx -- '--urgency=0' "$FAKE_FLUX_DIR/jobs/$job/args"
check "flux batch got the rendered script" cmp -s "$workdir/records/$job/job.sh" "$FAKE_FLUX_DIR/jobs/$job/script"
check "held" test "$(state_of "$job")" = "held None"
echo SCHED >"$FAKE_FLUX_DIR/jobs/$job/status"
check "queued" test "$(state_of "$job")" = "queued None"
echo RUN >"$FAKE_FLUX_DIR/jobs/$job/status"
check "running" test "$(state_of "$job")" = "running None"
echo COMPLETED >"$FAKE_FLUX_DIR/jobs/$job/status"
echo 0 >"$FAKE_FLUX_DIR/jobs/$job/returncode"
check "completed with exit code 0" test "$(state_of "$job")" = "completed 0"
"$ezpz" submit job.yaml --wait >id 2>err &
waiter=$!
for _ in $(seq 100); do [[ -s id ]] && break; sleep 0.1; done
failed=$(head -1 id)
echo 3 >"$FAKE_FLUX_DIR/jobs/$failed/returncode"
echo FAILED >"$FAKE_FLUX_DIR/jobs/$failed/status"
wait "$waiter"
code=$?
check "submit --wait returns the failed job's exit code 3 (got $code; $(cat err))" test "$code" -eq 3
check "a failed job shows its exit code" test "$(state_of "$failed")" = "failed 3"

running=$("$ezpz" submit job.yaml 2>/dev/null)
echo RUN >"$FAKE_FLUX_DIR/jobs/$running/status"
check "cancel exits 0" "$ezpz" cancel "$running"
check "flux cancel reached the job" test "$(cat "$FAKE_FLUX_DIR/jobs/$running/status")" = CANCELED
check "cancelled" test "$(state_of "$running")" = "cancelled None"
"$ezpz" status f999Abc --system fluxsys --json >out 2>err
code=$?
check "status of a job Flux does not know exits 0 ($(cat err))" test "$code" -eq 0
check "a job Flux does not know is unknown" grep -q '"state": "unknown"' out

"$ezpz" doctor --system fluxsys >out 2>&1
check "doctor asks Flux (flux uptime)" grep -q 'ok    scheduler: flux uptime answered' out
touch "$FAKE_FLUX_DIR/down"
"$ezpz" doctor --system fluxsys >out 2>&1
check "doctor says when Flux does not answer" grep -q 'error scheduler: .*Unable to connect to Flux' out
finish
