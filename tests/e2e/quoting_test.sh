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
path_with_stubs="$stubs:$PATH"

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
run: [printf, "$hostile_arg", "'", "\"", ";", "&&", "*", "\`id\`", "two\\nlines", "\${PATH}", "tail\\\\", "q\\\\'"]
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
  code=$?  # before the message: its $(…) would set $? first
  check "$system: script ran ($(cat "$workdir/stderr"))" test "$code" -eq 0
  check "$system: nothing hostile was executed" test ! -e "$marker"
  mapfile -d '' -t args <"$workdir/out/rank.args"
  expected=(printf "$hostile_arg" "'" '"' ";" "&&" "*" '`id`' $'two\nlines' '${PATH}' "tail\\" "q\\'")
  check "$system: every argument arrived literally" test "${args[*]@Q}" = "${expected[*]@Q}"
  check "$system: env value arrived literally" test "$(cat "$workdir/out/env.value")" = "a'b\"c \$(touch $marker) \`touch $marker\`; touch $marker && echo \${HOME}"$'\n'"line2"
  check "$system: the job ran in the literal workdir" test "$(cat "$workdir/out/pwd")" = "$workdir/run dir \$(touch $marker)"
  mapfile -d '' -t module_args <"$workdir/out/module.args"
  check "$system: module name arrived literally" test "${module_args[-1]}" = "m\$(touch $marker)"
done

# A relative workdir that looks like an option, or is "-", is a directory: "cd -L" would stay in
# $HOME and "cd -" would go to $OLDPWD. A $CDPATH with the same names must not be searched either.
mkdir -p "$workdir/rel/-L" "$workdir/rel/-" "$workdir/decoy/-L" "$workdir/decoy/-"
for dir in -L -; do
  printf 'account: MyProject\nworkdir: "%s"\nrun: [x]\n' "$dir" >"$workdir/dash.yaml"
  script="$workdir/dash.sh"
  rm -f "$workdir/out/pwd"
  check "workdir '$dir': render" "$ezpz" render "$workdir/dash.yaml" --system slurm -o "$script"
  check "workdir '$dir': script passes shellcheck" "$here/lint_script.sh" "$script"
  (
    cd "$workdir/rel" || exit 1
    PATH=$path_with_stubs OUT_DIR="$workdir/out" EZPZ_BIN="$stubs/ezpz-stub" CDPATH="$workdir/decoy" \
      OLDPWD="$workdir/decoy" bash "$script"
  )
  check "workdir '$dir': the job ran in ./$dir, not in $(cat "$workdir/out/pwd")" \
    test "$(cat "$workdir/out/pwd")" = "$workdir/rel/$dir"
done

# Values with backslashes before a closing quote (SC1003) and in the staging message (SC2028): the
# rendered scripts have no shellcheck finding.
cat >"$workdir/backslash.yaml" <<'YAML'
name: backslash
account: MyProject
workdir: 'dir\'
modules: ['m\', "q\\'"]
env: {TRAIL: 'a\', QUOTE: "b\\'c", NEWLINE: 'x\ny', ONLY: '\'}
stage: [{src: '/in\nput\', dest: /tmp/out}]
run: [printf, 'a\', "\\'", '\n', "'"]
YAML
for system in slurm aurora; do
  script="$workdir/backslash-$system.sh"
  check "$system: render values with backslashes" "$ezpz" render "$workdir/backslash.yaml" --system "$system" -o "$script"
  check "$system: values with backslashes pass shellcheck" "$here/lint_script.sh" "$script"
done
finish
