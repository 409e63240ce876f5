#!/usr/bin/env bash
# Configures and builds ezpz into build/ (or $EZPZ_BUILD_DIR).
#   build.sh [--target NAME]... [CMAKE-ARGUMENT]...
# --target builds only that target (and what it needs); the rest of the arguments go to cmake's configure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${EZPZ_BUILD_DIR:-$root/build}
targets=()
while (($#)) && [[ $1 == --target ]]; do
  targets+=(--target "$2")
  shift 2
done
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$build_dir" --parallel "$(nproc)" "${targets[@]}"
