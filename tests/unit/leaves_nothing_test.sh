#!/usr/bin/env bash
# Runs every unit test once more with TMPDIR set to a new empty directory, and fails when anything is left
# in it afterwards: a test program must not litter the temporary directory of a shared machine.
#   leaves_nothing_test.sh UNIT_TEST_BINARY
set -uo pipefail
binary=${1:?usage: $0 UNIT_TEST_BINARY}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
TMPDIR=$tmp "$binary" --gtest_brief=1 >"$tmp.log" 2>&1
status=$?
if ((status != 0)); then
  cat "$tmp.log"
  rm -f "$tmp.log"
  echo "FAIL: the unit tests failed (exit $status)"
  exit 1
fi
rm -f "$tmp.log"
left=$(find "$tmp" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort)
if [[ -n $left ]]; then
  echo "FAIL: the unit tests left these in TMPDIR:"
  echo "$left"
  exit 1
fi
echo "ok: the unit tests left TMPDIR empty"
