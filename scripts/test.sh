#!/usr/bin/env bash
# One command from a fresh Debian 12 machine: install what is missing, build, run the whole test suite.
# Two stages, each ending with ctest's summary: the main build (build/) with every test, then the
# sanitizer build with the fuzz targets (scripts/test-sanitized.sh). Fails if either fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" test
"$root/scripts/build.sh" -DEZPZ_BUILD_TESTS=ON
status=0
(cd "$root/build" && ctest --output-on-failure --parallel "$(nproc)" --timeout 600) || status=$?
echo "ezpz: sanitizer stage (AddressSanitizer, UBSan, fuzzing): scripts/test-sanitized.sh"
"$root/scripts/test-sanitized.sh" || status=$((status != 0 ? status : $?))
exit "$status"
