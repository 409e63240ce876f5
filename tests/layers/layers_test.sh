#!/usr/bin/env bash
# The folder rules of docs/code-layout.md: a folder of src/ezpz includes its own headers, the public
# headers (src/ezpz/*.hpp) and the folders before it in the order the document's `layers:` line gives;
# the public headers include only the standard library and each other; src/python includes only public
# headers; RE2 is included by src/ezpz/util/regex.cpp alone and <regex> by nothing. Every violation is
# listed with its file and line.
#   layers_test.sh SOURCE_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
root=$1
doc="$root/docs/code-layout.md"
read -r -a layers <<<"$(sed -nE 's/^<!-- layers: (.*) -->$/\1/p' "$doc")"
check "docs/code-layout.md names the layers (got ${#layers[@]})" test "${#layers[@]}" -ge 5

declare -A rank
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done
violations=()
for dir in "$root"/src/ezpz/*/; do
  folder=$(basename "$dir")
  [[ -n ${rank[$folder]+set} ]] || { violations+=("src/ezpz/$folder: not in the layers of docs/code-layout.md"); continue; }
  while IFS=: read -r file line target; do
    [[ $target == "$folder" ]] && continue
    if [[ -z ${rank[$target]+set} ]] || ((rank[$target] >= rank[$folder])); then
      violations+=("${file#"$root"/}:$line: $folder includes $target")
    fi
  done < <(grep -rnoE '#include "ezpz/[a-z_]+/' "$dir" | sed -E 's|#include "ezpz/([a-z_]+)/$|\1|')
done
while IFS= read -r hit; do
  violations+=("${hit#"$root"/}: a public header includes more than the standard library and ezpz/*.hpp")
done < <(grep -nE '#include' "$root"/src/ezpz/*.hpp "$root"/src/ezpz/*.hpp.in | grep -vE '#include (<[a-z_]+>|"ezpz/[a-z_]+\.hpp")')
while IFS= read -r hit; do
  violations+=("${hit#"$root"/}: the Python module includes an internal header")
done < <(grep -rnE '#include "ezpz/[a-z_]+/' "$root/src/python")
while IFS= read -r hit; do
  violations+=("${hit#"$root"/}: regular expressions go through ezpz/util/regex.hpp")
done < <(grep -rnE '#include <(regex|re2/.*)>' "$root/src" | grep -vE '^[^:]*/src/ezpz/util/regex\.cpp:[0-9]+:#include <re2/')
printf '    %s\n' "${violations[@]}"
check "no include crosses the folder rules (${#violations[@]} found)" test "${#violations[@]}" -eq 0
finish
