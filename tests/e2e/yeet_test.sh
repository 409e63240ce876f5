#!/usr/bin/env bash
# `ezpz yeet` under real MPICH mpiexec: four ranks, each with its own %r DEST, receive a tree with
# nested directories, symbolic links, executable bits, empty files, files larger than a chunk and
# non-ASCII names; every copy matches the source; a re-run is a cache hit; a corrupted chunk, a DEST
# that cannot be created and a DEST yeet did not make each fail on the node concerned and leave no
# half-written DEST; tarballs are unpacked; a virtual environment works from its new place.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1

command -v mpiexec.mpich >/dev/null || { echo "FAIL: mpiexec.mpich is missing (scripts/install-deps.sh test)"; exit 1; }
yeet() {  # yeet RANKS ARGS... : runs ezpz yeet on RANKS ranks; stderr in $workdir/err, status in $status
  local ranks=$1
  shift
  timeout 120 mpiexec.mpich -n "$ranks" "$ezpz" yeet "$@" 2>"$workdir/err"
  status=$?
}
# shellcheck source-path=SCRIPTDIR source=tree.sh
source "$here/tree.sh"
no_staging_left() { test -z "$(find "$1" -name '.*.yeet-*' 2>/dev/null)"; }

# --- the source tree ---
src="$workdir/src"
mkdir -p "$src/lib/python3/site" "$src/bin" "$src/données/ünïcödé" "$src/empty dir"
printf 'print("hi")\n' >"$src/lib/python3/site/mod.py"
head -c 300000 /dev/urandom >"$src/big.bin"            # 4.6 chunks of 64 KiB
head -c 65536 /dev/urandom >"$src/exactly-one-chunk.bin"
printf '#!/bin/sh\necho tool\n' >"$src/bin/tool" && chmod 755 "$src/bin/tool"
printf 'secret\n' >"$src/private" && chmod 600 "$src/private"
: >"$src/empty"
printf 'ü\n' >"$src/données/ünïcödé/naïve file.txt"
ln -s lib/python3/site/mod.py "$src/relative-link"
ln -s /etc/hostname "$src/absolute-link"
ln -s does-not-exist "$src/dangling-link"
chmod 555 "$src/données"                                 # a read-only directory, restored last
touch -d '2001-02-03 04:05:06' "$src/big.bin"

# --- four ranks, four destinations ---
dst="$workdir/dst"
yeet 4 --chunk-size 64K "$src" "$dst/%r/copy"
check "four ranks copy the tree (exit $status: $(head -c 400 "$workdir/err"))" test "$status" -eq 0
for rank in 0 1 2 3; do
  check "rank $rank: the copy matches the source (content, kinds, modes, links, mtimes)" same_tree "$src" "$dst/$rank/copy"
done
check "summary: 4 copied" grep -q 'ezpz yeet: 4 nodes: 4 copied, 0 cached, 0 shared, 0 failed' "$workdir/err"
check "no staging directory is left" no_staging_left "$dst"

# --- both routes, with chunks of several pieces (256 KiB) and a last piece that is short ---
for route in chain bcast; do
  yeet 4 --route "$route" --chunk-size 1M --pipeline 2 "$src" "$workdir/$route/%r/copy"
  check "--route $route: exit 0 ($(head -c 400 "$workdir/err"))" test "$status" -eq 0
  for rank in 1 3; do
    check "--route $route: rank $rank's copy matches the source" same_tree "$src" "$workdir/$route/$rank/copy"
  done
done

# --- a re-run keeps the copies ---
record_before=$(stat -c %Y.%i "$dst/1/copy/.ezpz-yeet")
yeet 4 --chunk-size 64K "$src" "$dst/%r/copy"
check "re-run exits 0" test "$status" -eq 0
check "re-run: 4 cached, nothing written" grep -q '4 nodes: 0 copied, 4 cached, 0 shared, 0 failed; .* 0 B written' "$workdir/err"
check "re-run: the copy was not replaced" test "$(stat -c %Y.%i "$dst/1/copy/.ezpz-yeet")" = "$record_before"
rm "$dst/2/copy/big.bin"
yeet 4 --chunk-size 64K "$src" "$dst/%r/copy"
check "a copy with a file removed is copied again, the others are kept" \
  grep -q '4 nodes: 1 copied, 3 cached' "$workdir/err"
check "rank 2's copy is whole again" same_tree "$src" "$dst/2/copy"

# --- a corrupted chunk on rank 2 ---
yeet_fault() { EZPZ_YEET_TEST_FAULT=corrupt:2:3 yeet "$@"; }
yeet_fault 4 --chunk-size 64K "$src" "$workdir/fault/%r/copy"
check "a corrupted chunk fails the run" test "$status" -eq 1
check "the failure names rank 2 and the damaged file" \
  grep -q "failed on .* (rank 2): checksum mismatch: '$workdir/fault/2/copy/big.bin' differs from the source" "$workdir/err"
check "the exit reason names the failed node" grep -q 'failed: .* (rank 2)$' "$workdir/err"
check "rank 2 has no DEST" test ! -e "$workdir/fault/2/copy"
check "rank 2 left no staging directory" no_staging_left "$workdir/fault"
check "the other ranks have their copies" same_tree "$src" "$workdir/fault/3/copy"
EZPZ_YEET_TEST_FAULT=corrupt:2:3 yeet 4 --min-success 75% --chunk-size 64K "$src" "$workdir/fault2/%r/copy"
check "--min-success 75% accepts one failed node of four" test "$status" -eq 0
check "and says so" grep -q '3 of 4 nodes succeeded, enough for --min-success (3)' "$workdir/err"
yeet 2 --min-success 3 "$src" "$workdir/toomany/%r"
check "--min-success above the node count is a usage error (exit 2)" test "$status" -eq 2
check "and nothing was copied" test ! -e "$workdir/toomany"

# --- a DEST that cannot be created on rank 1 ---
mkdir -p "$workdir/ro" && : >"$workdir/ro/1"
yeet 3 "$src" "$workdir/ro/%r/copy"
check "an unwritable DEST fails the run" test "$status" -eq 1
check "the failure names rank 1 and the path" \
  grep -q "failed on .* (rank 1): cannot create '$workdir/ro/1': it exists and is not a directory" "$workdir/err"
check "ranks 0 and 2 still copied" grep -q '3 nodes: 2 copied, 0 cached, 0 shared, 1 failed' "$workdir/err"

# --- a DEST yeet did not make is never replaced ---
mkdir -p "$workdir/mine" && echo keep >"$workdir/mine/notes.txt"
yeet 2 "$src" "$workdir/mine"
check "a foreign DEST fails" test "$status" -eq 1
check "the message says why" grep -q "DEST '$workdir/mine' exists and was not made by ezpz yeet; not replacing it" "$workdir/err"
check "the foreign DEST is untouched" test "$(cat "$workdir/mine/notes.txt")" = keep

# --- an entry named like yeet's record must not make yeet write outside DEST ---
mkdir -p "$workdir/recsrc" && echo d >"$workdir/recsrc/f" && echo precious >"$workdir/victim"
ln -s "$workdir/victim" "$workdir/recsrc/.ezpz-yeet"
yeet 2 "$workdir/recsrc" "$workdir/recdst/%r"
check "a source entry named .ezpz-yeet fails the run" test "$status" -eq 1
check "the failure names the entry" grep -q "'$workdir/recsrc/.ezpz-yeet': the name '.ezpz-yeet' is yeet's own" "$workdir/err"
check "the link's target is untouched" test "$(cat "$workdir/victim")" = precious
tar -C "$workdir/recsrc" -cf "$workdir/rec.tar" .
yeet 2 --unpack "$workdir/rec.tar" "$workdir/recdst-tar/%r"
check "a tarball member named .ezpz-yeet fails the run" test "$status" -eq 1
check "the link's target is still untouched" test "$(cat "$workdir/victim")" = precious
check "and no DEST is left" test ! -e "$workdir/recdst-tar/1"

# --- tarballs, unpacked on arrival ---
tar -C "$workdir" -czf "$workdir/tree.tar.gz" src
tar -C "$workdir" -I zstd -cf "$workdir/tree.tar.zst" src
for tarball in tree.tar.gz tree.tar.zst; do
  yeet 3 --unpack "$workdir/$tarball" "$workdir/unpacked-$tarball/%r"
  check "$tarball: unpacked on every rank (exit $status: $(head -c 300 "$workdir/err"))" test "$status" -eq 0
  check "$tarball: rank 2's copy matches the source" same_tree "$src" "$workdir/unpacked-$tarball/2/src" seconds
done
yeet 2 --unpack "$src/big.bin" "$workdir/notatar"
check "--unpack of a non-tarball is refused" grep -q -- '--unpack needs a tarball' "$workdir/err"

# --- a single file ---
yeet 2 "$src/big.bin" "$workdir/onefile/%r"
check "a file source lands as DEST/NAME" cmp -s "$src/big.bin" "$workdir/onefile/1/big.bin"

# --- a sparse file stays sparse on every node; a /proc file (size 0, with content) is refused ---
mkdir -p "$workdir/sparse"
printf head >"$workdir/sparse/image" && truncate -s 64M "$workdir/sparse/image" && printf tail >>"$workdir/sparse/image"
yeet 2 "$workdir/sparse" "$workdir/sparse-copy/%r"
check "a sparse file is copied (exit $status)" cmp -s "$workdir/sparse/image" "$workdir/sparse-copy/1/image"
on_disk=$(du -k "$workdir/sparse-copy/1/image" | cut -f1)
check "... and stays sparse on the node ($on_disk KiB on disk for 64 MiB)" test "$on_disk" -lt 1024
tar -C "$workdir" -czf "$workdir/sparse.tar.gz" sparse # the zeros stored, compressed
yeet 2 --unpack "$workdir/sparse.tar.gz" "$workdir/sparse-unpacked/%r"
on_disk=$(du -k "$workdir/sparse-unpacked/1/sparse/image" | cut -f1)
check "unpacked from a tarball, it is sparse too (exit $status, $on_disk KiB on disk)" test "$on_disk" -lt 1024
yeet 2 /proc/self/status "$workdir/proc-copy/%r"
check "a /proc file is refused, not copied empty (exit $status)" test "$status" -eq 1
check "... saying why ($(head -c 300 "$workdir/err"))" \
  grep -q "'/proc/self/status' is on proc, where a file's size is not what it holds" "$workdir/err"
check "... and nothing is copied" test ! -e "$workdir/proc-copy/0"

# --- %n: several "nodes" on one machine ---
timeout 60 mpiexec.mpich -n 1 -env EZPZ_NODE_NAME alpha "$ezpz" yeet --quiet "$src" "$workdir/nodes/%n" : \
  -n 1 -env EZPZ_NODE_NAME beta "$ezpz" yeet --quiet "$src" "$workdir/nodes/%n" 2>"$workdir/err"
check "%n names each node's DEST ($(head -c 300 "$workdir/err"))" same_tree "$src" "$workdir/nodes/beta"
check "%n: alpha too" same_tree "$src" "$workdir/nodes/alpha"

# --- the same DEST for two ranks on one node: one writes, one waits ---
yeet 2 "$src" "$workdir/shared"
check "two ranks with one DEST: 1 copied, 1 shared" grep -q '2 nodes: 1 copied, 0 cached, 1 shared' "$workdir/err"
yeet 2 --min-success 1 "$src" "$workdir/mine"
check "a shared DEST whose writer failed is no success (exit $status)" test "$status" -eq 1
check "the sharing rank takes the writer's failure" \
  grep -q "(rank 1): shares DEST '$workdir/mine' with rank 0, which failed" "$workdir/err"

# --- a Python virtual environment, relocated ---
if python3 -m venv --without-pip "$workdir/venv" 2>"$workdir/err"; then
  yeet 2 "$workdir/venv" "$workdir/staged/%r/venv"
  check "venv: copied" test "$status" -eq 0
  prefix=$("$workdir/staged/1/venv/bin/python3" -c 'import sys; print(sys.prefix)')
  check "venv: python's sys.prefix is the new place ($prefix)" test "$prefix" = "$workdir/staged/1/venv"
  # shellcheck disable=SC1091 # the activate script is made by the test
  activated=$(. "$workdir/staged/1/venv/bin/activate" && echo "$VIRTUAL_ENV")
  check "venv: activate sets the new VIRTUAL_ENV ($activated)" test "$activated" = "$workdir/staged/1/venv"
else
  fail "python3 -m venv failed: $(cat "$workdir/err")"
fi

# --- DEST inside SRC: every run would copy the earlier copies again ---
mkdir -p "$workdir/self" && echo x >"$workdir/self/f" && ln -s "$workdir/self" "$workdir/self-link"
yeet 2 "$workdir/self" "$workdir/self/copy-%r"
check "DEST inside SRC is a usage error (exit $status)" test "$status" -eq 2
check "it says so" grep -q "DEST '$workdir/self/copy-0' is inside SRC '$workdir/self'" "$workdir/err"
check "nothing was copied" test ! -e "$workdir/self/copy-0" -a ! -e "$workdir/self/copy-1"
yeet 2 "$workdir/self" "$workdir/self-link/copy"
check "DEST inside SRC through a symbolic link is a usage error too (exit $status)" test "$status" -eq 2

# --- not under MPICH: a lone process must not pretend to be the whole job ---
if command -v mpiexec.openmpi >/dev/null; then
  timeout 60 mpiexec.openmpi --allow-run-as-root --oversubscribe -n 2 "$ezpz" yeet "$src" "$workdir/ompi/%r" 2>"$workdir/err"
  check "under Open MPI's mpiexec yeet fails" test $? -ne 0
  check "and says the launcher and MPI disagree" grep -q 'by Open MPI, but MPI sees a single process' "$workdir/err"
fi
"$ezpz" yeet "$src" "$workdir/direct" 2>"$workdir/err"
check "started directly (no launcher), yeet copies on this node" same_tree "$src" "$workdir/direct"
"$ezpz" yeet "$src" 2>"$workdir/err"
check "a missing DEST is a usage error (exit 2)" test $? -eq 2

chmod -R u+w "$workdir"
finish
