#!/usr/bin/env bash
# Every C++ file of the project is as .clang-format makes it: clang-format --dry-run lists each file
# that differs, with the lines. The formatter is Debian 12's clang-format (14): other versions format some
# constructs differently, so another major version cannot judge the files.
#   format_test.sh SOURCE_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
root=$1
command -v clang-format >/dev/null || cannot_run "no clang-format (scripts/install-deps.sh test installs it)"
version=$(clang-format --version)
[[ $version =~ version\ 14\. ]] || cannot_run "clang-format 14 formats these files; this one is: $version"

cd "$root" || exit 1
# Every C++ file of the source folders (build folders are outside them).
mapfile -t files < <(find src tests fuzz tools bench examples \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) \
  -type f 2>/dev/null | sort)
check "there are C++ files to check (got ${#files[@]})" test "${#files[@]}" -gt 100
differ=()
for file in "${files[@]}"; do
  [[ -f $file ]] || continue
  if ! clang-format --dry-run -Werror "$file" 2>"$workdir/report"; then
    differ+=("$file")
    head -n 20 "$workdir/report" >&2
  fi
done
((${#differ[@]} == 0)) || printf '    differs from .clang-format: %s\n' "${differ[@]}"
check "every C++ file is formatted (${#differ[@]} of ${#files[@]} differ; fix: clang-format -i FILE)" \
  test "${#differ[@]}" -eq 0
finish
