#!/usr/bin/env bash
# Checks one batch script: bash -n parses it, shellcheck finds nothing.
set -euo pipefail
script=$1
bash -n "$script"
shellcheck --shell=bash --severity=style "$script"
