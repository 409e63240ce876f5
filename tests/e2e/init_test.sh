#!/usr/bin/env bash
# `ezpz init`: for every shipped system, the spec it writes fails validation exactly at the values it
# marks 'fill in' and validates once they are filled; it renders; detection picks the system; an
# existing file is not overwritten; a bad --system is located.
#   init_test.sh EZPZ
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
ezpz=$1
cd "$workdir" || exit 1
unset EZPZ_SYSTEM

mapfile -t systems < <("$ezpz" systems list | awk 'NR > 1 {print $1}')
check "systems list names the shipped systems (${systems[*]})" test "${#systems[@]}" -ge 9
for system in "${systems[@]}"; do
  "$ezpz" init --system "$system" "$system.yaml" 2>"$system.init.err"
  code=$?
  check "$system: init exits 0 ($(cat "$system.init.err"))" test "$code" -eq 0
  check "$system: the spec names the system" grep -qx "system: $system" "$system.yaml"
  check "$system: the spec points to ezpz systems show" grep -q "ezpz systems show $system" "$system.yaml"
  marked=$(grep -c "# fill in:" "$system.yaml")
  if ((marked > 0)); then
    "$ezpz" validate "$system.yaml" >/dev/null 2>"$system.before.err"
    code=$?
    check "$system: validate fails before the marked values are filled (exit $code)" test "$code" -eq 1
    errors=$(grep -c ": error:" "$system.before.err")
    check "$system: one error per marked value ($errors errors, $marked marked: $(cat "$system.before.err"))" \
      test "$errors" -eq "$marked"
    while IFS=: read -r line _; do
      check "$system: the error is located at marked line $line" grep -q "^ezpz: $system.yaml:$line:1: error" "$system.before.err"
    done < <(grep -n "# fill in:" "$system.yaml")
  fi
  sed -E 's/^([a-z_]+):  # fill in:.*/\1: MyProject/' "$system.yaml" >"$system.filled.yaml"
  "$ezpz" validate "$system.filled.yaml" >/dev/null 2>"$system.after.err"
  code=$?
  check "$system: validate succeeds once filled ($(grep error "$system.after.err"))" test "$code" -eq 0
  "$ezpz" render "$system.filled.yaml" >"$system.sh" 2>/dev/null
  check "$system: the filled spec renders" grep -q "^#!" "$system.sh"
done

# Detection chooses the system and says why; stdout with '-'.
EZPZ_NODE_NAME=x1000c0s0b0n0 PBS_JOBID=1.aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov "$ezpz" init - >detected.yaml 2>/dev/null
check "detection: the spec is for aurora" grep -qx "system: aurora" detected.yaml
check "detection: it says why" grep -q "system chosen by detection (" detected.yaml

# An existing file is kept.
echo "mine" >keep.yaml
"$ezpz" init --system polaris keep.yaml 2>keep.err
code=$?
check "an existing file: exit 1 (got $code)" test "$code" -eq 1
check "an existing file: it is not overwritten" test "$(cat keep.yaml)" = mine
check "an existing file: the hint names --force" grep -q -- "--force" keep.err
check "--force replaces it" "$ezpz" init --system polaris --force keep.yaml
check "--force wrote the spec" grep -qx "system: polaris" keep.yaml

# A system that does not exist: located at the flag, with a suggestion.
"$ezpz" init --system polaries - >/dev/null 2>bad.err
code=$?
check "unknown system: exit 1 (got $code)" test "$code" -eq 1
check "unknown system: located at --system with a suggestion ($(cat bad.err))" \
  bash -c "grep -q '^ezpz: --system polaries: error: unknown system' bad.err && grep -q \"did you mean 'polaris'\" bad.err"
finish
