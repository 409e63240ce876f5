# shellcheck shell=bash
# Comparing a copied tree with its source (sourced by the yeet tests).
# Everything about a tree that a copy must keep: kind, mode, size, link target, file mtime (to the
# nanosecond, or to the second with `seconds`: tar keeps no more); not the record .ezpz-yeet.
listing() {  # listing DIR [seconds]
  local cut='s/|d[0-9.]*$/|/'
  [ "${2:-}" = seconds ] && cut='s/|d[0-9.]*$/|/; s/\.[0-9]*$//'
  (cd "$1" && find . -path ./.ezpz-yeet -prune -o -printf '%P|%y|%m|%s|%l|%y%T@\n' | sed "$cut" | LC_ALL=C sort)
}
same_tree() {  # same_tree SRC COPY [seconds]
  diff -r --no-dereference -x .ezpz-yeet "$1" "$2" >/dev/null && diff <(listing "$1" "${3:-}") <(listing "$2" "${3:-}") >/dev/null
}
