#!/usr/bin/env bash
# Runs ctest in BUILD_DIR with ARGS, output also to LOG. Tests that fail in that parallel run are run
# once more, alone and one at a time: a test that then passes was disturbed by its neighbours on a
# 2-core machine (a timing check, a port), and the run goes on, but it is named in a line that starts
# with "ezpz: FLAKY" here and at the end of scripts/test.sh, so that it is seen and fixed. A test that
# fails again fails the run with the second run's exit status. A failed fuzz target is never run again:
# another run need not find the same input, and a finding is never a neighbour's fault.
#   run-ctest.sh BUILD_DIR LOG TIMEOUT [CTEST ARGS...]
set -uo pipefail
build_dir=$1
log=$2
timeout=$3
shift 3
cd "$build_dir" || exit 1
ctest --output-on-failure --parallel "$(nproc)" --timeout "$timeout" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
((status == 0)) && exit 0
failed=$(cut -d: -f2- Testing/Temporary/LastTestsFailed.log 2>/dev/null | tr '\n' ' ')
if [[ -z $failed || " $failed" == *" fuzz."* ]]; then
  exit "$status"  # no test list (ctest itself failed), or a fuzz finding
fi
echo "ezpz: running the tests that failed once more, one at a time: $failed" | tee -a "$log"
ctest --rerun-failed --output-on-failure --timeout "$timeout" 2>&1 | tee -a "$log"
again=${PIPESTATUS[0]}
if ((again == 0)); then
  echo "ezpz: FLAKY: failed in the parallel run, passed alone: $failed" | tee -a "$log"
fi
exit "$again"
