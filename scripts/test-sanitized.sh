#!/usr/bin/env bash
# The sanitizer stage of the test suite (scripts/test.sh runs it after the main one; docs/fuzzing.md).
# Builds ezpz with clang, AddressSanitizer and UndefinedBehaviorSanitizer, plus the libFuzzer targets, in
# build-sanitize/ (or $EZPZ_SANITIZE_BUILD_DIR), then runs there the unit, error-text, fake-PBS and
# end-to-end tests and each fuzz target for $EZPZ_FUZZ_SECONDS seconds (default 30). The tests that need
# the Slurm and PBS daemons, LibTorch (e2e.launch_test runs ezpz-torch-test), the dependency audit or
# the installed package (embed: a program linking a sanitized libezpz.so would need the sanitizer
# runtime too) run only in the main stage, as does unit.leaves_nothing (the unit tests once more, for
# what they leave in TMPDIR, which does not depend on the build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${EZPZ_SANITIZE_BUILD_DIR:-$root/build-sanitize}
CC=clang CXX=clang++ EZPZ_BUILD_DIR=$build_dir "$root/scripts/build.sh" \
  -DEZPZ_FUZZ=ON -DEZPZ_BUILD_TORCH=OFF -DEZPZ_BUILD_TESTS=ON -DEZPZ_FUZZ_SECONDS="${EZPZ_FUZZ_SECONDS:-30}"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
"$root/scripts/run-ctest.sh" "$build_dir" "$build_dir/ctest.log" 900 \
  -E '^((slurm|pbs|python|torch|deps|shellcheck|embed)\..*|e2e\.launch_test|unit\.leaves_nothing)$'
