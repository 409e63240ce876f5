#!/usr/bin/env bash
# One command from a fresh Debian 12 machine: install what is missing, build, run the whole test suite.
# Two stages, each ending with ctest's summary: the main build (build/) with every test, then the
# sanitizer build with the fuzz targets (scripts/test-sanitized.sh). Fails if either fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" test
"$root/scripts/build.sh" -DEZPZ_BUILD_TESTS=ON
# Each stage's output is kept (pipefail gives the stage's status through tee): when one fails, the
# tests that did not pass are printed again at the very end, where CI's shortened log still shows them.
status=0
logs=("$root/build/ctest-main.log" "$root/build/ctest-sanitized.log")
"$root/scripts/run-ctest.sh" "$root/build" "${logs[0]}" 600 || status=$?
echo "ezpz: sanitizer stage (AddressSanitizer, UBSan, fuzzing): scripts/test-sanitized.sh"
"$root/scripts/test-sanitized.sh" 2>&1 | tee "${logs[1]}" || status=$((status != 0 ? status : $?))
# Tests that failed in a parallel run and passed alone (scripts/run-ctest.sh): named last, to be fixed.
grep -h '^ezpz: FLAKY' "${logs[@]}" || true
if ((status != 0)); then
  echo "ezpz: the tests that did not pass, again:"
  "$root/scripts/failed-tests.sh" "${logs[@]}"
  grep -h -E 'tests passed, ' "${logs[@]}" || true
fi
exit "$status"
