"""The torchrun side of bench/launch: what `ezpz test --quick` does, in Python.

Run by `torchrun --standalone --nproc_per_node N bench/launch_allreduce.py` with Debian's
python3-torch (/usr/bin/python3). Every rank joins the gloo process group through torchrun's
environment (env://), all-reduces one tensor holding rank + 1 (the same 1024 float32 elements
ezpz-torch-test --quick reduces), checks that every element is N(N+1)/2, and tears the group
down. Rank 0 prints one line. Exit status 1 if the check fails on this rank.
"""

import sys

import torch
import torch.distributed as dist


def main() -> int:
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    tensor = torch.full((1024,), float(rank + 1), dtype=torch.float32)
    dist.all_reduce(tensor)
    expected = world * (world + 1) / 2
    ok = bool((tensor == expected).all())
    dist.destroy_process_group()
    if not ok:
        print(f"launch_allreduce: rank {rank}: expected every element to be {expected:g}, "
              f"got {tensor.min().item():g} to {tensor.max().item():g}", file=sys.stderr)
        return 1
    if rank == 0:
        print(f"launch_allreduce: {world} ranks: all-reduce OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
