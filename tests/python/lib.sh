# shellcheck shell=bash
# Shared by the Python PyTorch tests (sourced after tests/e2e/lib.sh): Debian's /usr/bin/python3 with torch.

# The interpreter the tests run (a `python3` on PATH may be a pyenv build without torch), or
# $EZPZ_TEST_PYTHON: a venv's python with the ezpz wheel installed (tests/release/venv_test.sh).
python=${EZPZ_TEST_PYTHON:-/usr/bin/python3}
# shellcheck disable=SC2034 # for the tests that source this
ddp_check="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/ddp_check.py"

# Exits the test unless $python can import torch (cannot_run in tests/e2e/lib.sh, which callers source
# first: skipped on a developer's machine, failed under CI=true, where install-deps installs python3-torch).
require_torch() {
  local why=
  if [[ ! -x $python ]]; then
    why="$python is missing"
  elif ! "$python" -c 'import torch, torch.distributed, torch.nn.parallel' 2>/dev/null; then
    why="$python cannot import torch"
  else
    return 0
  fi
  cannot_run "$why: install Debian's python3-torch (apt-get install python3-torch, or scripts/install-deps.sh test)"
}

# Makes the ezpz Python package under test importable: the build's ($EZPZ_PYTHONPATH), unless
# $EZPZ_TEST_PYTHON is a venv's python that has the wheel installed.
use_test_package() {
  [[ -n ${EZPZ_TEST_PYTHON:-} ]] && return 0
  [[ -n ${EZPZ_PYTHONPATH:-} && -f $EZPZ_PYTHONPATH/ezpz/__init__.py ]] ||
    cannot_run "EZPZ_PYTHONPATH does not name a built ezpz Python package"
  export PYTHONPATH=$EZPZ_PYTHONPATH
}

# broken_lines FILE...: the lines where ddp_check's text does not start the line or appears twice,
# that is, lines of two ranks cut into each other.
broken_lines() {
  grep -ahE '.ddp_check: |ddp_check: .*ddp_check: ' "$@"
}
