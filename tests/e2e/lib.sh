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
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
