"""The smallest training run with ezpz's training API: an MLP learns to reproduce random inputs.

    python3 -m ezpz.examples.minimal                          # one process
    ezpz launch -n 2 -- python3 -m ezpz.examples.minimal      # every rank of an allocation

Set up by environment variables, as the Python ezpz's ``ezpz.examples.minimal`` is (defaults in
brackets): TRAIN_ITERS [500], BATCH_SIZE [64], INPUT_SIZE [128], OUTPUT_SIZE [128], LAYER_SIZES
["256,512,1024,2048,1024,512,256,128"], DTYPE [bfloat16; float32 on the cpu, where Gloo cannot reduce
bfloat16], WARMUP_ITERS [10], LOG_FREQ [1], PRINT_FREQ [10], SEED [0], PROJECT_NAME
[ezpz.examples.minimal].

``ezpz.setup_torch`` joins the process group, the model goes to this rank's device and, on more than
one rank, into DistributedDataParallel (``ezpz.wrap_model(model, use_fsdp=False)``). Every LOG_FREQ-th
step after the warm-up goes into an ``ezpz.History`` (loss and step times, with their min, max, mean and
std across ranks); its summary line is logged every PRINT_FREQ-th step and at the end, and rank 0
finalizes the history (metrics, plots) into outputs/ezpz.examples.minimal/<timestamp>/.
"""

import os
import sys
import time

MODULE = "ezpz.examples.minimal"
_DEFAULTS = {
    "TRAIN_ITERS": "500",
    "BATCH_SIZE": "64",
    "INPUT_SIZE": "128",
    "OUTPUT_SIZE": "128",
    "LAYER_SIZES": "256,512,1024,2048,1024,512,256,128",
    "WARMUP_ITERS": "10",
    "LOG_FREQ": "1",
    "PRINT_FREQ": "10",
    "SEED": "0",
    "PROJECT_NAME": MODULE,
}
_USAGE = ("usage: python3 -m ezpz.examples.minimal (or: ezpz launch -- python3 -m ezpz.examples.minimal)\n"
          "Set up by environment variables: " + " ".join(f"{name}={value!r}" for name, value in _DEFAULTS.items())
          + " DTYPE='bfloat16' (float32 on the cpu)")


def settings(environ=None):
    """The run's settings from the environment (``os.environ`` when None), as typed values."""
    environ = os.environ if environ is None else environ
    raw = {name: environ.get(name, default) for name, default in _DEFAULTS.items()}
    values = {name: int(raw[name]) for name in ("TRAIN_ITERS", "BATCH_SIZE", "INPUT_SIZE", "OUTPUT_SIZE",
                                                 "WARMUP_ITERS", "LOG_FREQ", "PRINT_FREQ", "SEED")}
    values["LAYER_SIZES"] = [int(width) for width in raw["LAYER_SIZES"].split(",") if width.strip()]
    values["PROJECT_NAME"] = raw["PROJECT_NAME"]
    values["DTYPE"] = environ.get("DTYPE", "")  # empty: the device's default (dtype_for)
    if values["LOG_FREQ"] < 1 or values["PRINT_FREQ"] < 1:
        raise ValueError("LOG_FREQ and PRINT_FREQ must be at least 1")
    return values


def dtype_for(name, device_type):
    """The torch dtype named ``name`` ("bfloat16", "float32", "torch.float16" …); empty: bfloat16, or
    float32 on the cpu."""
    import torch

    name = (name or ("float32" if device_type == "cpu" else "bfloat16")).replace("torch.", "")
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"DTYPE={name!r} is not a torch dtype (bfloat16, float16, float32 …)")
    return dtype


def build(config):
    """Joins the process group; returns (model, optimizer, device, dtype) ready to train on this rank."""
    import torch

    import ezpz
    from ezpz.models.minimal import SequentialLinearNet

    ezpz.setup_torch(seed=config["SEED"])
    device = ezpz.get_torch_device(as_torch_device=True)
    dtype = dtype_for(config["DTYPE"], ezpz.get_torch_device_type())
    model = SequentialLinearNet(config["INPUT_SIZE"], config["OUTPUT_SIZE"], config["LAYER_SIZES"])
    model = model.to(device=device, dtype=dtype)
    if ezpz.get_world_size() > 1:
        model = ezpz.wrap_model(model, use_fsdp=False)
    optimizer = torch.optim.Adam(model.parameters())
    return model, optimizer, device, dtype


def train(model, optimizer, device, dtype, config, logger):
    """The training loop; returns (history, the last summary line)."""
    import torch

    import ezpz

    history = ezpz.History(project_name=config["PROJECT_NAME"],
                           config={name: config[name] for name in sorted(config)})
    summary = ""
    model.train()
    for step in range(config["TRAIN_ITERS"]):
        start = time.perf_counter()
        x = torch.rand((config["BATCH_SIZE"], config["INPUT_SIZE"]), dtype=dtype, device=device)
        loss = ((model(x) - x) ** 2).sum()
        forward = time.perf_counter()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        ezpz.synchronize()
        end = time.perf_counter()
        if step <= config["WARMUP_ITERS"]:
            continue
        if step % config["LOG_FREQ"] == 0:
            summary = history.update({"iter": step, "loss": loss.item(), "dt": end - start,
                                      "dtf": forward - start, "dtb": end - forward}, step=step)
        if step % config["PRINT_FREQ"] == 0:
            logger.info(summary)
    return history, summary


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-h", "--help"):
        print(_USAGE)
        return 0
    if argv:
        print(f"{_USAGE}\nezpz.examples.minimal: unexpected arguments {argv!r}", file=sys.stderr)
        return 2
    config = settings()

    import ezpz
    from ezpz.examples import get_example_outdir

    logger = ezpz.get_logger(MODULE)
    started = time.perf_counter()
    model, optimizer, device, dtype = build(config)
    outdir = get_example_outdir(MODULE)
    logger.info("rank %d of %d on %s (%s); outputs in %s", ezpz.get_rank(), ezpz.get_world_size(), device,
                str(dtype).replace("torch.", ""), outdir)
    history, summary = train(model, optimizer, device, dtype, config, logger)
    logger.info("done in %.2f s: %s", time.perf_counter() - started, summary)
    if ezpz.get_rank() == 0:
        history.finalize(outdir=outdir)
    ezpz.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
