#!/usr/bin/env bash
# The Python module's submit and status against the real Slurm cluster on localhost: pytest's
# test_submit_and_status_on_the_real_slurm (tests/python/test_api.py) must run and pass, not skip.
#   slurm_api_test.sh CLUSTER_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=../slurm/lib.sh
source "$here/../slurm/lib.sh"
cluster=$1
[[ -n ${EZPZ_PYTHONPATH:-} && -f $EZPZ_PYTHONPATH/ezpz/__init__.py ]] ||
  cannot_run "EZPZ_PYTHONPATH does not name a built ezpz Python package"
/usr/bin/python3 -c 'import pytest' 2>/dev/null || cannot_run "/usr/bin/python3 cannot import pytest (Debian python3-pytest)"
enter_cluster "$cluster"
PYTHONPATH=$EZPZ_PYTHONPATH EZPZ_SLURM_TEST=1 /usr/bin/python3 -m pytest -q -p no:cacheprovider -k real_slurm \
  "$here/test_api.py" >"$workdir/out" 2>&1
status=$?
sed 's/^/    /' "$workdir/out"
check "pytest exits 0 (exit $status)" test "$status" -eq 0
check "the real-Slurm test ran and passed" grep -qE '^1 passed' "$workdir/out"
finish
