#!/usr/bin/env bash
# The release ezpz-yeet-mpi (scripts/build-yeet-helper.sh) on a glibc 2.31 machine with only MPICH: in a
# fresh Debian 11 root (scripts/debian-root.sh, cached; the root of release.bullseye: `mpich`, python3, no compiler), as an
# unprivileged user, `mpiexec -n 2 ezpz yeet` (the static ezpz, the helper beside it) copies a tree byte
# for byte, a second run is a cache hit, tarballs (gzip, xz, zstd, bzip2) unpack through the static
# libarchive, and a corrupted chunk fails the run.
#
#   yeet_helper_bullseye_test.sh SOURCE_DIR EZPZ
#
# EZPZ_YEET_HELPER=FILE tests that helper instead of building one; a release tarball (ctest gives the one
# release.artifacts made) stands for its bin/ezpz-yeet-mpi. Needs root (chroot, namespaces).
set -uo pipefail

# --- inside the root, as the unprivileged user ---------------------------------------------------------
if [[ ${1:-} == --inside ]]; then
  failures=0
  fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
  }
  fingerprint() {  # every path, kind, mode, link target and content of a tree (not .ezpz-yeet)
    (cd "$1" && find . -path ./.ezpz-yeet -prune -o -printf '%p %y %m %l\n' | sort &&
       find . -path ./.ezpz-yeet -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
  }
  same_tree() {  # same_tree WHAT A B
    [[ -d $3 ]] || { fail "$1: no $3"; return; }
    cmp -s <(fingerprint "$2") <(fingerprint "$3") || fail "$1: $3 differs from $2: $(diff <(fingerprint "$2") <(fingerprint "$3") | head -n 5 | tr '\n' '|')"
  }
  yeet() {  # yeet LOG ARG...: mpiexec -n 2 ezpz yeet ARG..., exit status in $code
    local log=$1
    shift
    timeout -k 5 120 mpiexec -n 2 /opt/ezpz/bin/ezpz yeet "$@" >"$log" 2>&1
    code=$?
  }
  bin=/opt/ezpz/bin
  for compiler in cc gcc g++ c++; do
    ! command -v "$compiler" >/dev/null || fail "the root has a compiler: $(command -v "$compiler")"
  done

  # Without a libmpi.so.12 the helper does not load: Debian's libmpich12 calls the same ABI
  # libmpich.so.12, while the MPICH, Intel MPI and Cray MPICH installations of the sites name it
  # libmpi.so.12 (what the helper records). A Debian user links one name to the other.
  if "$bin/ezpz-yeet-mpi" --help >no-lib.log 2>&1 || ! grep -q 'libmpi.so.12' no-lib.log; then
    fail "without libmpi.so.12 the helper should not load ($(head -c 300 no-lib.log))"
  fi
  mkdir -p mpi-abi
  ln -sf /usr/lib/x86_64-linux-gnu/libmpich.so.12 mpi-abi/libmpi.so.12
  export LD_LIBRARY_PATH=$HOME/mpi-abi

  yeet yeet1.log /data/tree "$HOME/dest-%r"
  ((code == 0)) || fail "mpiexec -n 2 ezpz yeet exits $code: $(tail -n 5 yeet1.log | tr '\n' '|')"
  for rank in 0 1; do same_tree "yeet, rank $rank" /data/tree "dest-$rank"; done
  yeet yeet2.log /data/tree "$HOME/dest-%r"
  if ((code != 0)) || ! grep -q '2 cached' yeet2.log; then
    fail "a second run should be a cache hit on both ranks (exit $code): $(tail -n 2 yeet2.log | tr '\n' '|')"
  fi

  for tarball in /data/tree.tar.gz /data/tree.tar.xz /data/tree.tar.zst /data/tree.tar.bz2; do
    name=${tarball##*.}
    yeet "unpack-$name.log" --unpack "$tarball" "$HOME/unpacked-$name-%r"
    ((code == 0)) || fail "--unpack $tarball exits $code: $(tail -n 5 "unpack-$name.log" | tr '\n' '|')"
    for rank in 0 1; do same_tree "--unpack .$name, rank $rank" /data/tree "unpacked-$name-$rank"; done
  done

  # A corrupted chunk on rank 1 fails the run, and rank 1 keeps no copy.
  EZPZ_YEET_TEST_FAULT=corrupt:1:0 yeet fault.log /data/tree "$HOME/fault-%r"
  ((code != 0)) || fail "a corrupted chunk should fail the run: $(tail -n 3 fault.log | tr '\n' '|')"
  [[ ! -e fault-1 ]] || fail "rank 1 kept a corrupted copy"
  grep -q 'checksum mismatch' fault.log || fail "no 'checksum mismatch' in: $(tail -n 3 fault.log | tr '\n' '|')"
  ((failures == 0)) || exit 1
  echo "inside: all checks passed"
  exit 0
fi

# --- on the host ---------------------------------------------------------------------------------------
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$(dirname "$0")/../e2e/lib.sh"
(($# == 2)) || { echo "usage: $0 SOURCE_DIR EZPZ" >&2; exit 2; }
source_dir=$1
ezpz=$2

((EUID == 0)) || cannot_run "needs root (a chroot in mount and PID namespaces)"
for tool in debootstrap unshare chroot objdump tar gzip xz zstd bzip2; do
  command -v "$tool" >/dev/null || cannot_run "no $tool (scripts/install-deps.sh test)"
done
[[ -x $ezpz ]] || { echo "FAIL: no ezpz binary at $ezpz" >&2; exit 1; }
if objdump -p "$ezpz" | grep -q NEEDED; then
  cannot_run "$ezpz is not static (EZPZ_STATIC=OFF): it cannot run on glibc 2.31"
fi

start=$SECONDS
helper=${EZPZ_YEET_HELPER:-}
if [[ $helper == *.tar.gz ]]; then
  mkdir -p "$workdir/release"
  tar -C "$workdir/release" --wildcards -xzf "$helper" '*/bin/ezpz-yeet-mpi' ||
    { echo "FAIL: no bin/ezpz-yeet-mpi in $helper" >&2; exit 1; }
  helper=$(find "$workdir/release" -name ezpz-yeet-mpi -type f)
elif [[ -z $helper ]]; then
  "$source_dir/scripts/build-yeet-helper.sh" "$workdir/helper" || { echo "FAIL: scripts/build-yeet-helper.sh failed" >&2; exit 1; }
  helper=$workdir/helper/ezpz-yeet-mpi
fi
echo "helper ready after $((SECONDS - start))s"

root=$workdir/root
"$source_dir/scripts/debian-root.sh" bullseye "$root" python3 python3-venv mpich ||
  { echo "FAIL: scripts/debian-root.sh bullseye could not make the root" >&2; exit 1; }
glibc=$("$source_dir/scripts/debian-root.sh" run "$root" -- ldd --version | head -n 1)
check "the root has glibc 2.31 ($glibc)" grep -q ' 2\.31$' <<<"$glibc"
mkdir -p "$root/opt/ezpz/bin"
cp "$ezpz" "$root/opt/ezpz/bin/ezpz"
cp "$helper" "$root/opt/ezpz/bin/ezpz-yeet-mpi"
chmod 755 "$root/opt/ezpz/bin/ezpz" "$root/opt/ezpz/bin/ezpz-yeet-mpi"

# The tree: big and small files, an empty one, an empty directory, modes, a relative link, a space.
data=$workdir/data
mkdir -p "$data/tree/sub/deeper" "$data/tree/empty dir"
head -c 5000000 /dev/urandom >"$data/tree/big.bin"
printf 'hello\n' >"$data/tree/sub/small.txt"
: >"$data/tree/sub/empty"
printf '#!/bin/sh\necho hi\n' >"$data/tree/sub/deeper/run me.sh"
chmod 755 "$data/tree/sub/deeper/run me.sh"
chmod 444 "$data/tree/sub/small.txt"
chmod 644 "$data/tree/big.bin" "$data/tree/sub/empty"
chmod 755 "$data" "$data/tree" "$data/tree/sub" "$data/tree/sub/deeper" "$data/tree/empty dir"
ln -s small.txt "$data/tree/sub/link"
for compress in gzip xz zstd bzip2; do
  suffix=$compress
  [[ $compress == gzip ]] && suffix=gz
  [[ $compress == bzip2 ]] && suffix=bz2
  [[ $compress == zstd ]] && suffix=zst
  tar -C "$data/tree" -cf - . | "$compress" -c >"$data/tree.tar.$suffix"
done
chmod 644 "$data"/tree.tar.*

"$source_dir/scripts/debian-root.sh" run "$root" --user ezpz --ro-bind "$data:/data" \
  --ro-bind "$(cd "$(dirname "$0")" && pwd)/$(basename "$0"):/opt/test/yeet_helper_bullseye_test.sh" \
  -- bash /opt/test/yeet_helper_bullseye_test.sh --inside
code=$?
check "the checks inside the bullseye root pass (exit $code)" test "$code" -eq 0
echo "took $((SECONDS - start))s"
finish
