#!/usr/bin/env bash
# tests/python/training_api_check.py under `ezpz launch -n N` on the CPU: the training API across real
# ranks (barrier, all_reduce, broadcast, get_dist_info, seed_everything, wrap_model, tensor parallel
# groups), and the logger's line printed by rank 0 alone.
#   training_api_test.sh EZPZ N
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
ezpz=$1
n=$2
require_torch
use_test_package
# Nothing from an outer job or launcher may leak in.
unset EZPZ_SYSTEM RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT TORCH_DEVICE TORCH_BACKEND \
  EZPZ_LOG_FROM_ALL_RANKS LOG_FROM_ALL_RANKS EZPZ_LOG_LEVEL LOG_LEVEL
mkdir -p "$workdir/marks"
# A port of its own: other tests may run beside this one (outside a job every run would take 29500).
MASTER_PORT=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export MASTER_PORT
timeout -k 5 240 "$ezpz" launch --system local -n "$n" -- "$python" "$here/training_api_check.py" "$workdir/marks" \
  >"$workdir/out" 2>"$workdir/err"
status=$?
echo "--- ezpz launch -n $n training_api_check.py: exit $status"
sed 's/^/    out: /' "$workdir/out"
sed 's/^/    err: /' "$workdir/err"
check "ezpz launch -n $n exits 0" test "$status" -eq 0
for ((r = 0; r < n; r++)); do
  check "rank $r of $n: OK" grep -qx "training_api_check: rank $r/$n OK" "$workdir/out"
done
check "the logger's line printed once, by rank 0" test "$(grep -c 'LOGLINE from rank' "$workdir/out")" -eq 1
check "... in the Python ezpz's format" \
  grep -qE '^\[[0-9-]+ [0-9:]+\]\[I\]\[python/training_api_check:[0-9]+:main\] LOGLINE from rank 0$' "$workdir/out"
finish
