# shellcheck shell=bash
# Shared by the completion tests (sourced after tests/e2e/lib.sh): each test defines `offered ARGS…`,
# which prints the words its shell offers for a command line, one per line.

# expect "WORDS" "NOT WORDS" ARGS…: `offered ARGS…` prints each of WORDS and none of NOT WORDS, and
# the shell prints nothing on stderr. $shell names the shell in messages.
# shellcheck disable=SC2154  # workdir is tests/e2e/lib.sh's, shell the test's
expect() {
  local wanted=$1 unwanted=$2 got word
  shift 2
  got=$(offered "$@" 2>"$workdir/stderr")
  [[ -s $workdir/stderr ]] && fail "$shell '$*': printed on stderr: $(<"$workdir/stderr")"
  for word in $wanted; do
    grep -qxF -- "$word" <<<"$got" || fail "$shell '$*<TAB>' does not offer '$word'; offered: ${got//$'\n'/ }"
  done
  for word in $unwanted; do
    grep -qxF -- "$word" <<<"$got" && fail "$shell '$*<TAB>' offers '$word'; offered: ${got//$'\n'/ }"
  done
}
