#!/usr/bin/env bash
# One command from a fresh Debian 12 machine: install what is missing, build, render the example job.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" build >&2
"$root/scripts/build.sh" >&2
echo "ezpz: rendering examples/aurora-llama.yaml for Aurora:" >&2
"$root/build/ezpz" render "$root/examples/aurora-llama.yaml"
