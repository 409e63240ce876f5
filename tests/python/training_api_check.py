#!/usr/bin/env python3
"""The training API across real ranks, for ctest python.training_api_<N>_ranks (training_api_test.sh):
run under `ezpz launch -n N` on the CPU (gloo). Each rank checks setup_torch with a seed and tensor
parallel groups, the topology getters, barrier (no rank passes it before every rank reached it),
all_reduce, broadcast, get_dist_info, seed_everything's same values on every rank, wrap_model (DDP on
the CPU) keeping parameters equal, and logs one line through ezpz.get_logger, which only rank 0 prints.
Each rank prints "training_api_check: rank R/N OK" or the problems, and exits 1 on any.

    ezpz launch -n 4 -- /usr/bin/python3 training_api_check.py DIR
"""
import os
import random
import sys
import time

import torch
import torch.distributed as dist

import ezpz


def main(workdir):
    problems = []

    def check(what, ok):
        if not ok:
            problems.append(what)

    tensor_parallel = 2 if int(os.environ.get("WORLD_SIZE", "1")) % 2 == 0 else 1
    rank = ezpz.setup_torch(seed=7, tensor_parallel_size=tensor_parallel)
    n, local = ezpz.get_world_size(), ezpz.get_local_rank()
    check("rank is torch's rank", rank == dist.get_rank() == ezpz.get_rank())
    check("world size is torch's", n == dist.get_world_size())
    check("one node, local rank = rank", (ezpz.get_num_nodes(), ezpz.get_node_index(), local) == (1, 0, rank))
    check("cpu: no accelerators, total = ranks", (ezpz.get_gpus_per_node(), ezpz.get_world_size(total=True)) == (0, n))
    check("setup_torch's seed is seed*(rank+1)*(local_rank+1)", torch.initial_seed() == 7 * (rank + 1) * (local + 1))
    if tensor_parallel == 2:
        base = rank - rank % 2
        check("tensor group", ezpz.tp.get_tensor_parallel_ranks() == [base, base + 1])
        check("data group", ezpz.tp.get_data_parallel_ranks() == list(range(rank % 2, n, 2)))
        value = torch.tensor([rank + 1.0])
        dist.all_reduce(value, group=ezpz.tp.get_tensor_parallel_group())
        check("all_reduce in the tensor group", value.item() == 2 * base + 3)

    # barrier: rank r arrives r × 0.2 s late; after it, every rank's mark must be there.
    time.sleep(0.2 * rank)
    open(os.path.join(workdir, f"arrived-{rank}"), "w").close()
    ezpz.barrier()
    check("barrier waited for every rank", all(os.path.exists(os.path.join(workdir, f"arrived-{r}")) for r in range(n)))

    check("all_reduce sum", ezpz.all_reduce(rank + 1) == n * (n + 1) // 2)
    check("all_reduce max", ezpz.all_reduce(rank, op="max") == n - 1)
    check("all_reduce list", ezpz.all_reduce([1, rank]) == [n, n * (n - 1) // 2])
    check("broadcast", ezpz.broadcast({"from": rank}, root=n - 1) == {"from": n - 1})
    info = ezpz.get_dist_info()
    check("get_dist_info", (info["RANK"], info["world_size"], info["NUM_NODES"], info["DEVICE"],
                            info["DISTRIBUTED_BACKEND"]) == (rank, n, 1, "cpu", "gloo"))

    ezpz.seed_everything(1234)
    drawn = (torch.rand(3).tolist(), random.random())
    everyone = [None] * n
    dist.all_gather_object(everyone, drawn)
    check("seed_everything gives every rank the same values", all(d == everyone[0] for d in everyone))

    torch.manual_seed(100 + rank)  # different weights: DDP must make them equal
    model = ezpz.wrap_model(torch.nn.Linear(4, 2), dtype="bfloat16")
    check("wrap_model on the cpu is DDP", isinstance(model, torch.nn.parallel.DistributedDataParallel))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.randn(8, 4)).sum().backward()
    optimizer.step()
    weights = [None] * n
    dist.all_gather_object(weights, model.module.weight.detach().tolist())
    check("parameters equal on every rank after a step", all(w == weights[0] for w in weights))

    logger = ezpz.get_logger("training_api_check")
    logger.info("LOGLINE from rank %d", rank)
    ezpz.synchronize()
    status = "OK" if not problems else "FAILED: " + "; ".join(problems)
    print(f"training_api_check: rank {rank}/{n} {status}", flush=True)
    ezpz.cleanup()
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
