"""Helpers of the Python ezpz's ``ezpz.utils``: timestamps, device memory metrics, key=value summaries,
a debugger for one rank. torch and numpy are imported only by the functions that need them.

    ezpz.get_timestamp()                     # "2026-11-28-143022"
    metrics = ezpz.get_memory_metrics()      # {"mem_alloc": …, …} in GiB on CUDA and XPU, {} elsewhere
"""

import os

# The summary line's helpers live with History, which uses them; ezpz.utils is where the Python ezpz has them.
from .history import (  # noqa: F401
    format_compact_summary, format_memory_summary, format_pair, is_memory_metric_key, summarize_dict)

__all__ = [
    "Color", "NoColor", "DistributedPdb", "ForkedPdb", "breakpoint", "get_timestamp", "format_pair",
    "summarize_dict", "normalize", "model_summary", "grab_tensor", "get_max_memory_allocated",
    "get_max_memory_reserved", "get_current_memory_allocated", "get_current_memory_reserved",
    "reset_peak_memory_stats", "get_memory_metrics", "format_memory_summary", "is_memory_metric_key",
    "format_compact_summary",
]


class Color:
    """ANSI foreground colours."""

    black, red, green, yellow = "\033[30m", "\033[31m", "\033[32m", "\033[33m"
    blue, magenta, cyan, white = "\033[34m", "\033[35m", "\033[36m", "\033[37m"
    reset = "\033[39m"
    orange = "\033[38;2;180;60;0m"
    turquoise = "\033[38;2;54;234;195m"


class NoColor:
    """Color's names, all empty."""

    black = red = green = yellow = blue = magenta = cyan = white = reset = orange = turquoise = ""


def _pdb_classes():
    import pdb
    import sys

    class DistributedPdb(pdb.Pdb):
        """pdb that reads the terminal, from inside a rank whose stdin is not it."""

        def interaction(self, *args, **kwargs):
            saved = sys.stdin
            try:
                with open("/dev/stdin") as sys.stdin:
                    pdb.Pdb.interaction(self, *args, **kwargs)
            finally:
                sys.stdin = saved

    return {"DistributedPdb": DistributedPdb, "ForkedPdb": DistributedPdb}


def __getattr__(name):
    # pdb costs an import a training script rarely needs: the classes are made on first use.
    if name in ("DistributedPdb", "ForkedPdb"):
        globals().update(_pdb_classes())
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def breakpoint(rank=0):  # noqa: A001 - the Python ezpz's name
    """A pdb prompt on rank ``rank``; the other ranks wait at a barrier until it continues."""
    from . import distributed

    if distributed.get_rank() == rank:
        debugger = __getattr__("DistributedPdb")()
        debugger.message(f"\n!!! ATTENTION !!!\n\nType 'up' to get to the frame that called "
                         f"ezpz.breakpoint(rank={rank})\n")
        debugger.set_trace()
    distributed.barrier()


def get_timestamp(fstr=None):
    """The current local time as "%Y-%m-%d-%H%M%S", or in the strftime format ``fstr``."""
    import datetime

    return datetime.datetime.now().strftime("%Y-%m-%d-%H%M%S" if fstr is None else fstr)


def normalize(name):
    """``name`` lower-cased, each run of other characters than a-z and 0-9 one "-"."""
    import re

    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def model_summary(model, verbose=False, depth=1, input_size=None):
    """torchinfo's summary of ``model`` when torchinfo is installed, else None with a warning."""
    try:
        from torchinfo import summary
    except ImportError:
        import logging

        logging.getLogger(__name__).warning("torchinfo not installed, unable to print model summary!")
        return None
    return summary(model, input_size=input_size, depth=depth, verbose=verbose)


def grab_tensor(x, force=False):
    """``x`` as NumPy: a tensor detached and moved to the CPU, a list of tensors stacked, a number or
    array as it is; None stays None."""
    if x is None:
        return None
    import numpy as np

    if isinstance(x, (int, float, bool, np.floating, np.integer, np.ndarray)):
        return x
    if isinstance(x, list):
        if x and hasattr(x[0], "detach"):
            import torch

            return grab_tensor(torch.stack(x), force=force)
        return np.stack([grab_tensor(item, force=force) for item in x]) if x else np.array(x)
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy(force=force) if force else x.detach().cpu().numpy()
    if callable(getattr(x, "numpy", None)):
        return x.numpy()
    raise ValueError(f"Unable to convert {type(x)} to np.ndarray")


# ------------------------------------------------------------------ device memory


def _device_type(device):
    """The torch device type of ``device`` (an index means this rank's accelerator type)."""
    from . import distributed

    if device is None or isinstance(device, int):
        return distributed.get_torch_device_type()
    import torch

    return torch.device(device).type


def _memory(function, device):
    """torch.<type>.<function>(device) on CUDA and XPU; 0.0 elsewhere or when torch has no such call."""
    device_type = _device_type(device)
    if device_type not in ("cuda", "xpu"):
        return 0.0
    import torch

    call = getattr(getattr(torch, device_type, None), function, None)
    if call is None:
        return 0.0
    return float(call(device))


def get_max_memory_allocated(device):
    """Peak allocated bytes on ``device``; 0.0 on the CPU and MPS."""
    return _memory("max_memory_allocated", device)


def get_max_memory_reserved(device):
    """Peak reserved bytes on ``device``; 0.0 on the CPU and MPS."""
    return _memory("max_memory_reserved", device)


def get_current_memory_allocated(device):
    """Allocated bytes on ``device``; 0.0 on the CPU and MPS."""
    return _memory("memory_allocated", device)


def get_current_memory_reserved(device):
    """Reserved bytes on ``device``; 0.0 on the CPU and MPS."""
    return _memory("memory_reserved", device)


def reset_peak_memory_stats(device):
    """Resets the peak counters on ``device``; nothing on the CPU and MPS."""
    _memory("reset_peak_memory_stats", device)


def get_memory_metrics(device=None, *, reset_peak=True, prefix=""):
    """{"<prefix>mem_alloc", "<prefix>mem_peak_alloc", "<prefix>mem_reserved", "<prefix>mem_peak_reserved"}
    in GiB on a CUDA or XPU device (default this rank's), the peaks reset after reading unless
    ``reset_peak=False``; {} on the CPU and MPS, and when EZPZ_TRACK_MEMORY=0."""
    if os.environ.get("EZPZ_TRACK_MEMORY", "1") == "0":
        return {}
    if device is None:
        from . import distributed

        device = distributed.get_torch_device()
    if _device_type(device) not in ("cuda", "xpu"):
        return {}
    gib = 1024 ** 3
    metrics = {
        f"{prefix}mem_alloc": get_current_memory_allocated(device) / gib,
        f"{prefix}mem_peak_alloc": get_max_memory_allocated(device) / gib,
        f"{prefix}mem_reserved": get_current_memory_reserved(device) / gib,
        f"{prefix}mem_peak_reserved": get_max_memory_reserved(device) / gib,
    }
    if reset_peak:
        reset_peak_memory_stats(device)
    return metrics


