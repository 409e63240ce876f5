#!/usr/bin/env bash
# Runs `ezpz validate CASE.yaml [ARGS]` from the fixture's directory and compares stderr with CASE.err
# byte for byte, and the exit code with 1. A first line "# args: …" in the fixture adds arguments.
# EZPZ_UPDATE_GOLDEN=1 rewrites CASE.err instead of comparing.
set -uo pipefail
ezpz=$1
fixture=$2
dir=$(dirname "$fixture")
base=$(basename "$fixture" .yaml)
args=()
first=$(head -n 1 "$fixture")
if [[ $first == "# args: "* ]]; then
  read -r -a args <<<"${first#\# args: }"
fi
cd "$dir" || exit 2
actual=$(env -u EZPZ_SYSTEM "$ezpz" validate "$base.yaml" "${args[@]}" 2>&1 >/dev/null)
status=$?
if [[ ${EZPZ_UPDATE_GOLDEN:-} == 1 ]]; then
  printf '%s\n' "$actual" >"$base.err"
  echo "updated $base.err"
  exit 0
fi
expected=$(cat "$base.err")
if [[ $status -ne 1 ]]; then
  echo "expected exit code 1, got $status"
  echo "$actual"
  exit 1
fi
if [[ "$actual" != "$expected" ]]; then
  echo "stderr differs from $base.err:"
  diff <(printf '%s\n' "$expected") <(printf '%s\n' "$actual")
  exit 1
fi
