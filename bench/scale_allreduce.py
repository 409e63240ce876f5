"""The program bench/scale launches on simulated nodes: when did each rank get where.

Run by `ezpz launch` (one rank per simulated node) with Debian's python3-torch (/usr/bin/python3).
Each rank notes the wall clock as its first statement (the launch reached the program), after
`import torch`, after joining the gloo process group (rendezvous through MASTER_ADDR and MASTER_PORT,
which ezpz set), and after its first all-reduce, which it checks. Every rank prints one line:
"scale_allreduce: rank R of N start T0 import T1 init T2 allreduce T3" (seconds since the epoch).
Exit status 1 if the all-reduce is wrong on this rank.
"""

import time

START = time.time()

import sys  # noqa: E402

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402


def main() -> int:
    imported = time.time()
    dist.init_process_group("gloo")
    joined = time.time()
    rank, world = dist.get_rank(), dist.get_world_size()
    tensor = torch.full((1024,), float(rank + 1), dtype=torch.float32)
    dist.all_reduce(tensor)
    reduced = time.time()
    ok = bool((tensor == world * (world + 1) / 2).all())
    print(f"scale_allreduce: rank {rank} of {world} start {START:.6f} import {imported:.6f} "
          f"init {joined:.6f} allreduce {reduced:.6f}", flush=True)
    dist.destroy_process_group()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
