#!/usr/bin/env bash
# Jobs without a spec file: -N, -t, -q, -A, --set and the program after '--' make the job for render,
# submit --dry-run, validate and resolve, with the same checks as a spec and errors located at the flag.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1
lint="$here/lint_script.sh"

job=(--system polaris -N 2 -t 1h -q debug -A MyProject --set env.HF_HOME=/tmp/hf -- python3 train.py --lr 3e-4)

"$ezpz" render "${job[@]}" >"$workdir/render.sh" 2>"$workdir/err"
code=$?
check "render exits 0 ($code: $(cat "$workdir/err"))" test "$code" -eq 0
check "the script passes bash -n and shellcheck" "$lint" "$workdir/render.sh"
for line in '#PBS -N ezpz-job' '#PBS -A MyProject' '#PBS -q debug' '#PBS -l select=2:system=polaris' \
  '#PBS -l walltime=01:00:00' "export HF_HOME=/tmp/hf"; do
  check "the script has '$line'" grep -qxF "$line" "$workdir/render.sh"
done
check "the program after -- is the run line" grep -qE '^ +python3 train\.py --lr 3e-4$' "$workdir/render.sh"

"$ezpz" submit --dry-run "${job[@]}" >"$workdir/dry.sh" 2>"$workdir/err"
code=$?
check "submit --dry-run exits 0 ($code: $(cat "$workdir/err"))" test "$code" -eq 0
check "submit --dry-run prints the script render prints" cmp -s "$workdir/render.sh" "$workdir/dry.sh"

"$ezpz" validate "${job[@]}" >"$workdir/out" 2>&1
code=$?
check "validate exits 0 ($code: $(cat "$workdir/out"))" test "$code" -eq 0
check "validate sums the job up" grep -q 'polaris, 2 node(s) x 4 rank(s), 01:00:00, queue debug' "$workdir/out"

resolved() {
  "$ezpz" resolve --json "${job[@]}" 2>/dev/null |
    /usr/bin/python3 -c "import json, sys; r = json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"
}
check "resolve: name is ezpz-job" test "$(resolved 'r["name"]')" = ezpz-job
check "resolve: nodes from -N" test "$(resolved 'r["nodes"]')" = 2
check "resolve: account from -A" test "$(resolved 'r["account"]')" = MyProject
check "resolve: run is the program after --" test "$(resolved '" ".join(r["run"])')" = "python3 train.py --lr 3e-4"

# The name's origin: a built-in default, from the spec file's name when there is one.
"$ezpz" resolve --explain "${job[@]}" >"$workdir/explain" 2>&1
check "explain: the name is a default ($(grep '^name ' "$workdir/explain"))" grep -qE '^name +ezpz-job +# default$' "$workdir/explain"
printf 'account: MyProject\nrun: [python3, train.py]\n' >"$workdir/my-job.yaml"
"$ezpz" resolve --explain --system polaris "$workdir/my-job.yaml" >"$workdir/explain" 2>&1
check "explain: a spec file names the job ($(grep '^name ' "$workdir/explain"))" \
  grep -qE "^name +my-job +# default \(the spec file's name\)$" "$workdir/explain"

# Errors point at the flag that gave the value.
"$ezpz" validate --system polaris -N 99 -t 1h -q debug -A MyProject -- true >/dev/null 2>"$workdir/err"
code=$?
check "-N over the queue's limit exits 1 ($code)" test "$code" -eq 1
check "the error names -N 99 ($(head -n 1 "$workdir/err"))" grep -q '^ezpz: -N 99: error: nodes 99 is over the limit' "$workdir/err"
"$ezpz" validate --system polaris -N 2 -t 90m -q debug -A MyProject -- true >/dev/null 2>"$workdir/err"
check "the walltime error names -t 90m ($(head -n 1 "$workdir/err"))" grep -q '^ezpz: -t 90m: error: ' "$workdir/err"
"$ezpz" render --system polaris -A MyProject >/dev/null 2>"$workdir/err"
code=$?
check "no spec and no program exits 1 ($code)" test "$code" -eq 1
check "and says how to give a job ($(head -n 1 "$workdir/err"))" grep -q 'no job: give a job spec file, or the job on the command line' "$workdir/err"

finish
