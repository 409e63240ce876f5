#!/usr/bin/env bash
# The CTest fixture pbs_server: `fixture.sh start|stop DIR` runs server.sh after checking that the
# OpenPBS tarball is there (skipped without it on a developer's clone, a failure in CI).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
case ${1:-} in
  start)
    require_openpbs
    EZPZ_OPENPBS_DIR=$(openpbs_dir) "$here/server.sh" start "$2"
    ;;
  stop) "$here/server.sh" stop "$2" ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
