#!/usr/bin/env bash
# The generated zsh completion (build/share/zsh/site-functions/_ezpz): zsh -n parses it, and its _ezpz,
# run in zsh with the completion system's builtins stubbed to print what they are given, offers the
# right words (zsh itself then matches them against the word under the cursor). Usage: zsh_test.sh EZPZ SHARE_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"
shell=zsh
ezpz=$(realpath -m "$1")
script=$(realpath -m "$2")/zsh/site-functions/_ezpz
command -v zsh >/dev/null || cannot_run "zsh is not installed (Debian: zsh; scripts/install-deps.sh test)"
[[ -f $script ]] || { fail "no $script: the build makes it (target ezpz_man_and_completions)"; finish; }

check "zsh -n parses $script" zsh -n "$script"

mkdir -p "$workdir/bin"
ln -s "$ezpz" "$workdir/bin/ezpz"
export PATH=$workdir/bin:$PATH

# offered PREFIX WORD...: what _ezpz hands to compadd/_describe/_files for the command line WORD...
# (the cursor in the last word, which starts with PREFIX), one per line.
offered() {
  zsh -f -c '
    script=$1 PREFIX=$2
    shift 2
    compdef() { : }
    compadd() { if [[ $1 == -a ]]; then print -rl -- ${(P)2}; else shift; print -rl -- "$@"; fi }
    _describe() { print -rl -- ${${(P)4}%%:*} }
    _files() { print -r -- "<files>" }
    _command_names() { print -r -- "<commands>" }
    compset() { : }
    source $script || exit 1
    words=("$@")
    CURRENT=$#words
    _ezpz' zsh "$script" "$@"
}

expect "submit status render" "--help" sub ezpz sub
expect "--system --set -N --nodes" "submit" --sys ezpz render --sys
expect "list show detect" "init" "" ezpz systems ''
expect "--separator -s" "--compress" - ezpz hostlist expand -
expect "polaris aurora" "<files>" pol ezpz render --system pol
expect "polaris" "<files>" "--system=pol" ezpz render --system=pol
expect "polaris" "list" "" ezpz systems show ''
expect "<files>" "polaris" jo ezpz render --system polaris jo
expect "render resolve" "" re ezpz man re
expect "<commands>" "--system" py ezpz launch -- py
finish
