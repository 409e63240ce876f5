#!/usr/bin/env bash
# The CTest fixture slurm_cluster: `fixture.sh start|stop DIR` runs cluster.sh after checking that
# Slurm can run here (skipped without it on a developer's machine, a failure in CI).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
case ${1:-} in
  start)
    require_slurm
    "$here/cluster.sh" start "$2"
    ;;
  stop) "$here/cluster.sh" stop "$2" ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
