"""The runtime for training scripts: rank discovery, device, backend and the process group.

Rank, local rank, world size, device and backend come from ezpz's C++ runtime (the code behind
``ezpz exec``), so a script behaves the same under ``ezpz launch``, plain ``mpiexec`` (MPICH, Open MPI,
PALS), ``srun`` and ``torchrun``. torch is imported only by setup_torch(), get_torch_device(as_torch_device=True)
and cleanup().
"""

import os as _os

from . import _api

_SETUP = None


def _setup():
    """This rank's setup, discovered once (the environment of a rank does not change under it)."""
    global _SETUP
    if _SETUP is None:
        _SETUP = _api.call("rank_setup", env=dict(_os.environ))
    return _SETUP


def get_rank():
    """The global rank of this process (0 for a lone process)."""
    return _setup()["rank"]


def get_local_rank():
    """The rank of this process on its node."""
    return _setup()["local_rank"]


def get_world_size():
    """How many ranks the job has."""
    return _setup()["world_size"]


def get_torch_device(*, as_torch_device=False):
    """The accelerator type, "cuda", "xpu" or "cpu" (TORCH_DEVICE wins when set), as in the Python ezpz.

    With ``as_torch_device=True``, this rank's torch.device ("cuda:0" …).
    """
    device = _os.environ.get("TORCH_DEVICE") or _setup()["device"]
    if as_torch_device:
        import torch

        return torch.device(device)
    return device.split(":", 1)[0]


def get_torch_backend():
    """The torch.distributed backend: TORCH_BACKEND when set, else nccl (CUDA, ROCm), xccl (XPU), gloo (CPU)."""
    return _os.environ.get("TORCH_BACKEND") or _setup()["backend"]


def setup_torch(port=None, seed=None, timeout=None, verbose=False, *, backend=None, device_id=None):
    """Sets this rank's device and joins the process group; returns the global rank.

    ``port`` replaces MASTER_PORT, ``timeout`` (seconds, default 3600) bounds the rendezvous and every
    collective, ``seed`` seeds torch with ``seed + rank``, ``backend`` replaces the chosen backend,
    ``device_id`` the local device index. A job of one rank gets a process group in memory, without a
    rendezvous.
    """
    setup = _setup()
    for name, value in setup["exports"]:
        if name in ("TORCH_DEVICE", "TORCH_BACKEND") and _os.environ.get(name):
            continue  # the user's choice, which get_torch_device() and get_torch_backend() report too
        _os.environ[name] = value
    if port is not None:
        _os.environ["MASTER_PORT"] = str(port)
    backend = backend or get_torch_backend()
    import datetime
    import inspect

    import torch
    import torch.distributed as dist

    device = get_torch_device(as_torch_device=True)
    if device_id is not None and device.type != "cpu":
        device = torch.device(device.type, int(device_id))
    # The device is set before the process group: xccl on XPU, and nccl's first communicator, use it.
    if device.type != "cpu":
        module = getattr(torch, device.type, None)
        if module is None or not module.is_available():
            raise RuntimeError(f"ezpz: this rank's device is {device}, but this torch ({torch.__version__}) "
                               f"cannot use {device.type} devices; install a torch built for them, or set "
                               "EZPZ_TORCH_DEVICE=cpu")
        module.set_device(device)
    if seed is not None:
        torch.manual_seed(int(seed) + setup["rank"])
    if not dist.is_initialized():
        options = {"backend": backend, "timeout": datetime.timedelta(seconds=int(timeout or 3600))}
        if device.type != "cpu" and "device_id" in inspect.signature(dist.init_process_group).parameters:
            options["device_id"] = device
        if setup["world_size"] == 1:
            dist.init_process_group(store=dist.HashStore(), rank=0, world_size=1, **options)
        else:
            dist.init_process_group(init_method="env://", rank=setup["rank"], world_size=setup["world_size"],
                                    **options)
    if verbose and setup["rank"] == 0:
        for note in setup["notes"]:
            print(f"ezpz: {note}", flush=True)
    return setup["rank"]


def cleanup():
    """Destroys the process group if there is one; never fails a finished run."""
    try:
        import torch.distributed as dist
    except Exception:  # noqa: BLE001 - nothing to tear down without torch
        return
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()
