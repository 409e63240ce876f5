#!/usr/bin/env bash
# Makes the release artifacts into dist/: the wheel, the tarball and SHA256SUMS (docs/install.md).
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: scripts/release.sh [--build-dir DIR] [--out DIR] [--host-yeet-helper]

Makes, from this checkout:
  ezpz-<version>-py3-none-manylinux_2_N_<arch>.whl   one wheel for every CPython >= 3.9 on glibc >= 2.N:
                                                      the static ezpz and ezpz-yeet-mpi as scripts (on the
                                                      environment's PATH), the Python package, man pages
                                                      and completions (tools/ezpz_wheel.py)
  ezpz-<version>-linux-<arch>.tar.gz                 ezpz-<version>/: bin/ (ezpz, ezpz-yeet-mpi), share/
                                                      (profiles, schedulers, templates, man pages,
                                                      completions), lib/python3/site-packages/ezpz,
                                                      LICENSE and README.md; runs from where it is unpacked
  SHA256SUMS                                          of both
Both hold the same tree: what `cmake --install --component runtime --strip` puts under a prefix.

  --build-dir DIR     the CMake build to install from (default build/; configured and built when needed)
  --out DIR           where the artifacts go (default dist/); earlier artifacts of the version are replaced
  --host-yeet-helper  keep the ezpz-yeet-mpi built on this machine instead of building the portable one
                      (glibc 2.31, the machine's libmpi.so.12) with scripts/build-yeet-helper.sh: for a
                      quick local try only, the wheel's tag then says this machine's glibc

The same checkout gives the same bytes (times come from the last commit, or SOURCE_DATE_EPOCH).
Exit status: 0 done, 1 a step failed (its output says which), 2 usage.
USAGE
}

root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$root/build
out=$root/dist
host_helper=0
while (($#)); do
  case $1 in
    --build-dir) build_dir=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --host-yeet-helper) host_helper=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

log() { echo "ezpz release: $*" >&2; }
die() { log "error: $*"; exit 1; }

version=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import ezpz_wheel; print(ezpz_wheel.version())' "$root/tools")
arch=$(uname -m)
if [[ -z ${SOURCE_DATE_EPOCH:-} ]]; then
  SOURCE_DATE_EPOCH=$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 315532800)
fi
export SOURCE_DATE_EPOCH

if [[ ! -f $build_dir/CMakeCache.txt ]]; then
  log "configuring $build_dir"
  EZPZ_BUILD_DIR=$build_dir "$root/scripts/build.sh" -DEZPZ_BUILD_TESTS=OFF >&2
fi
log "building $build_dir"
cmake --build "$build_dir" --parallel "$(nproc)" >&2

mkdir -p "$out"
work=$(mktemp -d "$out/.release.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/ezpz-$version
cmake --install "$build_dir" --prefix "$stage" --component runtime --strip >"$work/install.log" ||
  { cat "$work/install.log" >&2; die "cmake --install --component runtime failed"; }
[[ -x $stage/bin/ezpz ]] || die "the runtime component has no bin/ezpz"

if ((host_helper)); then
  log "keeping this machine's ezpz-yeet-mpi (--host-yeet-helper)"
else
  log "building the portable ezpz-yeet-mpi (scripts/build-yeet-helper.sh)"
  "$root/scripts/build-yeet-helper.sh" "$stage/bin" >&2 || die "scripts/build-yeet-helper.sh failed"
fi

wheel=$(python3 "$root/tools/ezpz_wheel.py" "$stage" "$work")

# The tarball: the same tree, with the licence and how to use it.
cp "$root/LICENSE" "$stage/LICENSE"
cp "$root/docs/tarball-readme.md" "$stage/README.md"
tarball=ezpz-$version-linux-$arch.tar.gz
tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
  --mode='u+rw,go+r-w,a-s' -cf - "ezpz-$version" | gzip -9n >"$work/$tarball"

(cd "$work" && sha256sum "$wheel" "$tarball" >SHA256SUMS)
rm -f "$out"/ezpz-"$version"-*.whl "$out/$tarball"
mv "$work/$wheel" "$work/$tarball" "$work/SHA256SUMS" "$out/"
log "made in $out:"
(cd "$out" && cat SHA256SUMS) >&2
