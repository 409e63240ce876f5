#!/bin/sh
# A rank of the fail-fast tests (tests/e2e/fail_fast_test.sh, tests/slurm/fail_fast_test.sh): rank 1
# waits until the other three have started (so that stopping them is what is tested), then exits 3;
# the others record their PID in DIR and sleep, as ranks waiting in a rendezvous would.
#   fail_fast_rank.sh DIR
dir=$1
if [ "$RANK" = 1 ]; then
  for _ in $(seq 400); do
    [ "$(find "$dir" -type f | wc -l)" -ge 3 ] && exit 3
    sleep 0.05
  done
  exit 3
fi
echo $$ >"$dir/$RANK"
exec sleep 300
