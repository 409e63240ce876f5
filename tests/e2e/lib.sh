# shellcheck shell=bash
# Shared helpers for the end-to-end tests (sourced).
set -uo pipefail

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if ! "$@"; then fail "$what"; fi
}
finish() {
  if ((failures > 0)); then
    echo "$failures check(s) failed" >&2
    exit 1
  fi
  echo "all checks passed"
}
# cannot_run WHY: the test needs something this machine lacks. Exits 77 (ctest: skipped) on a developer's
# machine, 1 (failed) under CI=true, where scripts/install-deps.sh test installs everything tests use.
cannot_run() {
  if [[ ${CI:-} == true ]]; then
    echo "FAIL: $* (CI=true: a test that cannot run fails, it never skips)" >&2
    exit 1
  fi
  echo "SKIP: $*" >&2
  exit 77
}
# alive PID: the process runs and is not a zombie (PID 1 reaps late in some containers).
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]]
}
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
# stand_in NAME SCRIPT: a command NAME in $workdir/bin (put it first on PATH) that runs the sh SCRIPT, to
# stand in for a scheduler command.
stand_in() {
  mkdir -p "$workdir/bin"
  printf '#!/bin/sh\n%s\n' "$2" >"$workdir/bin/$1"
  chmod +x "$workdir/bin/$1"
}
