#!/usr/bin/env python3
"""A tiny PyTorch DistributedDataParallel job that checks itself, for the ezpz launch/exec tests.

Every rank joins the process group (backend from TORCH_BACKEND, rendezvous from MASTER_ADDR and
MASTER_PORT), trains a small model wrapped in DistributedDataParallel on data of its own for a few
steps, and checks after each backward pass that its gradients are the mean of every rank's local
gradients and equal on all ranks, and at the end that the parameters are equal on all ranks. Then it
all-reduces rank + 1, whose sum must be n(n+1)/2. Each rank prints one result line; rank 0 prints a
summary. Exit status 0 when every rank passed, 1 on any mismatch (on every rank), 2 for bad usage.

    ezpz launch -n 4 -- /usr/bin/python3 ddp_check.py [--steps N] [--fail-rank R]

--fail-rank R makes rank R add 1 to its all-reduce contribution, so the tests can see a failure.
--setup ezpz joins through ezpz.setup_torch() alone (the ezpz Python module finds rank, device, backend
and rendezvous itself) instead of reading RANK, WORLD_SIZE … as `ezpz exec` exports them.
"""
import argparse
import copy
import datetime
import os
import socket
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

k_tolerance = dict(rtol=1e-5, atol=1e-6)


def node_name():
    # Slurm's virtual nodes share one hostname; SLURMD_NODENAME tells them apart.
    return os.environ.get("SLURMD_NODENAME") or os.environ.get("EZPZ_NODE_NAME") or socket.gethostname()


def flat_grads(model):
    return torch.cat([p.grad.detach().reshape(-1) for p in model.parameters()])


def flat_params(model):
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()])


def equal_on_all_ranks(tensor, world_size):
    """Whether every rank holds this same tensor, and the largest difference from rank 0's."""
    gathered = [torch.empty_like(tensor) for _ in range(world_size)]
    dist.all_gather(gathered, tensor)
    difference = max(float((g - gathered[0]).abs().max()) for g in gathered)
    return all(torch.allclose(g, gathered[0], **k_tolerance) for g in gathered), difference


def train_and_check(steps, rank, world_size, device):
    """DDP training steps; returns a list of problems (empty when the gradients were right)."""
    problems = []
    torch.manual_seed(1234 + rank)  # different initial weights: DDP must broadcast rank 0's
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1)).to(device)
    ddp = DistributedDataParallel(model)
    reference = copy.deepcopy(model)  # the same weights, trained without DDP: local gradients only
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.05)
    reference_optimizer = torch.optim.SGD(reference.parameters(), lr=0.05)
    same, difference = equal_on_all_ranks(flat_params(model), world_size)
    if not same:
        problems.append(f"initial parameters differ across ranks after DDP's broadcast (max difference {difference:g})")
    data = torch.Generator().manual_seed(99 + rank)  # each rank's own batches
    for step in range(1, steps + 1):
        inputs = torch.randn(32, 8, generator=data).to(device)
        targets = inputs.sum(dim=1, keepdim=True).sin()
        for optim, net in ((optimizer, ddp), (reference_optimizer, reference)):
            optim.zero_grad()
            torch.nn.functional.mse_loss(net(inputs), targets).backward()
        grads = flat_grads(model)
        expected = flat_grads(reference)
        dist.all_reduce(expected)
        expected /= world_size
        if not torch.allclose(grads, expected, **k_tolerance):
            difference = float((grads - expected).abs().max())
            problems.append(f"step {step}: DDP gradients are not the mean of the ranks' gradients (max difference {difference:g})")
        same, difference = equal_on_all_ranks(grads, world_size)
        if not same:
            problems.append(f"step {step}: gradients differ across ranks (max difference {difference:g})")
        optimizer.step()
        reference_optimizer.step()
        reference.load_state_dict(model.state_dict())  # both start the next step from DDP's weights
    same, difference = equal_on_all_ranks(flat_params(model), world_size)
    if not same:
        problems.append(f"parameters differ across ranks after {steps} steps (max difference {difference:g})")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--fail-rank", type=int, default=-1)
    parser.add_argument("--timeout", type=int, default=120, help="seconds to wait for the rendezvous")
    parser.add_argument("--setup", choices=["env", "ezpz"], default="env",
                        help="join with the exported variables (env) or with ezpz.setup_torch() alone (ezpz)")
    options = parser.parse_args()
    if options.steps < 1:
        parser.error("--steps must be at least 1")

    if options.setup == "ezpz":
        import ezpz

        rank = ezpz.setup_torch(timeout=options.timeout)
        world_size = ezpz.get_world_size()
        local_rank = ezpz.get_local_rank()
        local_world_size = int(os.environ["LOCAL_WORLD_SIZE"])  # exported by setup_torch
        backend = ezpz.get_torch_backend()
        device = ezpz.get_torch_device(as_torch_device=True)
    else:
        rank = int(os.environ["RANK"])
        world_size = int(os.environ["WORLD_SIZE"])
        local_rank = int(os.environ["LOCAL_RANK"])
        local_world_size = int(os.environ["LOCAL_WORLD_SIZE"])
        backend = os.environ.get("TORCH_BACKEND", "gloo")
        device = torch.device(os.environ.get("TORCH_DEVICE", "cpu"))
        dist.init_process_group(backend=backend, init_method="env://", rank=rank, world_size=world_size,
                                timeout=datetime.timedelta(seconds=options.timeout))
    problems = []
    if dist.get_rank() != rank or dist.get_world_size() != world_size:
        problems.append(f"process group says rank {dist.get_rank()} of {dist.get_world_size()}")

    problems += train_and_check(options.steps, rank, world_size, device)

    contribution = rank + 1 + (1 if rank == options.fail_rank else 0)
    total = torch.tensor([contribution], dtype=torch.int64, device=device)
    dist.all_reduce(total)
    expected = world_size * (world_size + 1) // 2
    if int(total.item()) != expected:
        problems.append(f"all-reduce of rank+1 gave {int(total.item())}, expected {expected}")

    everyone = [None] * world_size
    dist.all_gather_object(everyone, (rank, node_name(), problems))
    status = "OK" if not problems else "FAILED: " + "; ".join(problems)
    print(f"ddp_check: rank {rank}/{world_size} local {local_rank}/{local_world_size} on {node_name()}, "
          f"backend {backend}, device {device}: {options.steps} DDP step(s), all-reduce sum {int(total.item())} "
          f"(expected {expected}): {status}", flush=True)
    failed = [r for r, _, p in everyone if p]
    if rank == 0:
        nodes = sorted({node for _, node, _ in everyone})
        verdict = "OK" if not failed else "FAILED on rank(s) " + " ".join(map(str, failed))
        print(f"ddp_check: {world_size} ranks on {len(nodes)} node(s) ({' '.join(nodes)}), backend {backend}, "
              f"all-reduce sum {int(total.item())} (expected {expected}): {verdict}", flush=True)
    dist.barrier()  # nobody exits (and has the launcher stop the others) before every rank printed
    dist.destroy_process_group()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
