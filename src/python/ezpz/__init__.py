"""ezpz: portable distributed PyTorch jobs on HPC systems.

The job tools (the same pipeline as the ``ezpz`` command, run by the ``ezpz`` executable installed with
this package: ``ezpz api``)::

    import ezpz
    script = ezpz.render("job.yaml", system="polaris", set={"nodes": 4})
    problems = ezpz.validate({"system": "slurm", "nodes": 2, "walltime": "1h", "run": "python3 train.py"})
    # -> [] when valid, else ezpz.Diagnostic objects with file, line, column, message and hint

and the training API of the Python ezpz (saforem2/ezpz), with its names, signatures and module paths
(ezpz.distributed, ezpz.dist, ezpz.log, ezpz.utils, ezpz.flops, ezpz.launch, ezpz.tp, ezpz.history,
ezpz.tracker)::

    rank = ezpz.setup_torch()
    model = ezpz.wrap_model(model)
    logger = ezpz.get_logger(__name__)

``import ezpz`` imports none of torch, numpy, matplotlib, wandb or mlflow, and not even the training
modules: each name is looked up in its module on first use (``__getattr__`` below, the table
``_LAZY``). Rank, device and job facts come from ezpz's C++ rules (docs/python.md).
"""

import os as _os

from . import _api
from ._api import Diagnostic, Error

# Every public name of the training API → the module that defines it (imported on first use).
_LAZY = {}
for _module, _names in (
    ("distributed", (
        "setup_torch", "cleanup", "get_rank", "get_local_rank", "get_world_size", "get_world_size_total",
        "get_world_size_in_use", "get_num_nodes", "get_gpus_per_node", "get_cpus_per_node", "get_node_index",
        "get_device_properties", "get_torch_device", "get_torch_device_type", "get_torch_backend",
        "TORCH_DTYPES_MAP", "synchronize", "barrier", "broadcast", "all_reduce", "wrap_model",
        "wrap_model_for_ddp", "wrap_model_for_fsdp", "wrap_model_for_fsdp2", "init_device_mesh_safe",
        "flatten_device_mesh_safe", "get_dist_info", "get_hostname", "get_machine", "query_environment",
        "print_dist_setup", "seed_everything", "log_dict_as_bulleted_list", "timeitlogit")),
    ("utils", (
        "Color", "NoColor", "DistributedPdb", "ForkedPdb", "get_timestamp", "format_pair", "summarize_dict",
        "model_summary", "grab_tensor", "get_max_memory_allocated", "get_max_memory_reserved",
        "get_current_memory_allocated", "get_current_memory_reserved", "reset_peak_memory_stats",
        "get_memory_metrics", "format_memory_summary", "is_memory_metric_key", "format_compact_summary")),
    ("log", ("get_logger", "silence_noisy_loggers")),
    ("flops", ("compute_mfu", "try_estimate")),
    ("launch", ("get_active_jobid", "get_nodelist_of_active_job", "get_scheduler")),
    ("history", ("History",)),
    ("tracker", ("setup_wandb", "setup_mlflow", "verify_wandb")),
):
    _LAZY.update(dict.fromkeys(_names, _module))
del _module, _names

# The submodules, reachable as ezpz.<name> without an import of their own.
_SUBMODULES = ("distributed", "dist", "log", "utils", "flops", "launch", "tp", "history", "tracker", "tplot",
               "examples", "run")

__all__ = [
    "Diagnostic", "Error", "version", "systems", "render", "resolve", "validate", "submit", "status", "cancel",
    "get_torch_version_as_float", "get_torch_version_tuple", "try_import_wandb", *_LAZY, *_SUBMODULES,
]


def version():
    """The version of ezpz ("0.1.0"): the version of the ezpz executable this package runs."""
    return _api.call("version")


def __getattr__(name):
    # Looked up only for names not defined yet: each is imported from its module once, then kept here.
    # __version__ is asked of the executable on first use, so that `import ezpz` starts no process.
    if name == "__version__":
        return version()
    if name in _LAZY or name in _SUBMODULES:
        import importlib

        module = importlib.import_module(f"{__name__}.{_LAZY.get(name, name)}")
        value = module if name in _SUBMODULES else getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ezpz' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


def get_torch_version_tuple():
    """torch's (major, minor) as integers: (1, 13)."""
    import torch

    major, minor = torch.__version__.split(".")[:2]
    return int(major), int(minor)


def get_torch_version_as_float():
    """torch's major.minor as a float (1.13); get_torch_version_tuple() compares safely."""
    major, minor = get_torch_version_tuple()
    return float(f"{major}.{minor}")


def try_import_wandb():
    """The wandb module, or None when it is not installed or WANDB_DISABLED / WANDB_MODE=disabled."""
    if _os.environ.get("WANDB_DISABLED") or _os.environ.get("WANDB_MODE", "").lower() == "disabled":
        return None
    try:
        import wandb
    except Exception:  # noqa: BLE001 - any failure to import: no wandb
        return None
    return wandb


def _default_ezpz_bin():
    """The ezpz executable a rendered script runs on the nodes: $EZPZ_BIN, else the one this package runs."""
    return _os.environ.get("EZPZ_BIN") or _api.executable()


def _spec(spec):
    """A spec from a path (str or os.PathLike), YAML text (a str with a newline) or a dict, as the
    request member ``spec`` of ``ezpz api``."""
    if isinstance(spec, dict):
        return {"values": _api.plain(spec, "")}
    if isinstance(spec, _os.PathLike):
        return {"path": _os.fspath(spec)}
    if isinstance(spec, str):
        looks_like_path = spec == "-" or spec.endswith((".yaml", ".yml")) or _os.path.exists(spec)
        if "\n" not in spec and (looks_like_path or ":" not in spec):
            return {"path": spec}
        return {"text": spec}
    raise TypeError(f"a spec is a path, YAML text or a dict, not {type(spec).__name__}")


def _assignment(key, value):
    if value is None:
        raise TypeError(f"set: no value for {key!r} (a key cannot be unset; leave it out)")
    if isinstance(value, bool):
        value = "true" if value else "false"
    elif isinstance(value, (list, tuple, dict)):
        import json

        value = json.dumps(value)  # YAML flow syntax, as --set reads it
    return f"{key}={value}"


def _overrides(system, set, env):
    """The arguments every pipeline call takes: --system, --set and the EZPZ_* overrides."""
    if set is None:
        assignments = []
    elif isinstance(set, dict):
        assignments = [_assignment(key, value) for key, value in set.items()]
    elif isinstance(set, str):
        assignments = [set]
    else:
        assignments = list(set)
    overrides = dict(system=system or "", set=assignments)
    if env is not None:
        overrides["env"] = {str(key): str(value) for key, value in env.items()}
    return overrides


def systems():
    """Every system ezpz knows: a list of dicts with name, description, scheduler and path."""
    return _api.call("systems")


def render(spec, system=None, set=None, env=None, ezpz_bin=None):
    """The batch script for ``spec`` (a path, YAML text or dict), as ``ezpz render`` prints it.

    ``system`` is --system; ``set`` is a dict (or a list of "KEY=VALUE") of --set overrides; ``env`` is a
    dict of EZPZ_* overrides (None: this process's environment, as the command reads it). Raises
    ezpz.Error, whose ``diagnostics`` list every problem. ``ezpz_bin`` is the ezpz executable the script
    runs on the nodes when EZPZ_BIN is not set there (default: $EZPZ_BIN, else the one installed with this
    package, else the one on PATH).
    """
    return _api.call("render", spec=_spec(spec), ezpz_bin=ezpz_bin or _default_ezpz_bin(),
                     **_overrides(system, set, env))


def resolve(spec, system=None, set=None, env=None, explain=False):
    """Every resolved value as a dict; with ``explain=True`` each is {"value": …, "kind": …, "origin": …}:
    kind is default, profile, spec, env, cli or derived, and origin says where ("spec job.yaml:4:8")."""
    return _api.call("resolve", spec=_spec(spec), explain=bool(explain), **_overrides(system, set, env))


def validate(spec, system=None, set=None, env=None):
    """Every problem as a list of ezpz.Diagnostic (errors first, then warnings); [] when valid.

    Raises ezpz.Error only when the spec cannot be read at all (a missing file, broken YAML).
    """
    return [_api.Diagnostic(**item) for item in _api.call("validate", spec=_spec(spec), **_overrides(system, set, env))]


def submit(spec, system=None, set=None, env=None, ezpz_bin=None, records_dir=None, submit_dir=None, hold=False,
           run=None):
    """Renders, keeps and submits the job; returns {"job_id", "record_dir", "script", "system"}.

    ``run(argv, cwd) -> (exit_code, stdout, stderr)`` replaces the real qsub/sbatch when given.
    """
    return _api.call("submit", run=run, spec=_spec(spec), ezpz_bin=ezpz_bin or _default_ezpz_bin(),
                     records_dir=records_dir or "", submit_dir=submit_dir or "", hold=bool(hold),
                     **_overrides(system, set, env))


def status(job_id, records_dir=None, system=None, run=None):
    """The job's state: {"job_id", "state", "done", "exit_code", "scheduler_state", "detail"}."""
    return _api.call("status", run=run, job_id=str(job_id), records_dir=records_dir or "", system=system or "")


def cancel(job_id, records_dir=None, system=None, run=None):
    """Cancels the job (qdel, scancel); returns what the scheduler printed on stderr."""
    return _api.call("cancel", run=run, job_id=str(job_id), records_dir=records_dir or "", system=system or "")
