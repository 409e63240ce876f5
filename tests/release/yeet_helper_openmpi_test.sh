#!/usr/bin/env bash
# The documented build of the yeet helper on an Open MPI machine (Sophia; docs/install.md): cmake/yeet-helper
# with the MPI compiler wrappers, then `mpiexec -n 2 ezpz yeet` through Open MPI's own launcher, with
# EZPZ_YEET_MPI naming the helper, copies a tree byte for byte.
#
#   yeet_helper_openmpi_test.sh SOURCE_DIR EZPZ
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
(($# == 2)) || { echo "usage: $0 SOURCE_DIR EZPZ" >&2; exit 2; }
source_dir=$1
ezpz=$2

# Debian's mpicc/mpicxx are MPICH's or Open MPI's by alternatives: name Open MPI's.
for tool in cmake mpicc.openmpi mpicxx.openmpi mpiexec.openmpi; do
  command -v "$tool" >/dev/null || cannot_run "no $tool (scripts/install-deps.sh test: cmake, libopenmpi-dev)"
done

# The command of docs/install.md, with Open MPI's wrappers named.
build=$workdir/build-yeet
if ! cmake -S "$source_dir/cmake/yeet-helper" -B "$build" -DCMAKE_C_COMPILER=mpicc.openmpi \
       -DCMAKE_CXX_COMPILER=mpicxx.openmpi >"$workdir/configure.log" 2>&1 ||
   ! cmake --build "$build" -j "${EZPZ_BUILD_JOBS:-$(nproc)}" >"$workdir/build.log" 2>&1; then
  tail -n 30 "$workdir/configure.log" "$workdir/build.log" >&2
  echo "FAIL: cmake/yeet-helper does not build with Open MPI's wrappers" >&2
  exit 1
fi
helper=$build/ezpz-yeet-mpi
check "the helper links Open MPI's libmpi.so.40 ($(objdump -p "$helper" | awk '$1 == "NEEDED" { printf "%s ", $2 }'))" \
  grep -q 'NEEDED *libmpi.so.40' <(objdump -p "$helper")

mkdir -p "$workdir/src/sub/deeper"
head -c 3000000 /dev/urandom >"$workdir/src/big.bin"
printf 'hello\n' >"$workdir/src/sub/small.txt"
printf '#!/bin/sh\necho hi\n' >"$workdir/src/sub/deeper/run.sh"
chmod 755 "$workdir/src/sub/deeper/run.sh"
ln -s small.txt "$workdir/src/sub/link"
fingerprint() {  # every path, kind, mode, link target and content of a tree (not .ezpz-yeet)
  (cd "$1" && find . -path ./.ezpz-yeet -prune -o -printf '%p %y %m %l\n' | sort &&
     find . -path ./.ezpz-yeet -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
}

EZPZ_YEET_MPI=$helper timeout -k 5 120 mpiexec.openmpi --allow-run-as-root --oversubscribe -n 2 \
  "$ezpz" yeet "$workdir/src" "$workdir/dest-%r" >"$workdir/yeet.log" 2>&1
code=$?
check "mpiexec.openmpi -n 2 ezpz yeet exits 0 (exit $code: $(tail -n 3 "$workdir/yeet.log" | tr '\n' '|'))" test "$code" -eq 0
check "the summary counts 2 copies ($(tail -n 1 "$workdir/yeet.log"))" grep -q '2 nodes: 2 copied' "$workdir/yeet.log"
for rank in 0 1; do
  check "rank $rank's copy is the tree, byte for byte" \
    cmp -s <(fingerprint "$workdir/src") <(fingerprint "$workdir/dest-$rank")
done
finish
