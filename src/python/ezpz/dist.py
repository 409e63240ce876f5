"""``ezpz.dist``, the Python ezpz's older module name: every name of ezpz.distributed, and a few of
its legacy helpers. Importing it warns (DeprecationWarning), as the Python ezpz's does."""

import warnings as _warnings

from .distributed import *  # noqa: F401,F403 - the re-exports are this module's purpose
from .distributed import __all__ as _distributed_names
from .distributed import get_local_rank, get_rank, get_torch_device, get_world_size, setup_torch, wrap_model_for_ddp
from .distributed import wrap_model_for_fsdp, wrap_model_for_fsdp2

_warnings.warn("ezpz.dist is deprecated and will be removed in a future release. Use ezpz.distributed instead.",
               DeprecationWarning, stacklevel=2)

__all__ = list(_distributed_names) + ["setup", "timeit", "wrap_with_ddp", "wrap_with_fsdp", "wrap_with_fsdp2",
                                      "get_device", "get_torch_version_as_float", "get_free_port",
                                      "setup_torch_DDP", "setup_torch_distributed"]


def setup(framework="pytorch", backend="DDP", port=None, seed=None, precision=None, ngpus=None):
    """setup_torch(port=port, seed=seed)."""
    return setup_torch(port=port, seed=seed)


def timeit(func):
    """A decorator logging each call's duration on rank 0."""
    import functools
    import logging
    import time

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        result = func(*args, **kwargs)
        if get_rank() == 0:
            logging.getLogger(__name__).info("[timeit] %s: %.4fs", func.__name__, time.perf_counter() - start)
        return result

    return wrapper


def wrap_with_ddp(model):
    return wrap_model_for_ddp(model)


def wrap_with_fsdp(model, dtype="bfloat16", device_id=None):
    return wrap_model_for_fsdp(model, dtype=dtype, device_id=device_id)


def wrap_with_fsdp2(model, dtype="bfloat16", device_id=None, device_mesh=None):
    return wrap_model_for_fsdp2(model, dtype=dtype, device_mesh=device_mesh)


def get_device(as_torch_device=False):
    """str(get_torch_device())."""
    return str(get_torch_device())


def get_torch_version_as_float():
    import torch

    major, minor = torch.__version__.split(".")[:2]
    return float(f"{major}.{minor}")


def get_free_port():
    """A TCP port free on 127.0.0.1 now."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def setup_torch_DDP(port=None, timeout=3600, backend=None, device_id=None):  # noqa: N802 - theirs
    rank = setup_torch(port=port, timeout=timeout, backend=backend, device_id=device_id)
    return {"rank": rank, "local_rank": get_local_rank(), "world_size": get_world_size(), "master_port": port}


def setup_torch_distributed(framework=None, backend=None, tensor_parallel_size=1, port=None, timeout=3600,
                            device_id=None):
    rank = setup_torch(port=port, timeout=timeout, tensor_parallel_size=tensor_parallel_size, device_id=device_id)
    return {"rank": rank, "local_rank": get_local_rank(), "world_size": get_world_size()}

