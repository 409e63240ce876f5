#!/usr/bin/env bash
# Builds the release ezpz-yeet-mpi in a Debian 11 root: it then needs only glibc 2.31 and libmpi.so.12.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: scripts/build-yeet-helper.sh OUT_DIR

Writes OUT_DIR/ezpz-yeet-mpi, the MPI helper of `ezpz yeet` (docs/yeet.md), built for release: from
this checkout's sources (the working tree, mounted read-only) with cmake/yeet-helper, inside a fresh
Debian 11 (bullseye) root made by scripts/debian-root.sh (cached in ${EZPZ_CACHE_DIR:-/var/cache/ezpz}):
glibc 2.31, gcc 10, cmake 3.18 and libmpich-dev 3.4 (MPICH ABI 12). libstdc++, libgcc, libarchive
(with acl, lzma, zstd, lz4, bz2, z) and xxhash are linked statically; the program is stripped and its
MPI library is recorded as libmpi.so.12 (the name MPICH, Intel MPI and Cray MPICH's lib-abi-mpich
install; Debian's own package calls it libmpich.so.12). CLI11 (headers only; Debian 11 has no package)
comes from the host's /usr/include/CLI (Debian 12's libcli11-dev, a build dependency of ezpz).

The result is checked and the script fails (exit 1) unless `objdump -T` shows no GLIBC_ version above
2.31 and no GLIBCXX/CXXABI/GCC version, and `objdump -p` shows no RPATH/RUNPATH and NEEDED only
libc, libm, libpthread, libdl, librt, ld-linux-x86-64 and libmpi.so.12 (which must be there).

Needs root (the build root is a chroot), debootstrap, and network access to the Debian archive the
first time (about 5 minutes on 2 cores); afterwards a build takes about 2 minutes offline.
Progress and errors go to stderr; nothing is printed on stdout. Environment: EZPZ_CACHE_DIR,
EZPZ_BUILD_JOBS (default: the number of CPUs), TMPDIR (where the build root is unpacked, default
/var/tmp; about 1 GB).
USAGE
}

log() { echo "build-yeet-helper.sh: $*" >&2; }
die() {
  log "error: $*"
  exit 1
}

case ${1:-} in
  -h | --help) usage; exit 0 ;;
  '' | -*) usage >&2; exit 2 ;;
esac
(($# == 1)) || { usage >&2; exit 2; }
out_dir=$1
root=$(cd "$(dirname "$0")/.." && pwd)

((EUID == 0)) || die "must run as root (the build root is a chroot)"
[[ -f /usr/include/CLI/CLI.hpp ]] || die "no /usr/include/CLI/CLI.hpp: install libcli11-dev (scripts/install-deps.sh)"
command -v objdump >/dev/null || die "no objdump: install binutils"
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)

readonly packages=(g++ cmake ninja-build pkg-config patchelf libmpich-dev libarchive-dev libxxhash-dev
                   libacl1-dev liblzma-dev libzstd-dev liblz4-dev libbz2-dev zlib1g-dev)
readonly max_glibc=2.31
readonly allowed_needed='libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 ld-linux-x86-64.so.2 libmpi.so.12'

start=$SECONDS
work=$(mktemp -d "${TMPDIR:-/var/tmp}/ezpz-yeet-helper.XXXXXX")
# shellcheck disable=SC2064  # expand now
trap "rm -rf --one-file-system '$work'" EXIT
build_root=$work/root
"$root/scripts/debian-root.sh" bullseye "$build_root" "${packages[@]}"
log "build root ready after $((SECONDS - start))s; building"

# shellcheck disable=SC2016  # expanded by the shell inside the root
"$root/scripts/debian-root.sh" run "$build_root" \
  --ro-bind "$root:/src" --ro-bind /usr/include/CLI:/opt/cli11/include/CLI \
  --env "JOBS=${EZPZ_BUILD_JOBS:-$(nproc)}" -- /bin/sh -ec '
    cmake -S /src/cmake/yeet-helper -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DEZPZ_YEET_HELPER_STATIC=ON -DEZPZ_CLI11_INCLUDE_DIR=/opt/cli11/include >/build.log 2>&1
    cmake --build /build -j "$JOBS" >>/build.log 2>&1
    strip /build/ezpz-yeet-mpi
    # The MPICH ABI library is libmpi.so.12 everywhere but in Debian (libmpich.so.12, same ABI).
    patchelf --replace-needed libmpich.so.12 libmpi.so.12 /build/ezpz-yeet-mpi' >&2 ||
  { tail -n 40 "$build_root/build.log" >&2 2>/dev/null; die "the build in the bullseye root failed"; }

helper=$build_root/build/ezpz-yeet-mpi
[[ -x $helper ]] || die "the build left no ezpz-yeet-mpi"

# --- checks -------------------------------------------------------------------------------------------
problems=()
glibc_max=$(objdump -T "$helper" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)
[[ -n $glibc_max ]] || problems+=("no GLIBC_ version in objdump -T (not a dynamic program?)")
if [[ -n $glibc_max && $(printf '%s\n' "$glibc_max" "$max_glibc" | sort -V | tail -n 1) != "$max_glibc" ]]; then
  problems+=("needs GLIBC_$glibc_max, above $max_glibc: $(objdump -T "$helper" | grep "GLIBC_$glibc_max" | awk '{ print $NF }' | tr '\n' ' ')")
fi
others=$(objdump -T "$helper" | grep -oE '(GLIBCXX|CXXABI|GCC)_[0-9][0-9.]*' | sort -u | tr '\n' ' ' || true)
[[ -z $others ]] || problems+=("needs $others(libstdc++/libgcc_s must be linked statically)")
needed=$(objdump -p "$helper" | awk '$1 == "NEEDED" { print $2 }')
for library in $needed; do
  [[ " $allowed_needed " == *" $library "* ]] || problems+=("NEEDED $library (allowed: $allowed_needed)")
done
grep -qx 'libmpi.so.12' <<<"$needed" || problems+=("NEEDED has no libmpi.so.12")
if objdump -p "$helper" | grep -qE '^ *(RPATH|RUNPATH) '; then problems+=("has an RPATH/RUNPATH"); fi
if ((${#problems[@]})); then
  for problem in "${problems[@]}"; do log "check failed: $problem"; done
  die "$helper is not portable (${#problems[@]} problem(s))"
fi

cp "$helper" "$out_dir/ezpz-yeet-mpi.tmp"
mv "$out_dir/ezpz-yeet-mpi.tmp" "$out_dir/ezpz-yeet-mpi"
log "wrote $out_dir/ezpz-yeet-mpi ($(stat -c %s "$out_dir/ezpz-yeet-mpi") bytes; GLIBC_$glibc_max at most; NEEDED $(echo "$needed" | tr '\n' ' ')) in $((SECONDS - start))s"
