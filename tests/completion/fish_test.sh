#!/usr/bin/env bash
# The generated fish completion (build/share/fish/vendor_completions.d/ezpz.fish): fish --no-execute
# parses it, and fish's own `complete --do-complete` offers the right words with it. Usage:
# fish_test.sh EZPZ SHARE_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"
shell=fish
ezpz=$(realpath -m "$1")
script=$(realpath -m "$2")/fish/vendor_completions.d/ezpz.fish
command -v fish >/dev/null || cannot_run "fish is not installed (Debian: fish; scripts/install-deps.sh test)"
[[ -f $script ]] || { fail "no $script: the build makes it (target ezpz_man_and_completions)"; finish; }

check "fish --no-execute parses $script" fish --no-execute "$script"

mkdir -p "$workdir/bin" "$workdir/home" "$workdir/cwd"
ln -s "$ezpz" "$workdir/bin/ezpz"
touch "$workdir/cwd/job.yaml"
export PATH=$workdir/bin:$PATH HOME=$workdir/home XDG_CONFIG_HOME=$workdir/home/.config XDG_DATA_HOME=$workdir/home/.local/share
cd "$workdir/cwd" || exit 1

# offered LINE: the words fish offers for LINE (cursor at its end), one per line, without descriptions.
offered() {
  # shellcheck disable=SC2016  # for fish
  fish --no-config -c 'source $argv[1]; or exit 1; complete --do-complete $argv[2]' "$script" "$1" | cut -f1
}

expect "submit" "status" "ezpz sub"
expect "--system" "--set --json" "ezpz render --sys"
expect "list show detect" "init job.yaml" "ezpz systems "
expect "--separator" "--compress" "ezpz hostlist expand --sep"
expect "polaris" "aurora job.yaml" "ezpz render --system pol"
expect "--system=polaris" "" "ezpz render --system=pol"
expect "aurora polaris" "job.yaml list" "ezpz systems show "
expect "job.yaml" "polaris" "ezpz render --system polaris "
expect "render resolve" "submit" "ezpz man re"
finish
