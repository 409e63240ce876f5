#!/usr/bin/env bash
# ezpz.History across N ranks of `ezpz launch` (tests/python/history_ranks.py): rank 0 records each
# metric's mean, max, min and population std across the ranks, equal to a hand computation; its summary
# line shows the std as (±…), the other ranks' lines show their own values; every rank's JSONL records
# are whole lines, only rank 0's with the statistics; finalize's metrics.csv has their columns.
#   history_ranks_test.sh EZPZ N
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
ezpz=$1
n=$2
require_torch
use_test_package
unset EZPZ_SYSTEM RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT TORCH_DEVICE TORCH_BACKEND \
  EZPZ_NO_DISTRIBUTED_HISTORY EZPZ_LOCAL_HISTORY EZPZ_TRACKER_BACKENDS EZPZ_TRACKERS

timeout -k 5 240 "$ezpz" launch --system local -n "$n" -- "$python" "$here/history_ranks.py" "$workdir" \
  >"$workdir/out" 2>"$workdir/err"
status=$?
echo "--- $n ranks: exit $status"
grep '^history_ranks' "$workdir/out" | sed 's/^/    out: /'
sed 's/^/    err: /' "$workdir/err" | grep -v 'Saving\|Output files\|  [A-Z][A-Za-z ()]*: /' | head -n 40
check "the run on $n ranks exits 0" test "$status" -eq 0
for ((r = 0; r < n; r++)); do
  check "rank $r finishes" grep -qx "history_ranks: rank $r of $n done" "$workdir/out"
done
# Rank 1's line is its own values alone; rank 0's has the spread across ranks, worked out by hand for 4
# ranks at step 2: loss 1.5, 3, 4.5, 6 (mean 3.75, std sqrt(2.8125) = 1.68), acc 0, .25, .5, .75 (mean
# .375, std sqrt(.078125) = 0.28); at step 0 loss .5, 1, 1.5, 2 (std sqrt(.3125) = 0.56).
check "rank 1's summary line has no statistics" \
  grep -qxF "history_ranks: rank 1 step 2: iter=2    loss=3.000000 acc=0.250000" "$workdir/out"
if ((n == 4)); then
  check "rank 0's summary line at step 0 has loss's std across 4 ranks" \
    grep -qxF "history_ranks: rank 0 step 0: iter=0    loss=0.500000(±0.56) acc=0.000000(±0.28)" "$workdir/out"
  check "rank 0's summary line at step 2 has the std of loss and acc across 4 ranks" \
    grep -qxF "history_ranks: rank 0 step 2: iter=2    loss=1.500000(±1.7) acc=0.000000(±0.28)" "$workdir/out"
fi

# What rank 0 recorded, the JSONL records and metrics.csv, against the same values computed here.
check "rank 0's statistics, JSONL records and metrics.csv are the hand computation's" \
  "$python" - "$workdir" "$n" <<'PYTHON'
import csv, json, math, sys

workdir, n = sys.argv[1], int(sys.argv[2])
problems = []
recorded = json.load(open(f"{workdir}/history.json"))
history = recorded["history"]
if recorded["distributed_history"] is not True:
    problems.append("distributed_history is off")
for step in range(3):
    for name, values in (("loss", [(r + 1) * (step + 1) / 2 for r in range(n)]), ("acc", [r / 4 for r in range(n)]),
                         ("iter", [step] * n)):
        mean = sum(values) / n
        expected = {"mean": mean, "max": max(values), "min": min(values),
                    "std": math.sqrt(sum((v - mean) ** 2 for v in values) / n)}
        for stat, value in expected.items():
            got = history[f"{name}/{stat}"][step]
            if not math.isclose(got, value, rel_tol=1e-9, abs_tol=1e-12):
                problems.append(f"step {step}: {name}/{stat} is {got}, expected {value}")
records = [json.loads(line) for line in open(f"{workdir}/final/metrics.jsonl")]
by_rank = {}
for record in records:
    by_rank.setdefault(record["rank"], []).append(record)
if sorted(by_rank) != list(range(n)) or any(len(v) != 3 for v in by_rank.values()):
    problems.append(f"JSONL: {len(records)} records from ranks {sorted(by_rank)}, expected 3 from each of {n}")
for rank, rank_records in by_rank.items():
    for step, record in enumerate(rank_records):
        if record["metrics"]["loss"] != (rank + 1) * (step + 1) / 2:
            problems.append(f"JSONL: rank {rank} step {step} loss {record['metrics']['loss']}")
        if ("aggregated" in record) != (rank == 0):
            problems.append(f"JSONL: rank {rank}'s record {'has' if rank else 'lacks'} the statistics")
        elif rank == 0 and record["aggregated"]["loss/mean"] != history["loss/mean"][step]:
            problems.append("JSONL: rank 0's loss/mean is not what it recorded")
rows = list(csv.DictReader(open(f"{workdir}/final/metrics.csv", newline="")))
if len(rows) != 3 or not {"loss/mean", "loss/max", "loss/min", "loss/std", "step"} <= set(rows[0]):
    problems.append(f"metrics.csv: {len(rows)} rows, columns {list(rows[0]) if rows else []}")
elif [float(r["loss/max"]) for r in rows] != [n * (s + 1) / 2 for s in range(3)]:
    problems.append(f"metrics.csv: loss/max {[r['loss/max'] for r in rows]}")
for problem in problems:
    print(f"    {problem}")
sys.exit(1 if problems else 0)
PYTHON
if "$python" -c 'import matplotlib' 2>/dev/null; then
  check "rank 0 plotted loss with its statistics (PNG and SVG)" \
    test -s "$workdir/final/plots/mplot/pngs/loss.png" -a -s "$workdir/final/plots/mplot/svgs/loss.svg"
fi
check "rank 0 wrote the text plots of loss with its statistics" \
  test -s "$workdir/final/plots/tplot/loss_summary.txt" -a -s "$workdir/final/plots/tplot/loss_hist.txt"
finish
