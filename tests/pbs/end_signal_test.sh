#!/usr/bin/env bash
# shellcheck disable=SC2016 # awk programs in single quotes, on purpose
# The signal before the walltime on the real OpenPBS server, which has no such directive: a job with a
# 90 s walltime asks for USR1 40 s before its end (supervise.signal_before). Its 2 ranks (a Python
# program that traps it, started by the profile's PALS mpiexec line through ezpz exec) each write a
# marker when the signal arrives, within a few seconds of the server's start time (stime) + 50 s. With
# supervise.log_dir, each rank's output is in its own file.
#   end_signal_test.sh SERVER_DIR EZPZ   (ctest: pbs.end_signal)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
server=$1
enter_server "$server"
ezpz=$(user_copy "$2" ezpz)
user_copy "$here/pals/mpiexec" >/dev/null
rank=$(user_copy "$here/../e2e/end_signal_rank.py")
python=/usr/bin/python3
[[ -x $python ]] || cannot_run "Debian's python3 is not installed (scripts/install-deps.sh test)"
trap cleanup_user_jobs EXIT

markers="$userdir/markers"
cat >"$userdir/job.yaml" <<YAML
name: ezpz-end-signal
system: pbs
account: MyProject
nodes: 1
ranks_per_node: 2
walltime: 90s
setup: export PATH=$userdir/bin:\$PATH
run: [$python, $rank, $markers, "150"]
supervise: {signal_before: 40s, signal: USR1, log_dir: $userdir/ranks}
YAML
chown "$EZPZ_PBS_USER:" "$userdir/job.yaml"

job=$(as_user timeout -k 5 200 "$ezpz" submit job.yaml --wait 2>"$workdir/submit.err" </dev/null)
status=$?
check "the job ends with exit 0: both ranks exit on the signal (got $status; $(tail -n 5 "$workdir/submit.err"))" \
  test "$status" -eq 0
stime=$(as_user qstat -x -f -F json "$job" </dev/null 2>/dev/null |
  "$python" -c 'import json, sys; print(next(iter(json.load(sys.stdin)["Jobs"].values())).get("stime", ""))' 2>/dev/null)
start=$(date -d "$stime" +%s 2>/dev/null || echo 0)
check "the server knows when job $job started ('$stime')" test "$start" -gt 0
check "both ranks got USR1 ($(tr '\n' ';' <"$markers" 2>/dev/null))" \
  test "$(awk '$3 == "SIGUSR1" { print $1 }' "$markers" 2>/dev/null | sort | tr '\n' ' ')" = "0 1 "
check "... 40 s before the end: stime + 50 s, within 3 s (stime $start)" \
  awk -v due=$((start + 50)) '{ if ($2 < due - 1 || $2 > due + 3) bad = 1 } END { exit bad }' "$markers"
for r in 0 1; do
  check "supervise.log_dir: rank $r's output is in its own file ($(cat "$userdir/ranks/rank-$r.log" 2>&1))" \
    grep -qx "rank $r ready" "$userdir/ranks/rank-$r.log"
done
finish
