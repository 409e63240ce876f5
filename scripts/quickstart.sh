#!/usr/bin/env bash
# One command from a fresh Debian 12 machine: install what is missing, build the ezpz command, render the
# example job. Only the command is built (not the test suite): ./scripts/test.sh builds the rest later in
# the same build/, and its configure finds what was installed since (LibTorch is looked for every time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" build >&2
# Without debug information (-O2 as RelWithDebInfo, no -g): the first render needs none, and writing it
# is a good part of the compile time on a 2-core machine. The flags stay in build/'s cache for test.sh.
"$root/scripts/build.sh" --target ezpz -DEZPZ_BUILD_TESTS=OFF "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" >&2
echo "ezpz: rendering examples/aurora-llama.yaml for Aurora:" >&2
"$root/build/ezpz" render "$root/examples/aurora-llama.yaml"
