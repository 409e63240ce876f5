#!/usr/bin/env bash
# tests/README.md names every test and no test that does not exist: each unit test file
# (tests/unit/<folder>/<name>_test.cpp as `<folder>/<name>_test`), each end-to-end script
# (tests/e2e/<name>_test.sh as `e2e.<name>_test`) and each test tests/CMakeLists.txt registers (a name
# made in a loop, such as `errors.${name}`, by the part before its first variable); and every test
# name it gives in backquotes is one of those.
#   readme_test.sh SOURCE_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
root=$1
readme="$root/tests/README.md"
check "tests/README.md exists" test -f "$readme"
text=$(<"$readme")
names_in() { grep -Fq -- "\`$1" <<<"$text"; }

missing=()
while IFS= read -r file; do
  name=${file#"$root/tests/unit/"}
  names_in "${name%.cpp}\`" || missing+=("tests/unit/$name")
done < <(find "$root/tests/unit" -name '*_test.cpp' | sort)
for file in "$root"/tests/e2e/*_test.sh; do
  name=$(basename "$file" .sh)
  names_in "e2e.$name\`" || missing+=("tests/e2e/$name.sh")
done
# Registered names, as written: literal ones whole, made ones up to their first ${.
mapfile -t registered < <(grep -oE 'add_test\(NAME [^ )]+' "$root/tests/CMakeLists.txt" | sed 's/^add_test(NAME //')
for name in "${registered[@]}"; do
  # shellcheck disable=SC2016 # a literal ${
  if [[ $name == *'${'* ]]; then
    names_in "${name%%\$\{*}" || missing+=("$name (tests/CMakeLists.txt)")
  else
    names_in "$name\`" || missing+=("$name (tests/CMakeLists.txt)")
  fi
done
((${#missing[@]})) && printf '    not in tests/README.md: %s\n' "${missing[@]}"
check "tests/README.md names every test (${#missing[@]} missing)" test "${#missing[@]}" -eq 0

# Each backquoted test name in the README: a unit test file, an e2e script or a registered name (a made
# one matched with each variable standing for any word). Names with a placeholder (<case>) are skipped.
declare -A prefixes
for name in "${registered[@]}"; do prefixes[${name%%.*}]=1; done
stale=()
quoted_name="\`[A-Za-z_][A-Za-z0-9_]*[./][A-Za-z0-9_./-]+\`"
while IFS= read -r name; do
  [[ $name == *'<'* || $name == *'*'* ]] && continue
  if [[ $name =~ ^(api|doctor|profile|render|resolve|runtime|spec|submit|util|yeet)/[a-z_]+_test$ ]]; then
    [[ -f "$root/tests/unit/$name.cpp" ]] || stale+=("$name")
    continue
  fi
  [[ -n ${prefixes[${name%%.*}]+set} ]] || continue
  found=0
  for pattern in "${registered[@]}"; do
    regex=$(sed -E 's/[.]/\\./g; s/\$\{[A-Za-z_]+\}/[A-Za-z0-9_\/.]+/g' <<<"$pattern")
    [[ $name =~ ^${regex}$ ]] && { found=1; break; }
  done
  if [[ $name == e2e.* ]]; then [[ -f "$root/tests/e2e/${name#e2e.}.sh" ]] || found=0; fi
  ((found)) || stale+=("$name")
done < <(grep -oE "$quoted_name" "$readme" | tr -d '`' | sort -u)
((${#stale[@]})) && printf '    named in tests/README.md but no test: %s\n' "${stale[@]}"
check "tests/README.md names no test that does not exist (${#stale[@]} found)" test "${#stale[@]}" -eq 0
finish
