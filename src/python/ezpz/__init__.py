"""ezpz: portable distributed PyTorch jobs on HPC systems.

The job tools (the same pipeline as the ``ezpz`` command, run by the ``ezpz`` executable installed with
this package: ``ezpz api``)::

    import ezpz
    script = ezpz.render("job.yaml", system="polaris", set={"nodes": 4})
    problems = ezpz.validate({"system": "slurm", "nodes": 2, "walltime": "1h", "run": "python3 train.py"})
    # -> [] when valid, else ezpz.Diagnostic objects with file, line, column, message and hint

and the runtime for training scripts, with the names and meanings of the Python ezpz::

    rank = ezpz.setup_torch()

``import ezpz`` does not import torch: only the runtime calls that need it do (docs/python.md).
"""

import os as _os

from . import _api
from ._api import Diagnostic, Error
from .distributed import (
    cleanup,
    get_local_rank,
    get_rank,
    get_torch_backend,
    get_torch_device,
    get_world_size,
    setup_torch,
)

__all__ = [
    "Diagnostic", "Error", "version", "systems", "render", "resolve", "validate", "submit", "status", "cancel",
    "setup_torch", "get_rank", "get_local_rank", "get_world_size", "get_torch_device", "get_torch_backend", "cleanup",
]


def version():
    """The version of ezpz ("0.1.0"): the version of the ezpz executable this package runs."""
    return _api.call("version")


def __getattr__(name):
    # __version__ is asked of the executable on first use, so that `import ezpz` starts no process.
    if name == "__version__":
        return version()
    raise AttributeError(f"module 'ezpz' has no attribute {name!r}")


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
