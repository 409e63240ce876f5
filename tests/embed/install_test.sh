#!/usr/bin/env bash
# The installed package: `cmake --install` into a new prefix, then examples/embed configured against it
# with CMAKE_PREFIX_PATH (find_package(ezpz)) and with pkg-config, built and run; the installed public
# headers include nothing but the standard library and each other; libezpz.so exports only namespace
# ezpz; find_package(ezpz COMPONENTS torch) gives ezpz::torch; and Debian's python3 imports the
# installed Python package without importing torch, and it runs the installed ezpz; every module of
# src/python/ezpz is installed, subpackages in their folders.
#   install_test.sh BUILD_DIR SOURCE_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
build=$1
source_dir=$2
prefix=$workdir/prefix

cmake --install "$build" --prefix "$prefix" >"$workdir/install.log" 2>&1
code=$?  # before the message: its $(…) would set $? first
check "cmake --install exits 0 ($(tail -n 3 "$workdir/install.log"))" test "$code" -eq 0
check "the library is installed with its version" test -e "$prefix/lib/libezpz.so.0.1"
check "the CMake package is installed" test -f "$prefix/lib/cmake/ezpz/ezpzConfig.cmake"

# The library exports the public API and nothing else (cmake/ezpz.map): every defined dynamic symbol is
# in namespace ezpz, none in ezpz::core or another library linked into it.
exports=$(nm -D --defined-only -C "$prefix/lib/libezpz.so.0.1" | cut -d' ' -f3-)
others=$( (grep -vE '(^|[ (<,])ezpz::' <<<"$exports"; grep 'ezpz::core' <<<"$exports") | head -c 300)
check "libezpz.so exports only namespace ezpz ($(wc -l <<<"$exports") symbols; others: $others)" \
  test -n "$exports" -a -z "$others"

# Every #include of an installed public header is a standard header or another ezpz header.
foreign=$(grep -h '#include' "$prefix"/include/ezpz/*.hpp | grep -vE '#include (<[a-z_]+>|"ezpz/[a-z_]+\.hpp")')
check "public headers include only the standard library and ezpz (found: $foreign)" test -z "$foreign"

expected_output() {  # the lines examples/embed prints, whatever else it says
  grep -qx 'nodes = 4 from set nodes=4' "$1" &&
    grep -qx "problem: broken.yaml:2:1: unknown key 'nodez' (did you mean 'nodes'?)" "$1" &&
    grep -qx 'job id: 4242' "$1" &&
    grep -qx 'rank 3 of 4 (local 1, PMI, MPICH): cpu, gloo' "$1" &&
    grep -qx "error: unknown system 'nowhere'" "$1"
}

cmake -S "$source_dir/examples/embed" -B "$workdir/embed" -DCMAKE_PREFIX_PATH="$prefix" >"$workdir/configure.log" 2>&1 &&
  cmake --build "$workdir/embed" >"$workdir/build.log" 2>&1
code=$?
check "examples/embed builds against the installed package ($(tail -n 5 "$workdir/configure.log" "$workdir/build.log"))" \
  test "$code" -eq 0
"$workdir/embed/embed" "$workdir/records" >"$workdir/embed.out" 2>&1
code=$?
sed 's/^/    cmake: /' "$workdir/embed.out"
check "the example runs (exit $code)" test "$code" -eq 0
check "the example resolves, validates, renders, submits and sets up a rank" expected_output "$workdir/embed.out"

flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs ezpz)
# shellcheck disable=SC2086 # pkg-config's flags are words
g++ "$source_dir/examples/embed/main.cpp" $flags -Wl,-rpath,"$prefix/lib" -o "$workdir/embed-pc" 2>"$workdir/pc.log"
code=$?
check "the example builds with pkg-config ezpz ($flags; $(head -n 3 "$workdir/pc.log"))" test "$code" -eq 0
"$workdir/embed-pc" "$workdir/records-pc" >"$workdir/embed-pc.out" 2>&1
check "the pkg-config build runs the same" expected_output "$workdir/embed-pc.out"

if [[ -f $prefix/lib/cmake/ezpz/ezpzTorchTargets.cmake ]]; then
  mkdir -p "$workdir/torch"
  cat >"$workdir/torch/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(uses_torch LANGUAGES CXX)
find_package(ezpz REQUIRED COMPONENTS torch)
if(NOT TARGET ezpz::torch OR NOT TARGET ezpz::ezpz)
  message(FATAL_ERROR "ezpz::torch or ezpz::ezpz is missing")
endif()
CMAKE
  cmake -S "$workdir/torch" -B "$workdir/torch/build" -DCMAKE_PREFIX_PATH="$prefix" >"$workdir/torch.log" 2>&1
  code=$?
  check "find_package(ezpz COMPONENTS torch) gives ezpz::torch ($(tail -n 3 "$workdir/torch.log"))" test "$code" -eq 0
fi

site=$prefix/lib/python3/site-packages
check "the Python package is installed under lib/python3/site-packages" test -f "$site/ezpz/__init__.py"
# Every module of the package, subpackages (ezpz/examples …) in their folders.
missing=$(cd "$source_dir/src/python" && find ezpz -name '*.py' | while read -r module; do
  [[ -f $site/$module ]] || echo "$module"; done)
check "every module of src/python/ezpz is installed in its folder (missing: $missing)" test -z "$missing"
check "the example package is among them" test -f "$site/ezpz/examples/minimal.py"
answer=$(cd "$workdir" && PYTHONPATH=$site /usr/bin/python3 -c \
  'import sys, ezpz; print(ezpz.__file__.startswith(sys.argv[1]), "torch" in sys.modules, len(ezpz.systems()), ezpz._api.executable())' "$site" 2>&1)
check "Debian's python3 imports the installed module, without torch, and runs the installed ezpz (got: $answer)" \
  grep -qxE "True False [0-9]+ $prefix/bin/ezpz" <<<"$answer"
finish
