#!/usr/bin/env bash
# One command from a fresh Debian 12 machine: install what is missing, build the ezpz command, render the
# example job. Only the command is built (not the test suite): ./scripts/test.sh builds the rest later in
# the same build/, and its configure finds what was installed since (LibTorch is looked for every time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" build >&2
"$root/scripts/build.sh" --target ezpz -DEZPZ_BUILD_TESTS=OFF >&2
echo "ezpz: rendering examples/aurora-llama.yaml for Aurora:" >&2
"$root/build/ezpz" render "$root/examples/aurora-llama.yaml"
