#!/usr/bin/env bash
# `ezpz yeet` on a node shared with another user (uids 64101 = A and 64102 = B, issue 27): a DEST that
# B made is never taken for A's cached copy, a DEST under B's directory or under a directory anyone can
# rename entries in is refused, and a file B planted inside A's own copy makes A copy anew.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
# shellcheck source-path=SCRIPTDIR source=users.sh
source "$here/users.sh"
ezpz=$1
helper=$(dirname "$ezpz")/ezpz-yeet-mpi
[[ -x $helper ]] || cannot_run "ezpz-yeet-mpi was not built (MPICH: scripts/install-deps.sh test)"
# Programs any user can run (the build directory may be private).
install -d -m 755 "$workdir/bin"
install -m 755 "$ezpz" "$helper" "$workdir/bin/"
ezpz=$workdir/bin/ezpz
unset EZPZ_YEET_MPI

# yeet UID SRC DEST: one yeet process (a single-node copy) as UID; stderr in $workdir/err, status in $status.
yeet() {
  as "$1" timeout 120 "$ezpz" yeet --quiet "$2" "$3" 2>"$workdir/err"
  status=$?
}
said() { grep -qF -- "$1" "$workdir/err"; }

# A source everyone can read, with a directory anyone may write in (as a careless SRC can have).
src=$workdir/src
mkdir -p "$src/lib" "$src/drop"
printf 'print("mine")\n' >"$src/lib/mod.py"
printf 'data\n' >"$src/drop/data.txt"
chmod 777 "$src/drop"

# --- B's copy in the documented place, then doctored: A must not take it for its own ---
env=$shared_tmp/env
yeet "$user_b" "$src" "$env"
check "B copies SRC to $env (exit $status: $(head -c 300 "$workdir/err"))" test "$status" -eq 0
# B swaps a file for one of the same size and mtime: the cache check cannot see it by content.
as "$user_b" sh -c "printf 'print(\"evil\")\n' >'$env/lib/mod.py.new' && touch -r '$env/lib/mod.py' '$env/lib/mod.py.new' &&
  mv '$env/lib/mod.py.new' '$env/lib/mod.py'"
yeet "$user_a" "$src" "$env"
check "A's yeet into B's DEST fails (exit $status, expected 1: $(head -c 300 "$workdir/err"))" test "$status" -eq 1
check "A is told B owns DEST" said "'$env' is owned by uid $user_b, not by you (uid $user_a)"
check "A is not told it is cached" test -z "$(grep ' 1 cached' "$workdir/err")"

# --- DEST under B's world-writable directory ---
as "$user_b" mkdir -m 777 "$shared_tmp/b-dir"
as "$user_b" chmod 777 "$shared_tmp/b-dir"
yeet "$user_a" "$src" "$shared_tmp/b-dir/env"
check "a DEST under B's directory is refused (exit $status: $(head -c 300 "$workdir/err"))" test "$status" -eq 1
check "the message names B's directory" said "'$shared_tmp/b-dir' is owned by uid $user_b"
check "nothing is written there" test ! -e "$shared_tmp/b-dir/env"

# --- DEST under root's 0777 directory without the sticky bit: anyone can rename DEST away ---
mkdir -m 777 "$workdir/open" && chmod 777 "$workdir/open"
yeet "$user_a" "$src" "$workdir/open/env"
check "a DEST under a directory writable by all without the sticky bit is refused (exit $status)" test "$status" -eq 1
check "the message says why" said "'$workdir/open' is writable by others (mode 0777) and has no sticky bit"

# --- A's own copy, kept; then B plants a file in its world-writable directory ---
mine=$shared_tmp/a-env
yeet "$user_a" "$src" "$mine"
check "A copies SRC to its own DEST (exit $status: $(head -c 300 "$workdir/err"))" test "$status" -eq 0
yeet "$user_a" "$src" "$mine"
check "A's re-run keeps A's own copy (1 cached: $(head -c 300 "$workdir/err"))" said "1 cached"
as "$user_b" sh -c "printf 'evil\n' >'$mine/drop/new' && touch -r '$mine/drop/data.txt' '$mine/drop/new' &&
  mv -f '$mine/drop/new' '$mine/drop/data.txt'"
check "(B replaced a file in A's copy)" test "$(stat -c %u "$mine/drop/data.txt")" = "$user_b"
yeet "$user_a" "$src" "$mine"
check "A's re-run after B's file copies anew (exit $status: $(head -c 300 "$workdir/err"))" said "1 copied"
check "A is told why" said "'$mine/drop/data.txt' is owned by uid $user_b, not by you (uid $user_a): copying anew"
check "A's copy holds the source's file again" cmp -s "$src/drop/data.txt" "$mine/drop/data.txt"
check "and it is A's" test "$(stat -c %u "$mine/drop/data.txt")" = "$user_a"
finish
