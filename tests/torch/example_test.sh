#!/usr/bin/env bash
# examples/torch_ddp on 2 local ranks: both exit 0, rank 0 prints the loss going down and confirms that
# every rank holds the same parameters.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
program=$1

run_ranks 2 train "$program" --steps 100
show_ranks 2 train
out=$workdir/train.0.out
check "rank 0 exits 0" test "$(rank_status train 0)" -eq 0
check "rank 1 exits 0" test "$(rank_status train 1)" -eq 0
check "rank 0 names the world size and backend" grep -q '^ezpz-example-train: 2 rank(s), backend gloo, device cpu' "$out"
check "rank 0 prints the loss" grep -Eq '^step +100  loss [0-9.]+' "$out"
check "the parameters are identical on both ranks" grep -q '^parameters identical on all 2 rank(s)' "$out"
check "the loss went down" grep -q '^loss went from ' "$out"
check "rank 1 prints nothing on stdout" test ! -s "$workdir/train.1.out"
finish
