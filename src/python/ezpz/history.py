"""History: a training script's metrics, step by step, as the Python ezpz keeps them.

``update(metrics, step=…)`` records them, reduces them across ranks when a process group of more than one
rank is up (``<name>/mean``, ``/max``, ``/min``, ``/std``, on rank 0), sends them to the trackers
(ezpz.tracker), appends them to a JSONL file and returns the one-line summary the Python ezpz prints.
``finalize(outdir)`` writes what the run leaves behind: the JSONL file, metrics.csv, run_info.json,
report.md, a plot of each metric against the step (PNG and SVG with matplotlib when it imports, text
plots always) and dataset.h5 when h5py imports.

Nothing heavy is imported here: torch only when a process group exists (the script imported it),
matplotlib and h5py in finalize().
"""

import json as _json
import logging as _logging
import math as _math
import os as _os
import shutil as _shutil
import sys as _sys
import threading as _threading
import time as _time
import warnings as _warnings
from contextlib import ContextDecorator as _ContextDecorator
from datetime import datetime as _datetime
from datetime import timezone as _timezone
from pathlib import Path as _Path

from . import tplot as _tplot
from . import tracker as _tracker

logger = _logging.getLogger(__name__)

__all__ = ["History", "StopWatch", "format_compact_summary", "format_memory_summary", "format_pair", "summarize_dict",
           "is_memory_metric_key"]

# Across-rank statistics of a metric, as the keys "<name>/<stat>" (the Python ezpz's names).
_STATS = ("mean", "max", "min", "std")
# Above this many ranks the Python ezpz leaves the reductions off by default (their cost per update).
_MAX_RANKS_FOR_DISTRIBUTED_HISTORY = 384
# Counters: no (±std) in the summary, padded so that the next field lines up from line to line.
_COUNTER_WIDTHS = {"iter": 9, "step": 9, "epoch": 7, "batch": 9, "idx": 9, "bidx": 9}
_SUMMARY_COUNTERS = ("iter", "step", "epoch", "batch", "idx")
# Hyperparameters every rank has the same: no (±std) in the summary.
_CONSTANT_BASES = frozenset(("lr", "learning_rate", "momentum", "beta1", "beta2", "weight_decay", "wd", "eps",
                             "epsilon", "clip_grad", "grad_clip", "clip_norm", "max_grad_norm", "warmup_steps",
                             "warmup_iters", "warmup"))
# Device memory (ezpz.get_memory_metrics): one "memory=" token instead of these keys and their statistics.
_MEMORY_BASES = ("mem_alloc", "mem_peak_alloc", "mem_reserved", "mem_peak_reserved")
_AGGREGATION_SUFFIXES = ("/mean", "/min", "/max", "/std", "/avg")
# Keys left out of the text plots (counters plotted against the step say nothing).
_PLOT_COUNTERS = ("iter", "epoch", "step", "batch", "idx", "bidx")
# The device a reduction's tensor lives on, by process-group backend: gloo and mpi reduce host memory, the
# accelerators' libraries their device (ROCm's RCCL answers to "nccl" and lives in torch.cuda).
_BACKEND_DEVICE = {"gloo": "cpu", "mpi": "cpu", "nccl": "cuda", "xccl": "xpu", "ccl": "xpu", "hccl": "hpu"}


# ── The summary line (the Python ezpz's ezpz.utils.format_compact_summary and friends) ──────────────


def format_pair(key, value, precision=6):
    """``key=value`` (the Python ezpz's ezpz.utils.format_pair): floats with ``precision`` decimals, dicts
    as key.sub=…, sequences and sets as key[i]=…, tensors and NumPy values as the numbers they hold."""
    if not isinstance(value, (dict, list, tuple, set)):
        value = _plain(value)
    if isinstance(value, dict):
        return "\n".join(format_pair(f"{key}.{sub}", item, precision) for sub, item in value.items())
    if isinstance(value, (list, tuple)):
        return "\n".join(format_pair(f"{key}[{index}]", item, precision) for index, item in enumerate(value))
    if isinstance(value, set):
        return "\n".join(format_pair(f"{key}[{index}]", item, precision)
                         for index, item in enumerate(sorted(value, key=repr)))
    if isinstance(value, float) and _math.isfinite(value):
        return f"{key}={value:.{precision}f}"
    return f"{key}={value}"


def summarize_dict(d, precision=6, keys_to_skip=None):
    """``key=value`` pairs of ``d``, space-separated (the Python ezpz's ezpz.utils.summarize_dict)."""
    skip = set(keys_to_skip or ())
    return " ".join(format_pair(key, _plain(value), precision) for key, value in d.items() if key not in skip)


def _format_std(std):
    """The (±std) of the summary: 2 significant digits, fixed point from 0.01 up ("0.16", "13"), else
    scientific without the exponent's leading zero ("2.8e-4"); None for 0."""
    if std == 0 or not _math.isfinite(std):
        return None if std == 0 else f"{std}"
    if abs(std) >= 0.01:
        text = f"{std:.{max(0, 1 - _math.floor(_math.log10(abs(std))))}f}"
        if float(text) != 0:
            return text
    mantissa, exponent = f"{std:.1e}".split("e")
    sign = exponent[0] if exponent[0] in "+-" else ""
    return f"{mantissa}e{sign}{exponent.lstrip('+-').lstrip('0') or '0'}"


def is_memory_metric_key(key):
    """True for the device-memory keys and their statistics (mem_alloc, train/mem_peak_alloc/max, …)."""
    return any(key == f"{base}{suffix}" or key.endswith(f"/{base}{suffix}")
               for base in _MEMORY_BASES for suffix in ("",) + _AGGREGATION_SUFFIXES)


def _leaf(key):
    return key.rsplit("/", 1)[-1]


def format_compact_summary(metrics, precision=6, keys_to_skip=None, min_widths=None, constant_keys=None):
    """The Python ezpz's summary line: ``key=value`` for each metric, ``key=value(±std)`` when ``key/std`` is
    there, the other statistics left out, counters padded, memory keys left to format_memory_summary."""
    skip = set(keys_to_skip or ())
    widths = dict(_COUNTER_WIDTHS, **(min_widths or {}))
    constants = _CONSTANT_BASES | frozenset(constant_keys or ())
    stds = {}
    aggregations = []
    for key, value in metrics.items():
        suffix = next((s for s in _AGGREGATION_SUFFIXES if key.endswith(s)), None)
        if suffix is not None:
            aggregations.append((key, key[:-len(suffix)]))
            if suffix == "/std":
                stds[key[:-len(suffix)]] = value
    aggregated = {key for key, _ in aggregations}
    tokens = []
    seen = set()
    for key, value in metrics.items():
        if key in skip or is_memory_metric_key(key) or key in aggregated:
            continue
        seen.add(key)
        token = format_pair(key, value, precision)
        std = stds.get(key)
        if std is not None and _leaf(key) not in _SUMMARY_COUNTERS and _leaf(key) not in constants:
            std_text = _format_std(float(std))
            tokens.append(token if std_text is None else f"{token}(±{std_text})")
        else:
            width = widths.get(_leaf(key))
            tokens.append(token.ljust(width) if width else token)
    # A statistic without its metric is shown as it is (nothing is lost from the line).
    tokens.extend(format_pair(key, metrics[key], precision) for key, base in aggregations
                  if base not in seen and key not in skip and not is_memory_metric_key(key))
    return " ".join(tokens).rstrip()


def _device_total_bytes(device):
    """The total memory of the device ``device`` (an index, "cuda:1", None: this rank's), or 0 when unknown."""
    torch = _sys.modules.get("torch")
    if torch is None:
        return 0
    try:
        import ezpz

        kind = ezpz.get_torch_device()
        if device is not None and not isinstance(device, int):
            parsed = torch.device(device)
            kind, device = parsed.type, parsed.index
        module = getattr(torch, kind, None)
        if module is None or kind == "cpu" or not module.is_available():
            return 0
        index = module.current_device() if device is None else int(device)
        return int(module.get_device_properties(index).total_memory)
    except Exception:  # noqa: BLE001 - the percentage is left out
        return 0


def format_memory_summary(metrics, *, device=None, prefix=None):
    """The memory token of the summary: "1.50/2.00GiB (cur/peak, 4% of 40.0GiB)" from
    ``<prefix>mem_alloc`` and ``<prefix>mem_peak_alloc`` (GiB); "" without them. The percentage of the
    device's total is left out where that total is unknown (CPU, MPS)."""
    if prefix is None:
        prefix = ""
        for key in metrics:
            for base in ("mem_peak_alloc", "mem_alloc"):
                if key.endswith(base):
                    prefix = key[:-len(base)]
                    break
            else:
                continue
            break
    alloc = metrics.get(f"{prefix}mem_alloc")
    peak = metrics.get(f"{prefix}mem_peak_alloc")
    if alloc is None and peak is None:
        return ""
    share = ""
    total = _device_total_bytes(device) if alloc is not None else 0
    if total > 0:
        total_gib = total / 1024 ** 3
        share = f", {100.0 * float(alloc) / total_gib:.0f}% of {total_gib:.1f}GiB"
    if alloc is not None and peak is not None:
        return f"{float(alloc):.2f}/{float(peak):.2f}GiB (cur/peak{share})"
    if alloc is not None:
        return f"{float(alloc):.2f}GiB (cur{share})"
    return f"{float(peak):.2f}GiB (peak)"


# ── Values ──────────────────────────────────────────────────────────────────────────────────────


def _plain(value):
    """``value`` as JSON holds it: torch tensors and numpy values of one element become numbers, larger
    ones lists; paths strings. Duck-typed, so that neither torch nor numpy is imported for it."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, _os.PathLike):
        return _Path(value).as_posix()
    if callable(getattr(value, "numel", None)) and callable(getattr(value, "detach", None)):  # a torch tensor
        tensor = value.detach()
        return _plain(tensor.item() if tensor.numel() == 1 else tensor.cpu().tolist())
    if callable(getattr(value, "tolist", None)):  # numpy arrays and scalars
        return _plain(value.tolist())
    if callable(getattr(value, "item", None)):
        try:
            return _plain(value.item())
        except Exception:  # noqa: BLE001
            pass
    return str(value)


def _number(value):
    """A plotted value: a number, the mean of a list of numbers, else NaN."""
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, list):
        flat = []
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, (int, float)):
                flat.append(float(item))
            else:
                return float("nan")
        return sum(flat) / len(flat) if flat else float("nan")
    return float("nan")


def _split_prefix(metrics):
    """(prefix, metrics without it): the prefix is what comes before the first "/" of the first key that
    has one ("train" for train/loss), "" when no key has one (the Python ezpz's grouping)."""
    prefix = next((key.split("/", 1)[0] for key in metrics if "/" in key), "")
    if not prefix:
        return "", dict(metrics)
    cut = len(prefix) + 1
    return prefix, {(key[cut:] if key.startswith(prefix + "/") else key): value for key, value in metrics.items()}


def _reduce_device_type(backend, rank_device_type):
    """The device type of the tensor a process group of ``backend`` reduces ("gloo", "nccl", or torch's
    "cpu:gloo,cuda:nccl" for a group of several): host memory whenever the group has a CPU backend, else
    the backend's device; ``rank_device_type`` (this rank's device) for a backend not in the table."""
    parts = [part.strip() for part in str(backend).lower().split(",") if part.strip()]
    if parts and all(":" in part for part in parts):
        types = [part.split(":", 1)[0] for part in parts]
        return "cpu" if "cpu" in types else types[0]
    return _BACKEND_DEVICE.get(parts[0] if parts else "", rank_device_type)


def _is_counter(name):
    leaf = name.replace("\\", "/").split("/")[-1]
    return leaf in _PLOT_COUNTERS or any(leaf.endswith(f"_{token}") for token in _PLOT_COUNTERS)


def _utc_iso():
    return _datetime.now(_timezone.utc).isoformat().replace("+00:00", "Z")


def _timestamp():
    from .utils import get_timestamp  # here, not at the top: ezpz.utils re-exports the summary helpers

    return get_timestamp()


# ── StopWatch ───────────────────────────────────────────────────────────────────────────────────


class StopWatch(_ContextDecorator):
    """Times a block: logs "<msg> took 1.234 seconds", and with ``wbtag`` logs ``{prefix: {wbtag/dt: …}}``
    to the active wandb run when there is one."""

    def __init__(self, msg, wbtag=None, iter=None, commit=False, prefix="StopWatch/", log_output=True):
        self.msg, self.wbtag, self.iter, self.commit = msg, wbtag, iter, commit
        self.prefix, self.log_output = prefix, log_output
        self.data = {}
        if wbtag is not None:
            self.data = {f"{wbtag}/dt": None}
            if iter is not None:
                self.data[f"{wbtag}/iter"] = iter

    def __enter__(self):
        self.time = _time.perf_counter()
        return self

    def __exit__(self, *exc):
        dt = _time.perf_counter() - self.time
        run = getattr(_sys.modules.get("wandb"), "run", None)
        if self.data and run is not None:
            try:
                self.data[f"{self.wbtag}/dt"] = dt
                run.log({self.prefix: self.data}, commit=self.commit)
            except Exception as error:  # noqa: BLE001
                logger.error("Unable to log to wandb: %s", error)
        if self.log_output:
            logger.info("%s took %.3f seconds", self.msg, dt)
        return False


# ── History ─────────────────────────────────────────────────────────────────────────────────────


class History:
    """A run's metrics: ``update`` each step, ``finalize`` at the end (on rank 0)."""

    def __init__(self, keys=None, *, report_dir=None, report_enabled=True, jsonl_path=None, jsonl_overwrite=False,
                 distributed_history=None, project_name=None, backends=None, config=None, outdir=None,
                 tracker=None):
        """``distributed_history`` (default: on up to 384 ranks) reduces each metric across ranks; it is off
        with one rank, $EZPZ_NO_DISTRIBUTED_HISTORY or $EZPZ_LOCAL_HISTORY. ``report_dir`` (default
        ./outputs/history) gets <run id>/report.md and, unless ``jsonl_path`` says where, <run id>.jsonl
        until finalize() moves it; ``jsonl_overwrite`` truncates an existing JSONL file. ``backends``
        ("wandb,csv", a list, or $EZPZ_TRACKER_BACKENDS), ``project_name``, ``config`` and ``outdir`` make
        the trackers (ezpz.tracker.setup_tracker); ``tracker`` is a Tracker made elsewhere."""
        self.keys = [] if keys is None else keys
        self._groups = {}  # prefix -> key -> values
        self._steps = {}  # prefix -> key -> the step of each value (None when update() had none)
        self._rows = []  # (what went to the trackers, step): metrics.csv when no csv tracker writes it
        self._rank, world_size = _tracker.rank_and_world_size()
        if distributed_history is None:
            distributed_history = world_size <= _MAX_RANKS_FOR_DISTRIBUTED_HISTORY
        if (_os.environ.get("EZPZ_NO_DISTRIBUTED_HISTORY") or _os.environ.get("EZPZ_LOCAL_HISTORY")
                or world_size <= 1):
            logger.info("Not using distributed metrics! Will only be tracked from a single rank...")
            distributed_history = False
        self.distributed_history = bool(distributed_history)
        logger.info("Using History with distributed_history=%s", self.distributed_history)
        self._run_id = _datetime.now(_timezone.utc).strftime("%Y%m%d-%H%M%S")
        self.report_enabled = report_enabled
        outputs = _Path.cwd() / "outputs"
        root = _Path(report_dir) if report_dir is not None else outputs / "history"
        self._report_dir = root.expanduser().resolve() / self._run_id
        self._report_filename = "report.md"
        self._jsonl_path_explicit = jsonl_path is not None
        if jsonl_path is None:
            folder = self._report_dir if report_enabled else outputs.resolve()
            self._jsonl_path = folder / f"{self._run_id}.jsonl"
        else:
            self._jsonl_path = _Path(jsonl_path).expanduser().resolve()
        if jsonl_overwrite and self._jsonl_path.exists():
            try:
                self._jsonl_path.unlink()
            except OSError:
                logger.warning("Unable to remove existing JSONL log at %s", self._jsonl_path)
        self._jsonl_lock = _threading.Lock()
        wants_trackers = project_name is not None or backends is not None or _os.environ.get("EZPZ_TRACKER_BACKENDS")
        if tracker is not None:
            self._tracker = tracker
        elif wants_trackers:
            self._tracker = _tracker.setup_tracker(project_name=project_name, backends=backends, config=config,
                                                   outdir=_os.fspath(outdir) if outdir is not None else None)
        elif getattr(_sys.modules.get("wandb"), "run", None) is not None:
            _warnings.warn("History detected an active wandb.run but no 'backends' argument was provided. "
                           "Automatically using backends='wandb'. In a future version, pass backends='wandb' "
                           "explicitly.", DeprecationWarning, stacklevel=2)
            self._tracker = _tracker.setup_tracker(backends="wandb")
        else:
            self._tracker = _tracker.NullTracker()
        if config is not None and (tracker is not None or not wants_trackers):
            self._tracker.log_config(config)

    # -- what is recorded --------------------------------------------------------------------------

    @property
    def history(self):
        """Every metric's values by its full name ("train/loss", "loss/mean", …)."""
        return {(f"{prefix}/{key}" if prefix else key): values
                for prefix, metrics in self._groups.items() for key, values in metrics.items()}

    @history.setter
    def history(self, value):
        self._groups.clear()
        self._steps.clear()
        for full_key, values in value.items():
            prefix, slash, key = full_key.partition("/")
            if not slash:
                prefix, key = "", full_key
            self._groups.setdefault(prefix, {})[key] = list(values)
            self._steps.setdefault(prefix, {})[key] = [None] * len(values)

    data = history

    @property
    def groups(self):
        """The metrics by prefix: {"train": {"loss": […]}, "": {…}}."""
        return self._groups

    @property
    def tracker(self):
        """The Tracker the metrics go to (history.tracker.get_backend("wandb") …)."""
        return self._tracker

    def _record(self, prefix, metrics, step):
        values = self._groups.setdefault(prefix, {})
        steps = self._steps.setdefault(prefix, {})
        for key, value in metrics.items():
            values.setdefault(key, []).append(value)
            steps.setdefault(key, []).append(step)

    def _compute_distributed_metrics(self, metrics):
        """{"<name>/mean", "/max", "/min", "/std": value} of every scalar metric across the ranks of the
        process group (population std); {} without one. Every rank must call it with the same keys."""
        if not self.distributed_history:
            return {}
        dist = _sys.modules.get("torch.distributed")
        if dist is None or not dist.is_available() or not dist.is_initialized():
            return {}
        scalars = {key: float(value) for key, value in metrics.items() if isinstance(value, (int, float))}
        if not scalars:
            return {}
        world_size = dist.get_world_size()
        if world_size <= 1:
            return {f"{key}/{stat}": (0.0 if stat == "std" else value)
                    for key, value in scalars.items() for stat in _STATS}
        import torch

        import ezpz

        kind = _reduce_device_type(dist.get_backend(), ezpz.get_torch_device())
        module = getattr(torch, kind, None)
        device = torch.device(kind, module.current_device()) if kind != "cpu" and module else torch.device(kind)
        try:  # float64: the sum of squares of large values keeps the spread (some XPUs have no float64)
            values = torch.tensor(list(scalars.values()), dtype=torch.float64, device=device)
            (values * values).sum().item()
        except RuntimeError:
            values = torch.tensor(list(scalars.values()), dtype=torch.get_default_dtype(), device=device)
        sums = torch.stack([values, values * values])
        extremes = torch.stack([values, -values])
        dist.all_reduce(sums, op=dist.ReduceOp.SUM)
        dist.all_reduce(extremes, op=dist.ReduceOp.MAX)
        mean = sums[0] / world_size
        std = (sums[1] / world_size - mean * mean).clamp_min(0.0).sqrt()
        stats = {}
        for index, key in enumerate(scalars):
            stats[f"{key}/mean"] = float(mean[index].item())
            stats[f"{key}/max"] = float(extremes[0][index].item())
            stats[f"{key}/min"] = float(-extremes[1][index].item())
            stats[f"{key}/std"] = float(std[index].item())
        return stats

    def _write_jsonl_entry(self, metrics, aggregated=None):
        payload = {"timestamp": _time.time(), "rank": self._rank, "metrics": metrics}
        if aggregated and self._rank == 0:
            payload["aggregated"] = aggregated
        line = _json.dumps(payload, default=str) + "\n"
        with self._jsonl_lock:
            try:
                self._jsonl_path.parent.mkdir(parents=True, exist_ok=True)
                with open(self._jsonl_path, "a", encoding="utf-8") as handle:
                    handle.write(line)  # one write: ranks appending to one file keep their lines whole
            except OSError:
                logger.warning("Unable to write JSONL metrics to %s", self._jsonl_path)

    def update(self, metrics, precision=6, use_wandb=None, commit=True, summarize=True, step=None):
        """Records ``metrics`` (a dict of numbers, tensors of one element …) at ``step`` and returns the
        summary line ("iter=3     loss=0.500000(±0.12)"; "" with ``summarize=False``). With a process
        group of more than one rank, every rank must call it with the same keys: rank 0 also records and
        logs each metric's ``/mean``, ``/max``, ``/min`` and ``/std`` across ranks. ``step`` and ``commit``
        go to the trackers; ``use_wandb`` is deprecated (``backends="wandb"``)."""
        if use_wandb is not None:
            _warnings.warn("The 'use_wandb' parameter is deprecated. Use backends='wandb' in the History "
                           "constructor instead.", DeprecationWarning, stacklevel=2)
        plain = {str(key): _plain(value) for key, value in metrics.items()}
        prefix, stripped = _split_prefix(plain)
        self._record(prefix, stripped, step)
        aggregated = self._compute_distributed_metrics(plain)
        logged = dict(plain)
        if aggregated and self._rank == 0:
            cut = len(prefix) + 1
            self._record(prefix, {(key[cut:] if prefix and key.startswith(prefix + "/") else key): value
                                  for key, value in aggregated.items()}, step)
            logged.update(aggregated)
        self._rows.append((logged, step))
        self._tracker.log(logged, step=step, commit=commit)
        self._write_jsonl_entry(logged, aggregated)
        if not summarize:
            return ""
        memory = format_memory_summary(plain)
        parts = (format_compact_summary(logged, precision=precision), f"memory={memory}" if memory else "")
        return " ".join(part for part in parts if part)

    @staticmethod
    def split_metrics_for_logging(metrics, debug_prefixes=("hist/",)):
        """(info metrics, debug metrics): the keys starting with one of ``debug_prefixes`` are debug."""
        info, debug = {}, {}
        for key, value in metrics.items():
            (debug if key.startswith(tuple(debug_prefixes)) else info)[key] = value
        return info, debug

    @staticmethod
    def summarize_min_max_std(metrics):
        """This rank's mean/min/max/std of each numeric metric (one value each: std 0)."""
        summary = {}
        for key, value in metrics.items():
            value = _plain(value)
            if isinstance(value, (int, float)):
                summary.update({f"{key}/mean": float(value), f"{key}/min": float(value),
                                f"{key}/max": float(value), f"{key}/std": 0.0})
        return summary

    def summarize_distributed_min_max_std(self, metrics):
        """The across-rank statistics of ``metrics`` (this rank's alone without a process group), leaving
        out metrics whose statistics are all 0 or whose min is their max."""
        stats = self._compute_distributed_metrics({key: _plain(value) for key, value in metrics.items()})
        stats = stats or self.summarize_min_max_std(metrics)
        kept = {}
        for base in dict.fromkeys(key.rsplit("/", 1)[0] for key in stats):
            group = {stat: stats.get(f"{base}/{stat}") for stat in _STATS}
            if all(value == 0.0 for value in group.values()):
                continue
            if group["min"] is not None and group["min"] == group["max"]:
                continue
            kept.update({f"{base}/{stat}": value for stat, value in group.items() if value is not None})
        return kept

    def log_metrics(self, metrics, *, logger=None, debug_prefixes=("hist/",), include_summary=True,
                    rank0_only_summary=True, precision=6, omit_counter_metrics=True,
                    counter_tokens=("iter", "epoch", "step", "batch", "idx", "bidx")):
        """Logs ``metrics`` as one info line (the summary line, with each metric's ±std across ranks when
        ``include_summary``, on rank 0 only with ``rank0_only_summary``) and the ``debug_prefixes`` keys
        as one debug line. ``logger`` defaults to ezpz's logger for this module."""
        log = logger if logger is not None else _module_logger()
        info, debug = self.split_metrics_for_logging(metrics, debug_prefixes=debug_prefixes)

        def is_counter(key):
            last = key.replace("\\", "/").split("/")[-1]
            return any(last == token or last.endswith(f"_{token}") for token in counter_tokens)

        merged = {key: _plain(value) for key, value in info.items()}
        if include_summary:
            source = {k: v for k, v in info.items() if not (omit_counter_metrics and is_counter(k))}
            stats = self.summarize_distributed_min_max_std(source)
            if stats and (not rank0_only_summary or self._rank == 0):
                merged.update(stats)
        memory = format_memory_summary(merged)
        line = " ".join(part for part in (format_compact_summary(merged, precision=precision).replace("train/", ""),
                                          f"memory={memory}" if memory else "") if part)
        if line:
            log.info(line)
        debug_line = summarize_dict(debug, precision=precision).replace("train/", "")
        if debug_line:
            log.debug(debug_line)

    # -- what finalize() writes --------------------------------------------------------------------

    def _series(self, warmup=0.0):
        """{prefix: {key: (steps, values)}} as plotted: numbers (lists by their mean), against the steps
        update() was given when every value of the key had one, else 0, 1, 2 …; the first ``warmup`` of
        them dropped (a float: a fraction; an int: a count)."""
        series = {}
        for prefix, metrics in self._groups.items():
            for key, values in metrics.items():
                numbers = [_number(value) for value in values]
                steps = self._steps.get(prefix, {}).get(key, [])
                if len(steps) != len(numbers) or any(step is None for step in steps):
                    steps = list(range(len(numbers)))
                drop = 0
                if warmup and numbers:
                    drop = int(warmup) if isinstance(warmup, int) else int(warmup * len(numbers))
                series.setdefault(prefix, {})[key] = (steps[drop:], numbers[drop:])
        return series

    @staticmethod
    def _metric_groups(metrics):
        """{base: {"raw" | "mean" | "max" | "min" | "std": (steps, values)}} of one prefix's metrics."""
        grouped = {}
        for key, data in metrics.items():
            base, slash, stat = key.rpartition("/")
            if slash and base and stat in _STATS:
                grouped.setdefault(base, {})[stat] = data
            else:
                grouped.setdefault(key, {})["raw"] = data
        return grouped

    def _plot_metric_group(self, name, parts, color, outdir, title=None, subplots_kwargs=None):
        """One figure of a metric against the step (its mean line and ±std band across ranks when
        recorded) saved as <outdir>/pngs/<name>.png and svgs/<name>.svg; the PNG's path."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        figure_keys = ("figsize", "dpi", "facecolor", "edgecolor", "linewidth", "frameon", "layout",
                       "tight_layout", "constrained_layout")
        options = dict(subplots_kwargs or {})
        figure = Figure(**{key: options.pop(key) for key in figure_keys if key in options})
        FigureCanvasAgg(figure)
        axes = figure.subplots(**options)
        if "raw" in parts:
            axes.plot(*parts["raw"], label=name, color=color, alpha=0.35, linewidth=1.25)
        if "mean" in parts:
            steps, mean = parts["mean"]
            axes.plot(steps, mean, label=f"{name} mean", color=color, linewidth=2.0)
            if "std" in parts and len(parts["std"][1]) == len(mean):
                std = parts["std"][1]
                axes.fill_between(steps, [m - s for m, s in zip(mean, std)], [m + s for m, s in zip(mean, std)],
                                  color=color, alpha=0.2, label=f"{name} ± std")
        elif "min" in parts and "max" in parts:
            axes.fill_between(parts["min"][0], parts["min"][1], parts["max"][1], color=color, alpha=0.15,
                              label=f"{name} range")
        if not any(kind in parts for kind in ("raw", "mean", "min", "max")):
            for kind, (steps, values) in parts.items():
                axes.plot(steps, values, label=f"{name} {kind}", linewidth=1.75)
        axes.set_xlabel("step")
        axes.set_ylabel(name)
        if title:
            axes.set_title(title)
        axes.spines["top"].set_visible(False)
        axes.spines["right"].set_visible(False)
        axes.legend(loc="best", frameon=False)
        asset = name.replace("/", "_")
        png = None
        for ext in ("png", "svg"):
            folder = _Path(outdir) / f"{ext}s"
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{asset}.{ext}"
            if path.exists():
                path = folder / f"{asset}-{_timestamp()}.{ext}"
            figure.savefig(path, dpi=400, bbox_inches="tight")
            png = png or path
        return png

    def _tplot_metric_group(self, name, parts, outdir, marker=None, plot_type=None):
        """<outdir>/<name>.txt (each of the metric's series against the step), and with across-rank
        statistics <name>_summary.txt (all of them on one set of axes, printed too) and <name>_hist.txt."""
        outdir = _Path(outdir)
        outdir.mkdir(parents=True, exist_ok=True)
        asset = name.replace("/", "_")
        labels = {"raw": name, "mean": f"{name}/mean", "max": f"{name}/max", "min": f"{name}/min",
                  "std": f"{name}/std"}
        plot_type = plot_type or _os.environ.get("EZPZ_TPLOT_TYPE") or "line"
        raw_marker = marker or _os.environ.get("EZPZ_TPLOT_MARKER") or _tplot.DEFAULT_MARKER
        markers = dict(_tplot.MARKERS, raw=raw_marker if len(raw_marker) == 1 else "braille")
        panes = []
        for kind in ("raw", "mean", "max", "min", "std"):
            if kind in parts:
                steps, values = parts[kind]
                if plot_type == "hist":
                    panes.append(_tplot.histogram(values, title=f"{labels[kind]} hist"))
                else:
                    panes.append(_tplot.plot_lines([(None, steps, values, markers[kind])], title=labels[kind],
                                                   xlabel="step"))
        path = outdir / f"{asset}.txt"
        path.write_text("\n".join(panes), encoding="utf-8")
        written = [path]
        if any(stat in parts for stat in _STATS):
            overlay = [(labels[kind], *parts[kind], markers[kind]) for kind in ("max", "min", "mean", "raw")
                       if kind in parts]
            text = _tplot.plot_lines(overlay, width=_tplot.MAX_PLOT_WIDTH - 20, height=_tplot.MAX_PLOT_HEIGHT - 10,
                                     title=name, xlabel="step")
            print("\n" + text, end="", flush=True)
            summary = outdir / f"{asset}_summary.txt"
            summary.write_text(text, encoding="utf-8")
            hists = [_tplot.histogram(parts[stat][1], title=f"{labels[stat]} hist") for stat in _STATS
                     if stat in parts]
            hist = outdir / f"{asset}_hist.txt"
            hist.write_text("\n".join(hists), encoding="utf-8")
            written += [summary, hist]
        return written

    def _plot_group(self, prefix, folder, warmup=0.0, title=None, subplots_kwargs=None, plot_kwargs=None,
                    verbose=False):
        """The matplotlib figures of one prefix's metrics in ``folder``: {metric: PNG path}. Each metric
        has its colour, C0, C1, … in the order of their names (the Python ezpz's)."""
        written = {}
        metrics = self._series(warmup).get(prefix, {})
        for index, (base, parts) in enumerate(sorted(self._metric_groups(metrics).items())):
            name = f"{prefix}/{base}" if prefix else base
            color = (plot_kwargs or {}).get("color") or f"C{index % 9}"
            if verbose:
                logger.info("Saving %s plot to: %s", name, folder)
            written[name] = self._plot_metric_group(name, parts, color, folder, title=title,
                                                    subplots_kwargs=subplots_kwargs)
        return written

    def _tplot_group(self, prefix, folder, warmup=0.0, xkey=None, plot_type=None):
        """The text plots of one prefix's metrics but counters (iter, epoch, step, …) in ``folder``:
        {metric: [files]}."""
        written = {}
        for base, parts in sorted(self._metric_groups(self._series(warmup).get(prefix, {})).items()):
            if _is_counter(base) or (xkey is not None and base == xkey):
                continue
            name = f"{prefix}/{base}" if prefix else base
            written[name] = self._tplot_metric_group(name, parts, folder, plot_type=plot_type)
        return written

    def plot_all(self, num_chains=128, warmup=0.0, title=None, verbose=False, outdir=None, subplots_kwargs=None,
                 plot_kwargs=None, dataset=None, data=None, group_prefix=""):
        """A matplotlib figure of each metric (with its statistics) in ``outdir`` (default plots/mplot in the
        working directory; a prefix's metrics in <outdir>/<prefix>, or only ``group_prefix``'s); {metric:
        PNG path}. Raises ImportError without matplotlib."""
        outdir = _Path(outdir) if outdir is not None else _Path.cwd() / "plots" / "mplot"
        prefixes = [group_prefix] if group_prefix else sorted(self._groups)
        written = {}
        for prefix in prefixes:
            folder = outdir / prefix if prefix and not group_prefix else outdir
            written.update(self._plot_group(prefix, folder, warmup, title, subplots_kwargs, plot_kwargs, verbose))
        return written

    def tplot_all(self, outdir=None, warmup=0.0, append=True, xkey=None, dataset=None, data=None, logfreq=None,
                  plot_type=None, verbose=False, group_prefix=""):
        """The text plots of every metric but counters (iter, epoch, step, …) in ``outdir`` (default: the
        working directory; as plot_all for prefixes); {metric: [files]}."""
        outdir = _Path(outdir) if outdir is not None else _Path.cwd()
        prefixes = [group_prefix] if group_prefix else sorted(self._groups)
        written = {}
        for prefix in prefixes:
            folder = outdir / prefix if prefix and not group_prefix else outdir
            written.update(self._tplot_group(prefix, folder, warmup, xkey, plot_type))
        return written

    def history_to_dict(self):
        """Every metric's values as a numpy array (a list when numpy is not there)."""
        try:
            import numpy
        except ImportError:
            return {key: [_number(v) for v in values] for key, values in self.history.items()}
        return {key: numpy.asarray([_number(v) for v in values]) for key, values in self.history.items()}

    def _default_environment_info(self):
        import platform

        info = {
            "Paths": {"Working directory": str(_Path.cwd())},
            "Python": {"Version": ".".join(str(part) for part in _sys.version_info[:3]),
                       "Implementation": _sys.implementation.name, "Executable": _sys.executable,
                       "Platform": platform.platform()},
        }
        try:
            from importlib.metadata import version

            info["Torch"] = {"Version": version("torch")}
        except Exception:  # noqa: BLE001 - torch is not installed as a distribution
            torch = _sys.modules.get("torch")
            info["Torch"] = {"Version": getattr(torch, "__version__", "unknown")}
        variables = {name: _os.environ[name] for name in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK",
                                                         "LOCAL_RANK") if name in _os.environ}
        if variables:
            info["Environment Variables"] = variables
        try:
            import ezpz

            info["Distributed"] = {str(k): str(v) for k, v in ezpz.get_dist_info().items()}
        except Exception:  # noqa: BLE001 - an ezpz without get_dist_info, or no answer here
            pass
        run = self._tracker.wandb_run
        if run is not None:
            try:
                info["Weights & Biases"] = dict({"Run Name": run.name, "Project": run.project, "URL": run.url},
                                                **{str(k): str(v) for k, v in run.config.items()})
            except Exception:  # noqa: BLE001
                pass
        mlflow = self._tracker.get_backend("mlflow")
        if mlflow is not None and getattr(mlflow, "_active", False):
            info["MLflow"] = {"Run ID": getattr(mlflow, "_run_id", ""),
                              "Experiment ID": getattr(mlflow, "_experiment_id", ""),
                              "Tracking URI": getattr(mlflow, "_tracking_uri", "")}
            if mlflow.run_url:
                info["MLflow"]["URL"] = mlflow.run_url
        return info

    def _write_report(self, path, env_details, series, plots):
        """report.md: the environment, the latest value of each metric (and of its statistics) and the
        plots, each as a section."""
        lines = [f"# History Report ({self._run_id})", "", f"_Generated at {_utc_iso()}_", "", "## Environment", ""]
        for section, details in env_details.items():
            if isinstance(details, dict):
                lines += [f"### {section}", ""] + [f"- **{k}**: {v}" for k, v in details.items()] + [""]
            else:
                lines.append(f"- **{section}**: {details}")
        lines += ["## Metric Overview", ""]
        for prefix, metrics in sorted(series.items()):
            for base, parts in sorted(self._metric_groups(metrics).items()):
                rows = [(("Latest" if kind == "raw" else kind.capitalize()), f"{parts[kind][1][-1]:.6f}")
                        for kind in ("raw", "mean", "max", "min", "std") if kind in parts and parts[kind][1]]
                if not rows:
                    continue
                width = max(len("Statistic"), *(len(label) for label, _ in rows))
                value_width = max(len("Value"), *(len(value) for _, value in rows))
                lines += [f"### {prefix + '/' if prefix else ''}{base}", "",
                          f"| {'Statistic':<{width}} | {'Value':>{value_width}} |",
                          f"|:{'-' * (width - 1)} | {'-' * (value_width - 1)}:|"]
                lines += [f"| {label:<{width}} | {value:>{value_width}} |" for label, value in rows] + [""]
        for name, files in plots:
            for asset in files:
                lines += [f"## {name}", ""]
                relative = _os.path.relpath(asset, path.parent)
                if asset.suffix == ".txt":
                    text = asset.read_text(encoding="utf-8").splitlines()[:40]
                    lines += ["```"] + text + ["```", ""]
                else:
                    lines += [f"![{name}]({_Path(relative).as_posix()})", ""]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def _save_hdf5(self, base_dir, series, dataset_fname):
        """dataset.h5 (one per prefix when there are several: <prefix>_dataset.h5) with one float array per
        metric, named as the Python ezpz names them ("/" becomes "_"); {} without h5py."""
        try:
            import h5py
        except ImportError:
            logger.info("h5py is not importable: no dataset.h5")
            return {}
        written = {}
        several = len(series) > 1
        for prefix, metrics in sorted(series.items()):
            label = (prefix or dataset_fname or "dataset") if several else (dataset_fname or "dataset")
            path = base_dir / ("dataset.h5" if label == "dataset" else f"{label}_dataset.h5")
            with h5py.File(path, "w") as handle:
                for key, (_, values) in metrics.items():
                    if values:
                        handle.create_dataset(key.replace("/", "_"), data=values, maxshape=(None,))
            written[f"Dataset ({label})" if several else "Dataset"] = str(path)
        return written

    def finalize(self, outdir=None, run_name=None, dataset_fname=None, num_chains=128, warmup=0.0, verbose=False,
                 save=True, plot=True, append_tplot=True, title=None, data=None, dataset=None, xkey=None,
                 plot_kwargs=None, subplots_kwargs=None, tplot_type=None, env_info=None, timings=None):
        """Writes the run's files into ``outdir`` (default ./outputs/<run_name>/<timestamp>) and closes the
        trackers; call it on rank 0. There: <run id>.jsonl (moved from where update() wrote it),
        metrics.csv, run_info.json, report.md, plots/mplot/[<prefix>/]pngs|svgs/<metric>.png|svg (with
        matplotlib), plots/tplot/[<prefix>/]<metric>.txt, and dataset.h5 (with h5py). ``warmup`` drops the
        first values (a fraction, or a count) from plots and datasets; ``env_info`` replaces the
        environment run_info.json and the report describe, ``timings`` ({name: seconds}) is added to it.
        Returns {metric: values}, or {prefix: {metric: values}} when there are several prefixes."""
        run_name = run_name or f"History-{_timestamp()}"
        base_dir = (_Path(outdir) if outdir is not None else _Path.cwd() / "outputs" / run_name / _timestamp())
        base_dir = base_dir.expanduser().resolve()
        base_dir.mkdir(parents=True, exist_ok=True)
        output_files = {"Output Directory": str(base_dir)}
        # metrics.csv: the csv tracker's, moved here; else the same rows written here.
        csv_backend = self._tracker.get_backend("csv")
        if isinstance(csv_backend, _tracker.CSVBackend):
            csv_backend.redirect(base_dir)
            csv_path = csv_backend.csv_path
        else:
            writer = _tracker.CSVBackend(base_dir, rank=0)
            for metrics, step in self._rows:
                writer.log(metrics, step=step, commit=False)
            writer.finish()
            csv_path = writer.csv_path
        with self._jsonl_lock:  # an update() from another thread appends before the move or after it
            moved = base_dir / self._jsonl_path.name
            if moved != self._jsonl_path:
                try:
                    if self._jsonl_path.exists():
                        _shutil.move(str(self._jsonl_path), str(moved))
                    self._jsonl_path = moved
                except OSError as error:
                    logger.warning("Failed to relocate JSONL %s -> %s: %s", self._jsonl_path, moved, error)
        label = dataset_fname or "dataset"
        report_dir = base_dir / dataset_fname if dataset_fname else base_dir
        if dataset_fname:
            self._report_filename = f"report-{label}.md"
        self._report_dir = report_dir
        env_details = dict(env_info) if env_info is not None else self._default_environment_info()
        if timings:
            env_details["Timings"] = {key: f"{value:.2f}s" for key, value in timings.items()}
        paths = dict(env_details.get("Paths") or {})
        paths.setdefault("Working Directory", str(_Path.cwd()))
        paths["Output Directory"] = str(base_dir)
        if self.report_enabled:
            paths["Report"] = output_files["Report"] = str(report_dir / self._report_filename)
        plotdir = base_dir / "plots" / dataset_fname if dataset_fname else base_dir / "plots"
        if plot:
            paths["Plots (matplotlib)"] = output_files["Plots (matplotlib)"] = str(plotdir / "mplot")
            paths["Plots (terminal)"] = output_files["Plots (terminal)"] = str(plotdir / "tplot")
        paths["Metrics JSONL"] = output_files["Metrics JSONL"] = str(self._jsonl_path)
        paths["Metrics CSV"] = output_files["Metrics CSV"] = str(csv_path)
        env_details["Paths"] = paths
        if self._rank == 0:
            run_info = base_dir / "run_info.json"
            try:
                run_info.write_text(_json.dumps(env_details, indent=2, default=str), encoding="utf-8")
                output_files["Run Info"] = str(run_info)
            except (OSError, TypeError, ValueError) as error:
                logger.warning("Unable to write %s (%s)", run_info, error)
        series = self._series(warmup)
        report_plots = []
        if plot and series:
            logger.info("Saving plots to %s (matplotlib) and %s (tplot)", plotdir / "mplot", plotdir / "tplot")
            try:
                import matplotlib  # noqa: F401 - only whether it is there

                has_matplotlib = True
            except ImportError:
                has_matplotlib = False
                logger.info("matplotlib is not importable: text plots only (plots/tplot)")
            for prefix in sorted(series):
                if has_matplotlib:
                    folder = plotdir / "mplot" / prefix if prefix else plotdir / "mplot"
                    group_title = f"{title} [{prefix}]" if title and prefix else (prefix or title)
                    pngs = self._plot_group(prefix, folder, warmup, group_title, subplots_kwargs, plot_kwargs,
                                            verbose)
                    for name, png in pngs.items():
                        if png is not None and self._rank == 0:
                            self._tracker.log_image(f"plots/{name}", str(png), caption=f"matplotlib:{name}")
                        report_plots.append((name, [png] if png is not None else []))
                folder = plotdir / "tplot" / prefix if prefix else plotdir / "tplot"
                texts = self._tplot_group(prefix, folder, warmup, xkey, tplot_type)
                report_plots += list(texts.items())
        if save:
            output_files.update(self._save_hdf5(base_dir, series, dataset_fname))
        if self.report_enabled:
            report = report_dir / self._report_filename
            try:
                self._write_report(report, env_details, series, report_plots)
                logger.info("Saving history report to %s", report)
            except OSError as error:
                logger.warning("Unable to write %s (%s)", report, error)
        run = self._tracker.wandb_run
        if run is not None:
            logger.info("wandb.run=[%s](%s)", getattr(run, "name", ""), getattr(run, "url", ""))
        history = self.history
        if history:
            columns = list(history)
            length = max(len(values) for values in history.values())
            rows = [[history[c][i] if i < len(history[c]) else None for c in columns] for i in range(length)]
            self._tracker.log_table("training_history", columns=columns, data=rows)
        self._tracker.log_artifacts(output_files)
        logger.info("Output files:")
        for name, path in output_files.items():
            logger.info("  %s: %s", name, path)
        self._tracker.finish()
        values = {prefix: {key: numbers for key, (_, numbers) in metrics.items()} for prefix, metrics in series.items()}
        if len(values) > 1:
            return values
        return next(iter(values.values()), {})


def _module_logger():
    """ezpz's logger for this module when the package has get_logger, else the standard one."""
    import ezpz

    get_logger = getattr(ezpz, "get_logger", None)
    if get_logger is not None:
        try:
            return get_logger(__name__)
        except Exception:  # noqa: BLE001
            pass
    return logger
