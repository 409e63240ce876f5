#!/usr/bin/env bash
# The build from source without root (docs/install.md, "From source, without root"), offline: every library
# of cmake/dependencies.cmake built from its pinned source tarball (EZPZ_FETCH_DEPENDENCIES=ON) taken from a
# directory of the tarballs (EZPZ_DEPENDENCY_MIRROR), in a network namespace with no network; the ezpz it
# builds renders examples/aurora-llama.yaml byte for byte as the normal build's ezpz does.
#
#   source_build_test.sh SOURCE_DIR EZPZ
#
# The tarballs are downloaded once into ${EZPZ_CACHE_DIR:-/var/cache/ezpz}/sources (cmake -P
# cmake/dependencies.cmake, SHA-256 checked) and reused by later runs. Only the ezpz target is built,
# -O0 without -g, with EZPZ_BUILD_JOBS (2) jobs (a Release build took 4.5 minutes and 8.5 CPU-minutes on 2 cores).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
(($# == 2)) || { echo "usage: $0 SOURCE_DIR EZPZ" >&2; exit 2; }
source_dir=$1
ezpz=$2

for tool in cmake ninja unshare; do
  command -v "$tool" >/dev/null || cannot_run "no $tool (scripts/install-deps.sh: cmake, ninja-build; util-linux)"
done

cache=${EZPZ_CACHE_DIR:-/var/cache/ezpz}/sources
if ! mkdir -p "$cache" 2>/dev/null || [[ ! -w $cache ]]; then
  cannot_run "$cache is not writable (set EZPZ_CACHE_DIR)"
fi
cache=$(cd "$cache" && pwd -P)
if ! cmake -DEZPZ_DOWNLOAD_DIR="$cache" -P "$source_dir/cmake/dependencies.cmake" >"$workdir/download.log" 2>&1; then
  cat "$workdir/download.log" >&2
  # A tarball that arrives with another SHA-256 is a wrong pin, not a missing network.
  if grep -qi 'hash mismatch' "$workdir/download.log"; then
    echo "FAIL: a downloaded tarball does not have the SHA-256 of cmake/dependencies.cmake" >&2
    exit 1
  fi
  cannot_run "the pinned source tarballs are not all in $cache and cannot be downloaded"
fi

# No network from here on: a namespace of its own (as an unprivileged user, inside a user namespace too).
offline=(unshare -n)
((EUID == 0)) || offline=(unshare -r -n)
"${offline[@]}" true 2>/dev/null || cannot_run "no network namespace (${offline[*]})"
interfaces=$("${offline[@]}" cat /proc/net/dev | awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' | tr '\n' ' ')
check "the namespace has no network interface but lo ($interfaces)" test "$interfaces" = "lo "

# The build tree (1 GB, Boost's 60,000 files among it) goes to memory when there is room: unpacking and
# removing it on a disk shared with other builds cost more than a minute here.
build=$workdir/build
if [[ -d /dev/shm && -w /dev/shm ]] && (($(df --output=avail -k /dev/shm | tail -n 1) > 3 * 1024 * 1024)); then
  build=$(mktemp -d /dev/shm/ezpz-source-build.XXXXXX) || exit 1
  trap 'rm -rf "$workdir" "$build"' EXIT
fi
start=$SECONDS
# -O0 without -g: what is tested is where every library comes from and that the result works, not the
# optimiser, and it halves the compile time (the whole CI run must fit in 45 minutes on 2 cores). A Debug
# build with its flags replaced: libarchive's CMake refuses build types other than the four usual ones.
if ! "${offline[@]}" cmake -S "$source_dir" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
       -DCMAKE_C_FLAGS_DEBUG=-O0 -DEZPZ_BUILD_TESTS=OFF \
       -DEZPZ_BUILD_TORCH=OFF -DEZPZ_FETCH_DEPENDENCIES=ON -DEZPZ_DEPENDENCY_MIRROR="$cache" \
       >"$workdir/configure.log" 2>&1; then
  tail -n 40 "$workdir/configure.log" >&2
  echo "FAIL: the configure with EZPZ_FETCH_DEPENDENCIES=ON and the mirror fails offline" >&2
  exit 1
fi
configured=$SECONDS
if ! "${offline[@]}" cmake --build "$build" --target ezpz -j "${EZPZ_BUILD_JOBS:-2}" >"$workdir/build.log" 2>&1; then
  tail -n 40 "$workdir/build.log" >&2
  echo "FAIL: the ezpz target does not build from the pinned sources" >&2
  exit 1
fi
echo "configure $((configured - start)) s, build of ezpz $((SECONDS - configured)) s"

for name in yaml-cpp nlohmann_json cli11 boost xxhash libarchive re2; do
  check "$name is built from the mirror's tarball" grep -qF -- "-- $name: building it from $cache/" "$workdir/configure.log"
done
# Not one header or library of the system's copies reached the build.
system_files=$(cd "$build" && ninja -t deps | grep -E '/usr/(local/)?include/(yaml-cpp|boost|nlohmann|CLI|xxhash\.h|archive|re2/)')
check "no system header of the fetched libraries is used ($(head -n 3 <<<"$system_files" | tr -s ' \n' ' '))" \
  test -z "$system_files"
system_libraries=$(grep -oE '(^| )/[^ ]*lib(yaml-cpp|boost_filesystem|xxhash|archive|re2)\.(a|so)[^ ]*' "$build/build.ninja" |
                   sort -u)
check "no system library of the fetched libraries is linked ($(head -n 3 <<<"$system_libraries" | tr '\n' ' '))" \
  test -z "$system_libraries"

# Rendered scripts name the ezpz that rendered them, unless EZPZ_BIN says otherwise.
export HOME=$workdir/home EZPZ_SYSTEMS_PATH='' EZPZ_BIN=/opt/ezpz/bin/ezpz
spec=$source_dir/examples/aurora-llama.yaml
check "the normal build's ezpz renders the example" "$ezpz" render "$spec" -o "$workdir/expected.sh"
check "the source build's ezpz renders the example" "$build/ezpz" render "$spec" -o "$workdir/actual.sh"
check "the source build's ezpz renders the example as the normal build's does ($(diff "$workdir/expected.sh" \
  "$workdir/actual.sh" | head -n 4 | tr '\n' '|'))" cmp -s "$workdir/expected.sh" "$workdir/actual.sh"
check "both print the same --version" test "$("$ezpz" --version)" = "$("$build/ezpz" --version)"
finish
