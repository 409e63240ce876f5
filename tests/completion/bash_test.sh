#!/usr/bin/env bash
# The generated bash completion (build/share/bash-completion/completions/ezpz), driven as bash drives it:
# the script sourced in a new bash, COMP_WORDS/COMP_CWORD/COMP_LINE/COMP_POINT set, _ezpz called, the
# words of COMPREPLY checked. Usage: bash_test.sh EZPZ SHARE_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"
shell=bash
ezpz=$(realpath -m "$1")
script=$(realpath -m "$2")/bash-completion/completions/ezpz
[[ -f $script ]] || { fail "no $script: the build makes it (target ezpz_man_and_completions)"; finish; }

# ezpz on PATH, as a user types it, and a profile of the user's own on the search path: system names
# come from `ezpz systems list` when TAB is pressed.
mkdir -p "$workdir/bin" "$workdir/systems" "$workdir/cwd"
ln -s "$ezpz" "$workdir/bin/ezpz"
printf 'extends: polaris\ndescription: a profile of the user, not in the binary\n' >"$workdir/systems/mysite.yaml"
touch "$workdir/cwd/job.yaml" "$workdir/cwd/my job.yaml"
export PATH=$workdir/bin:$PATH EZPZ_SYSTEMS_PATH=$workdir/systems
cd "$workdir/cwd" || exit 1

# offered WORD...: the words bash offers for the command line WORD... (the last one is under the cursor),
# sorted, one per line.
offered() {
  # shellcheck disable=SC2016  # for the inner bash
  bash -c '
    script=$1
    shift
    source "$script" || exit 1
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE="${COMP_WORDS[*]}"
    COMP_POINT=${#COMP_LINE}
    _ezpz ezpz "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" || exit 1
    printf "%s\n" "${COMPREPLY[@]}" | sort' bash "$script" "$@"
}

command -v shellcheck >/dev/null || cannot_run "shellcheck is not installed (scripts/install-deps.sh test)"
check "shellcheck passes $script" shellcheck -s bash "$script"
# shellcheck disable=SC2016  # for the inner bash
check "the script registers _ezpz for ezpz" bash -c 'source "$1" && complete -p ezpz | grep -q -- "-F _ezpz ezpz$"' bash "$script"
expect "submit" "status systems schema" ezpz sub
expect "--system" "--set --status --json" ezpz render --sys
expect "--system --set" "" ezpz render --s
expect "list show detect" "init render" ezpz systems ''
expect "show" "list detect" ezpz systems s
expect "expand compress nodefile first" "" ezpz hostlist ''
expect "--separator" "--compress" ezpz hostlist expand --sep
expect "--compress" "--separator" ezpz hostlist nodefile --c
expect "-h --help" "--system" ezpz systems show -
# Values: system names from the binary, the user's own profile among them; a value is not a command word.
expect "polaris" "aurora" ezpz render --system pol
expect "mysite" "" ezpz render --system my
expect "polaris" "" ezpz render --system = pol
expect "aurora polaris mysite" "list" ezpz systems show ''
expect "job.yaml" "submit" ezpz render -N 2 jo
[[ $(offered ezpz render my) == "my job.yaml" ]] || fail "a file name with a blank is not offered whole: $(offered ezpz render my)"
expect "job.yaml" "" ezpz render --system systems jo
expect "render resolve" "submit" ezpz man re
expect "bash fish zsh" "" ezpz completion ''
# After '--', the program and its files: never ezpz's own options.
expect "bash" "--system" ezpz launch -n 2 -- bas
expect "job.yaml" "--system" ezpz launch -- python3 jo
finish
