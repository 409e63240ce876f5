#!/usr/bin/env bash
# One command from a fresh Debian 12 machine: install what is missing, build, run the whole test suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" test
"$root/scripts/build.sh" -DEZPZ_BUILD_TESTS=ON
cd "$root/build"
ctest --output-on-failure --parallel "$(nproc)" --timeout 600
