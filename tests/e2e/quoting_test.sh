#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted $VARS are expanded by the ranks, on purpose
# Values that reach a script are literal text: a rendered script is run by a real bash with stub
# launchers, and every hostile value arrives unchanged while nothing it contains is executed.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1
marker="$workdir/PWNED"
stubs="$workdir/stubs"
mkdir -p "$stubs" "$workdir/out"

# Launcher stubs skip their own options and run the rank command from "$EZPZ_BIN" on.
for launcher in srun mpiexec; do
  cat >"$stubs/$launcher" <<'STUB'
#!/usr/bin/env bash
printf '%s\0' "$@" >"$OUT_DIR/$(basename "$0").args"
while (($#)) && [[ $1 != "$EZPZ_BIN" ]]; do shift; done
exec "$@"
STUB
done
cat >"$stubs/module" <<'STUB'
#!/usr/bin/env bash
printf '%s\0' "$@" >>"$OUT_DIR/module.args"
STUB
# The rank wrapper stub records what the rank would run and its environment.
cat >"$stubs/ezpz-stub" <<'STUB'
#!/usr/bin/env bash
[[ $1 == exec && $2 == -- ]] || { echo "unexpected: $*" >&2; exit 9; }
shift 2
printf '%s\0' "$@" >"$OUT_DIR/rank.args"
printf '%s' "$HOSTILE" >"$OUT_DIR/env.value"
pwd >"$OUT_DIR/pwd"
STUB
chmod +x "$stubs"/*

hostile_arg="\$(touch $marker)"
mkdir -p "$workdir/run dir \$(touch $marker)"
cat >"$workdir/job.yaml" <<YAML
name: quoting
account: MyProject
workdir: "$workdir/run dir \$(touch $marker)"
modules: ["m\$(touch $marker)"]
env:
  HOSTILE: "a'b\"c \$(touch $marker) \`touch $marker\`; touch $marker && echo \${HOME}\\nline2"
run: [printf, "$hostile_arg", "'", "\"", ";", "&&", "*", "\`id\`", "two\\nlines", "\${PATH}"]
YAML

for system in slurm aurora; do
  rm -f "$marker" "$workdir/out"/*
  script="$workdir/$system.sh"
  if ! "$ezpz" render "$workdir/job.yaml" --system "$system" >"$script"; then
    fail "$system: render failed"
    continue
  fi
  check "$system: script passes shellcheck" "$here/lint_script.sh" "$script"
  (
    export PATH="$stubs:$PATH" OUT_DIR="$workdir/out" EZPZ_BIN="$stubs/ezpz-stub"
    export PBS_O_WORKDIR="$workdir" PBS_NODEFILE=/dev/null
    bash "$script"
  ) >"$workdir/stdout" 2>"$workdir/stderr"
  check "$system: script ran ($(cat "$workdir/stderr"))" test $? -eq 0
  check "$system: nothing hostile was executed" test ! -e "$marker"
  mapfile -d '' -t args <"$workdir/out/rank.args"
  expected=(printf "$hostile_arg" "'" '"' ";" "&&" "*" '`id`' $'two\nlines' '${PATH}')
  check "$system: every argument arrived literally" test "${args[*]@Q}" = "${expected[*]@Q}"
  check "$system: env value arrived literally" test "$(cat "$workdir/out/env.value")" = "a'b\"c \$(touch $marker) \`touch $marker\`; touch $marker && echo \${HOME}"$'\n'"line2"
  check "$system: the job ran in the literal workdir" test "$(cat "$workdir/out/pwd")" = "$workdir/run dir \$(touch $marker)"
  mapfile -d '' -t module_args <"$workdir/out/module.args"
  check "$system: module name arrived literally" test "${module_args[-1]}" = "m\$(touch $marker)"
done
finish
