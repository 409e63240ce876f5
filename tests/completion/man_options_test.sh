#!/usr/bin/env bash
# Every option and positional argument that a command's own --help shows (and every subcommand's, such as
# 'systems show') has an entry in that command's man page (build/share/man/man1). The lists come from the
# binary's help at test time, none is written here. Usage: man_options_test.sh EZPZ SHARE_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
ezpz=$(realpath -m "$1")
man1=$(realpath -m "$2")/man/man1
[[ -d $man1 ]] || { fail "no $man1: the build makes it (target ezpz_man_and_completions)"; finish; }

# help_section SECTION ARGS...: the first words of the entries of one section of `ezpz ARGS... --help`.
help_section() {
  local section=$1
  shift
  "$ezpz" "$@" --help | awk -v section="$section:" '$0 == section {on = 1; next} /^[^ ]/ {on = 0}
    on && /^  [^ ]/ {print $1}'
}
# entries PAGE HEADING: the tags of the entries (.TP) under one heading (.SH or .SS) of a page, as text.
entries() {
  awk -v heading="$2" '/^\.S[HS] / {on = ($0 == heading)} on && previous == ".TP" {print} {previous = $0}' "$1" |
    sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g'
}
# check_command PAGE HEADING ARGS...: the options and positionals of `ezpz ARGS... --help` under HEADING.
check_command() {
  local page=$1 heading=$2 tags option name
  shift 2
  tags=$(entries "$page" "$heading")
  local count=0
  for option in $(help_section Options "$@"); do
    for name in ${option//,/ }; do
      count=$((count + 1))
      grep -qE -- "(^|[ ,])$name([ ,]|\$)" <<<"$tags" ||
        fail "'ezpz $* --help' shows $name; $(basename "$page") has no entry for it under '$heading'"
    done
  done
  for name in $(help_section Positionals "$@"); do
    count=$((count + 1))
    grep -qE -- "^$name( |\$)" <<<"$tags" ||
      fail "'ezpz $* --help' shows the argument $name; $(basename "$page") has no entry for it under '$heading'"
  done
  ((count > 0)) || fail "'ezpz $* --help' shows no option at all (is its help still parsed right?)"
  checked=$((checked + count))
}

checked=0
check_command "$man1/ezpz.1" ".SH OPTIONS"
for command in $(help_section Subcommands); do
  page=$man1/ezpz-$command.1
  [[ -f $page ]] || { fail "no page for '$command', which 'ezpz --help' lists"; continue; }
  entries "$man1/ezpz.1" ".SH COMMANDS" | grep -qx "ezpz $command" || fail "ezpz.1 does not list '$command'"
  check_command "$page" ".SH OPTIONS" "$command"
  for sub in $(help_section Subcommands "$command"); do
    check_command "$page" ".SS \"ezpz $command $sub\"" "$command" "$sub"
  done
done
echo "$checked options and arguments found in their pages"
finish
