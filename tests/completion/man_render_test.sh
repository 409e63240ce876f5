#!/usr/bin/env bash
# The generated man pages (build/share/man/man1): one per command that `ezpz --help` lists, plus ezpz.1,
# and none else; each renders with man -l and groff with every warning on, and prints none.
# Usage: man_render_test.sh EZPZ SHARE_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
ezpz=$(realpath -m "$1")
man1=$(realpath -m "$2")/man/man1
command -v man >/dev/null || cannot_run "man is not installed (Debian: man-db; scripts/install-deps.sh test)"
command -v groff >/dev/null || cannot_run "groff is not installed (Debian: groff-base; scripts/install-deps.sh test)"
[[ -d $man1 ]] || { fail "no $man1: the build makes it (target ezpz_man_and_completions)"; finish; }

# The commands, as the binary's own help lists them (CLI11: "Subcommands:", one per line, indented).
commands=$("$ezpz" --help | awk '/^Subcommands:/ {on = 1; next} /^[^ ]/ {on = 0} on && /^  [^ ]/ {print $1}')
[[ -n $commands ]] || fail "'ezpz --help' lists no commands"
expected=$( (echo ezpz.1; for command in $commands; do echo "ezpz-$command.1"; done) | sort)
found=$(find "$man1" -mindepth 1 -printf "%f\n" | sort)
[[ $found == "$expected" ]] || fail "the pages in $man1 are not ezpz.1 and one per command of 'ezpz --help':
$(diff <(echo "$expected") <(echo "$found"))"

for page in "$man1"/*.1; do
  name=$(basename "$page" .1)
  warnings=$(groff -ww -man -Tutf8 -z "$page" 2>&1)
  [[ -z $warnings ]] || fail "groff -ww warns on $name.1: $warnings"
  # A terminal without UTF-8 (a C locale, as a batch job or a fresh login has): every character must
  # have an ASCII form there too.
  warnings=$(groff -ww -man -Tascii -z "$page" 2>&1)
  [[ -z $warnings ]] || fail "groff -ww -Tascii warns on $name.1: $warnings"
  text=$(LC_ALL=C MANWIDTH=80 MANPAGER=cat PAGER=cat man --warnings -l "$page" 2>"$workdir/stderr")
  status=$?
  ((status == 0)) || fail "man -l $name.1 exits $status"
  [[ -s $workdir/stderr ]] && fail "man -l $name.1 warns: $(cat "$workdir/stderr")"
  for heading in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS"; do
    grep -q "^$heading" <<<"${text//$'\b'?/}" || fail "$name.1 has no $heading section"
  done
done
# The page a user reads for a command says what it does: ezpz-render(1) has render's description.
description=$("$ezpz" --help | awk '$1 == "render" {$1 = ""; sub(/^ +/, ""); print; exit}')
grep -qF -- "$description" <(MANWIDTH=1000 man -l "$man1/ezpz-render.1" 2>/dev/null | sed 's/.\x08//g') ||
  fail "ezpz-render.1 does not say '$description'"
finish
