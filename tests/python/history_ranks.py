"""ezpz.History on every rank of a launch (tests/python/history_ranks_test.sh): rank r records
loss = (r + 1)(step + 1)/2 and acc = r/4 at steps 0, 1 and 2 and prints each summary line; rank 0 then
writes what it recorded (history.json) and finalizes into OUTDIR/final. Every rank appends to
OUTDIR/metrics.jsonl.

    history_ranks.py OUTDIR
"""
import json
import os
import sys

import ezpz
from ezpz.history import History

outdir = sys.argv[1]
rank = ezpz.setup_torch(timeout=60)
import torch.distributed as dist  # noqa: E402 - the process group is up

history = History(jsonl_path=os.path.join(outdir, "metrics.jsonl"))
for step in range(3):
    line = history.update({"iter": step, "loss": (rank + 1) * (step + 1) / 2, "acc": rank / 4}, step=step)
    print(f"history_ranks: rank {rank} step {step}: {line}", flush=True)
dist.barrier()  # every rank's JSONL lines are written before rank 0 moves the file
if rank == 0:
    with open(os.path.join(outdir, "history.json"), "w", encoding="utf-8") as handle:
        json.dump({"distributed_history": history.distributed_history, "history": history.history}, handle)
    history.finalize(outdir=os.path.join(outdir, "final"))
dist.barrier()
print(f"history_ranks: rank {rank} of {dist.get_world_size()} done", flush=True)
ezpz.cleanup()
