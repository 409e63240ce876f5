"""Where History's metrics go besides its own files: trackers (csv always; wandb and mlflow when they
import), and ``setup_wandb``, ``setup_mlflow`` and ``verify_wandb`` as the Python ezpz has them.

Only rank 0 starts a run or writes a file. A tracker that is missing, disabled or failing costs a warning,
never an exception: a training run does not stop for its bookkeeping. wandb and mlflow are imported by
the calls that use them, never by ``import ezpz.tracker``.
"""

import csv as _csv
import json as _json
import logging as _logging
import os as _os
import sys as _sys

logger = _logging.getLogger(__name__)

__all__ = [
    "CSVBackend", "MLflowBackend", "NullTracker", "Tracker", "TrackerBackend", "WandbBackend",
    "register_backend", "resolve_backend_names", "setup_mlflow", "setup_tracker", "setup_wandb", "verify_wandb",
]

# Values of a switch such as WANDB_DISABLED that leave it off (wandb's own reading: "true" disables).
_FALSE_WORDS = ("", "0", "false", "no", "off")
_WANDB_MODES = ("online", "offline", "disabled", "shared")


def rank_and_world_size():
    """This process's global rank and the number of ranks: torch.distributed's when a process group is
    initialised (the group History reduces over), else ezpz's (the C++ runtime's rank discovery).
    torch is not imported for this: a script that never imported it has no process group."""
    dist = _sys.modules.get("torch.distributed")
    if dist is not None and dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    import ezpz

    return ezpz.get_rank(), ezpz.get_world_size()


def _rank(rank=None):
    return rank_and_world_size()[0] if rank is None else int(rank)


def _default_project_name():
    """The Python ezpz's project name for a script: ``ezpz.<its folder>.<its name>`` ("ezpz" without one)."""
    path = getattr(_sys.modules.get("__main__"), "__file__", None)
    if not path:
        return "ezpz"
    folder = _os.path.basename(_os.path.dirname(_os.path.abspath(path)))
    return f"ezpz.{folder}.{_os.path.splitext(_os.path.basename(path))[0]}"


def _project_from_env():
    for name in ("WB_PROJECT", "WANDB_PROJECT", "WB_PROJECT_NAME"):
        if _os.environ.get(name):
            return _os.environ[name]
    return None


# ── wandb ────────────────────────────────────────────────────────────────────


def _wandb_switched_off():
    """Why the environment turns wandb off ("WANDB_DISABLED=true", "WANDB_MODE=disabled"), or ""."""
    disabled = _os.environ.get("WANDB_DISABLED", "")
    if disabled.strip().lower() not in _FALSE_WORDS:
        return f"WANDB_DISABLED={disabled}"
    if _os.environ.get("WANDB_MODE", "").strip().lower() == "disabled":
        return f"WANDB_MODE={_os.environ['WANDB_MODE']}"
    return ""


def _wandb_has_credentials(wandb):
    if _os.environ.get("WANDB_API_KEY"):
        return True
    try:
        if wandb.api.api_key is not None:
            return True
    except Exception:  # noqa: BLE001 - an old or stubbed wandb without .api
        pass
    try:
        import netrc

        path = _os.path.expanduser("~/.netrc")
        return _os.path.isfile(path) and bool(netrc.netrc(path).authenticators("api.wandb.ai"))
    except Exception:  # noqa: BLE001 - an unreadable .netrc is no credential
        return False


def _wandb_unusable():
    """(wandb or None, why it cannot start a run or ""): missing, switched off, or neither offline nor
    with credentials (WANDB_API_KEY, wandb's stored key, ~/.netrc)."""
    try:
        import wandb
    except Exception as error:  # noqa: BLE001 - ImportError, or a broken install
        return None, f"not importable ({error}; pip install wandb)"
    off = _wandb_switched_off()
    if off:
        return wandb, f"disabled ({off})"
    if _os.environ.get("WANDB_MODE", "").strip().lower() == "offline" or _wandb_has_credentials(wandb):
        return wandb, ""
    return wandb, "without credentials (set WANDB_API_KEY, run `wandb login`, or WANDB_MODE=offline)"


def verify_wandb():
    """True when wandb imports, is not switched off (WANDB_DISABLED, WANDB_MODE=disabled) and can start a
    run: WANDB_MODE=offline, or credentials (WANDB_API_KEY, wandb's stored key, ~/.netrc). A missing
    wandb is said once, on rank 0, as a warning."""
    wandb, why = _wandb_unusable()
    if wandb is None and _rank() == 0:
        logger.warning("ezpz: wandb is %s", why)
    return not why


# The facts about the run that setup_wandb adds to the run's config: config key -> the ezpz function
# that knows it (the Python ezpz's keys; a function this ezpz lacks is left out).
_WANDB_RUN_FACTS = (
    ("hostname", "get_hostname"), ("pytorch_backend", "get_torch_backend"), ("world_size", "get_world_size"),
    ("machine", "get_machine"), ("jobid", "get_active_jobid"), ("num_nodes", "get_num_nodes"),
    ("ranks_per_node", "get_gpus_per_node"), ("device_type", "get_torch_device_type"),
)


def _run_facts():
    import datetime

    import ezpz

    now = datetime.datetime.now()
    facts = {"working_directory": _os.getcwd(), "year": now.year, "month": now.month, "day": now.day,
             "tstamp": now.isoformat(), "python_version": _sys.version.split()[0]}
    for key, function in _WANDB_RUN_FACTS:
        try:
            facts[key] = getattr(ezpz, function)()
        except Exception:  # noqa: BLE001 - a fact this ezpz does not have, or cannot tell here
            continue
    try:
        facts["ezpz_version"] = ezpz.version()
    except Exception:  # noqa: BLE001
        pass
    torch = _sys.modules.get("torch")
    if torch is not None:
        facts["torch_version"] = getattr(torch, "__version__", "")
    return facts


def setup_wandb(project_name=None, entity=None, config=None, outdir=None, project=None, dir=None, id=None, name=None,
                notes=None, tags=None, config_exclude_keys=None, config_include_keys=None, allow_val_change=None,
                group=None, job_type=None, mode=None, force=False, reinit=None, resume=None, resume_from=None,
                fork_from=None, save_code=None, init_timeout=None, start_method=None, tensorboard=None,
                sync_tensorboard=None, monitor_gym=None, settings=None, **kwargs):
    """Starts a wandb run on rank 0 and returns it (``wandb.run``); None on every other rank, and, with one
    warning, when wandb is missing, switched off (WANDB_DISABLED, WANDB_MODE=disabled), without
    credentials, or fails to start. Never raises.

    The project is ``project`` or ``project_name``, else $WB_PROJECT, $WANDB_PROJECT, $WB_PROJECT_NAME,
    else ``ezpz.<folder>.<script>``; the mode ``mode`` or $WANDB_MODE (default online). ``config`` lands
    under the run config's "config" key, beside the run's facts (hostname, world_size, machine, …).
    The other arguments go to ``wandb.init`` when given.
    """
    if _rank() != 0:
        return None
    wandb, why = _wandb_unusable()
    if why:
        logger.warning("ezpz: wandb is %s; not starting a run", why)
        return None
    chosen_mode = (mode or _os.environ.get("WANDB_MODE") or "online").strip().lower()
    if chosen_mode not in _WANDB_MODES:
        logger.warning("ezpz: wandb mode %r is none of %s; not starting a run", chosen_mode, ", ".join(_WANDB_MODES))
        return None
    given = dict(entity=entity, id=id, name=name, notes=notes, tags=tags, config_exclude_keys=config_exclude_keys,
                 config_include_keys=config_include_keys, allow_val_change=allow_val_change, group=group,
                 job_type=job_type, reinit=reinit, resume=resume, resume_from=resume_from, fork_from=fork_from,
                 save_code=save_code, tensorboard=tensorboard, sync_tensorboard=sync_tensorboard,
                 monitor_gym=monitor_gym)
    options = {key: value for key, value in given.items() if value is not None}
    if force:
        options["force"] = True
    options.update(kwargs)
    options["project"] = project or project_name or _project_from_env() or _default_project_name()
    options["dir"] = _os.fspath(dir) if dir is not None else (_os.fspath(outdir) if outdir else _os.getcwd())
    options["mode"] = chosen_mode
    try:
        if settings is not None:
            options["settings"] = settings
        elif hasattr(wandb, "Settings"):
            extra = {"start_method": start_method} if start_method is not None else {}
            options["settings"] = wandb.Settings(init_timeout=init_timeout if init_timeout is not None else 60,
                                                 **extra)
        run = wandb.init(**options)
    except Exception as error:  # noqa: BLE001 - wandb's own errors, a network failure
        logger.warning("ezpz: wandb.init() failed (%s); continuing without wandb", error)
        return None
    if run is not None:
        try:  # bookkeeping on a live run: a failure here must not lose the run
            run.config.update(_run_facts(), allow_val_change=True)
            if config is not None:
                run.config.update({"config": config}, allow_val_change=True)
        except Exception as error:  # noqa: BLE001
            logger.warning("ezpz: wandb run config update failed (%s); the run goes on", error)
    return getattr(wandb, "run", None) or run


# ── Backends ─────────────────────────────────────────────────────────────────


class TrackerBackend:
    """One place metrics go. ``log``, ``log_config`` and ``finish`` are what a backend must do; the rest
    are no-ops unless a backend can do them."""

    name = "base"

    def log(self, metrics, step=None, commit=True):
        raise NotImplementedError

    def log_config(self, config):
        raise NotImplementedError

    def finish(self):
        raise NotImplementedError

    def log_table(self, key, columns, data):
        """A table (rows of ``columns``)."""

    def log_image(self, key, image_path, caption=None):
        """An image file."""

    def log_artifacts(self, paths):
        """Files to keep with the run: {label: path}."""

    def watch(self, model, **kwargs):
        """Gradient and parameter tracking of a model."""


def write_csv(path, fieldnames, rows):
    """``rows`` (dicts) as a CSV file with the header ``fieldnames``; a row lacking a column leaves it empty."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = _csv.DictWriter(handle, fieldnames=fieldnames, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


class CSVBackend(TrackerBackend):
    """metrics.csv (one row per log; a new key adds a column) and config.json in ``outdir``, written by
    rank 0 only (other ranks keep the rows in memory)."""

    name = "csv"

    def __init__(self, outdir, rank=0):
        self._rank = int(rank)
        self._outdir = _os.fspath(outdir)
        if self._rank == 0:
            _os.makedirs(self._outdir, exist_ok=True)
        self._fieldnames = []
        self._rows = []
        self._written = (None, 0)  # (the header written, how many rows are in the file)

    @property
    def csv_path(self):
        return _os.path.join(self._outdir, "metrics.csv")

    def redirect(self, outdir):
        """Moves metrics.csv (and later writes) to ``outdir`` (History.finalize's output directory)."""
        old = self.csv_path
        self._outdir = _os.fspath(outdir)
        if old != self.csv_path and self._rank == 0 and _os.path.isfile(old):
            try:
                _os.unlink(old)
            except OSError:
                pass
        self._written = (None, 0)

    def log(self, metrics, step=None, commit=True):
        row = dict(metrics)
        if step is not None:
            row.setdefault("step", step)
        self._fieldnames.extend(key for key in row if key not in self._fieldnames)
        self._rows.append(row)
        if commit:
            self._flush()

    def log_config(self, config):
        if self._rank != 0:
            return
        path = _os.path.join(self._outdir, "config.json")
        merged = {}
        try:
            with open(path, encoding="utf-8") as handle:
                merged = _json.load(handle)
        except (OSError, ValueError):
            pass
        merged.update(config)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(_json.dumps(merged, indent=2, default=str) + "\n")

    def finish(self):
        self._flush()

    def log_table(self, key, columns, data):
        if self._rank != 0:
            return
        with open(_os.path.join(self._outdir, f"{key}.csv"), "w", newline="", encoding="utf-8") as handle:
            writer = _csv.writer(handle)
            writer.writerow(columns)
            writer.writerows(data)

    def _flush(self):
        if self._rank != 0 or not self._rows:
            return
        header, count = self._written
        _os.makedirs(self._outdir, exist_ok=True)
        if header == self._fieldnames and _os.path.isfile(self.csv_path):
            # The same columns: only the new rows are appended (a long run does not rewrite its file).
            with open(self.csv_path, "a", newline="", encoding="utf-8") as handle:
                writer = _csv.DictWriter(handle, fieldnames=self._fieldnames, extrasaction="ignore")
                writer.writerows(self._rows[count:])
        else:
            write_csv(self.csv_path, self._fieldnames, self._rows)
        self._written = (list(self._fieldnames), len(self._rows))


class WandbBackend(TrackerBackend):
    """Weights & Biases through ``setup_wandb`` (rank 0 only). ``config`` lands at the top of the run's
    config. Raises ImportError (which setup_tracker turns into a warning) when wandb is missing."""

    name = "wandb"

    def __init__(self, project_name=None, config=None, outdir=None, rank=None, **kwargs):
        self._run = None
        if _rank(rank) != 0:
            return
        import wandb

        self._wandb = wandb
        if outdir is not None:
            kwargs.setdefault("dir", _os.fspath(outdir))
        self._run = setup_wandb(project_name=project_name or _project_from_env() or _default_project_name(),
                                **kwargs)
        if self._run is not None and config is not None:
            self._run.config.update(config)

    @property
    def run(self):
        """The wandb run, or None."""
        return self._run

    def log(self, metrics, step=None, commit=True):
        if self._run is not None:
            self._wandb.log(metrics, commit=commit, **({} if step is None else {"step": step}))

    def log_config(self, config):
        if self._run is not None:
            self._run.config.update(config)

    def finish(self):
        if self._run is not None:
            self._wandb.finish()

    def log_table(self, key, columns, data):
        if self._run is not None:
            self._wandb.log({key: self._wandb.Table(columns=columns, data=data)})

    def log_image(self, key, image_path, caption=None):
        if self._run is not None:
            self._wandb.log({key: self._wandb.Image(_os.fspath(image_path), caption=caption)})

    def watch(self, model, **kwargs):
        if self._run is not None:
            self._run.watch(model, **kwargs)


def _flatten(values, prefix=""):
    """A nested dict as {"a.b.c": str(value)}: MLflow's params are flat strings."""
    flat = {}
    for key, value in values.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict):
            flat.update(_flatten(value, name))
        else:
            flat[name] = str(value)
    return flat


class MLflowBackend(TrackerBackend):
    """MLflow Tracking (rank 0 only): the experiment is $MLFLOW_EXPERIMENT_NAME, else ``project_name``,
    else the wandb project variables, else ``ezpz-<folder>-<script>`` (dots become hyphens); the tracking
    URI is MLflow's own ($MLFLOW_TRACKING_URI). Metrics without a step get 0, 1, 2 …; when a metric's
    across-rank statistics are logged beside it, its own value is logged as ``<name>/local``. Raises
    ImportError when mlflow is missing."""

    name = "mlflow"

    def __init__(self, project_name=None, config=None, outdir=None, rank=None, **kwargs):
        self._run = None
        self._active = False
        if _rank(rank) != 0:
            return
        import mlflow

        self._mlflow = mlflow
        experiment = (_os.environ.get("MLFLOW_EXPERIMENT_NAME") or project_name or _project_from_env()
                      or _default_project_name()).replace(".", "-")
        try:
            mlflow.set_experiment(experiment)
            self._run = mlflow.start_run(**kwargs)
        except Exception as error:  # noqa: BLE001 - a server that refuses, a bad URI
            logger.warning("ezpz: mlflow could not start a run in experiment %r (%s); continuing without mlflow",
                           experiment, error)
            self._run = None
            return
        self._active = True
        self._step = 0
        self._warned = False
        facts = _run_facts()
        facts.update(rank=0, command=" ".join(_sys.argv))
        self._call("log_params", _flatten({"ezpz": facts}))
        if config is not None:
            self.log_config({"config": config})
        self._tracking_uri = mlflow.get_tracking_uri()
        info = self._run.info
        self._experiment_id, self._run_id = info.experiment_id, info.run_id
        self._run_url = None
        if str(self._tracking_uri).startswith("http"):
            self._run_url = (f"{str(self._tracking_uri).rstrip('/')}/#/experiments/{self._experiment_id}"
                             f"/runs/{self._run_id}")

    @property
    def run(self):
        """The MLflow ActiveRun, or None."""
        return self._run

    @property
    def run_url(self):
        """The run's page on a tracking server (None for a local file store)."""
        return getattr(self, "_run_url", None)

    def _call(self, method, *args, **kwargs):
        try:
            getattr(self._mlflow, method)(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - said once: a refusing server refuses every call
            if not self._warned:
                logger.warning("ezpz: mlflow.%s failed (%s); further failures are not reported", method, error)
                self._warned = True

    def log(self, metrics, step=None, commit=True):
        if not self._active:
            return
        step = self._step if step is None else step
        self._step = step + 1
        numbers = {}
        for key, value in metrics.items():
            try:
                numbers[key] = float(value)
            except (TypeError, ValueError):
                continue
        with_stats = {key.rsplit("/", 1)[0] for key in numbers if key.endswith(("/mean", "/max", "/min", "/std"))}
        numbers = {(f"{key}/local" if key in with_stats else key): value for key, value in numbers.items()}
        if numbers:
            self._call("log_metrics", numbers, step=step)

    def log_config(self, config):
        if self._active and config:
            self._call("log_params", _flatten(config))

    def log_artifacts(self, paths):
        if not self._active:
            return
        for label, path in paths.items():
            if _os.path.isdir(path):
                self._call("log_artifacts", _os.fspath(path), artifact_path=label)
            elif _os.path.isfile(path):
                self._call("log_artifact", _os.fspath(path), artifact_path=label)

    def log_table(self, key, columns, data):
        if not self._active:
            return
        import tempfile

        folder = tempfile.mkdtemp(prefix="ezpz-table-")
        path = _os.path.join(folder, f"{key}.csv")
        try:
            with open(path, "w", newline="", encoding="utf-8") as handle:
                writer = _csv.writer(handle)
                writer.writerow(columns)
                writer.writerows(data)
            self._call("log_artifact", path, artifact_path="tables")
        finally:
            for leftover in (path, folder):
                try:
                    (_os.unlink if leftover == path else _os.rmdir)(leftover)
                except OSError:
                    pass

    def log_image(self, key, image_path, caption=None):
        if self._active:
            self._call("log_artifact", _os.fspath(image_path), artifact_path="images")

    def finish(self):
        if self._active:
            self._call("end_run")
            self._active = False


def setup_mlflow(project_name=None, config=None, outdir=None, **kwargs):
    """Starts an MLflow run on rank 0 and returns it (``mlflow.ActiveRun``); None on every other rank, and,
    with one warning, when mlflow is missing or cannot start a run. ``kwargs`` go to ``mlflow.start_run``.
    Never raises."""
    if _rank() != 0:
        return None
    try:
        return MLflowBackend(project_name=project_name, config=config, outdir=outdir, rank=0, **kwargs).run
    except ImportError as error:
        logger.warning("ezpz: mlflow is not importable (%s; pip install mlflow); not starting a run", error)
    except Exception as error:  # noqa: BLE001
        logger.warning("ezpz: setup_mlflow() failed (%s); continuing without mlflow", error)
    return None


# ── The multiplexer ──────────────────────────────────────────────────────────


class Tracker:
    """Every call goes to every backend; a backend that fails is reported and the others still get it."""

    def __init__(self, backends):
        self._backends = list(backends)
        self._backend_map = {backend.name: backend for backend in self._backends}

    def _each(self, method, *args, **kwargs):
        for backend in self._backends:
            try:
                getattr(backend, method)(*args, **kwargs)
            except Exception as error:  # noqa: BLE001 - tracking never stops a run
                logger.warning("ezpz: tracker backend %s.%s() failed: %s", backend.name, method, error)

    def log(self, metrics, step=None, commit=True):
        self._each("log", metrics, step=step, commit=commit)

    def log_config(self, config):
        self._each("log_config", config)

    def log_table(self, key, columns, data):
        self._each("log_table", key, columns, data)

    def log_image(self, key, image_path, caption=None):
        self._each("log_image", key, image_path, caption=caption)

    def log_artifacts(self, paths):
        self._each("log_artifacts", paths)

    def watch(self, model, **kwargs):
        self._each("watch", model, **kwargs)

    def finish(self):
        self._each("finish")

    @property
    def backends(self):
        return list(self._backends)

    def get_backend(self, name):
        """The active backend called ``name``, or None."""
        return self._backend_map.get(name)

    @property
    def wandb_run(self):
        backend = self.get_backend("wandb")
        return backend.run if isinstance(backend, WandbBackend) else None

    @property
    def mlflow_run(self):
        backend = self.get_backend("mlflow")
        return backend.run if isinstance(backend, MLflowBackend) else None


class NullTracker(Tracker):
    """No backends: every call does nothing."""

    def __init__(self):
        super().__init__([])


_BACKENDS = {"wandb": WandbBackend, "csv": CSVBackend, "mlflow": MLflowBackend}


def register_backend(name, cls):
    """Makes ``cls`` (a TrackerBackend) the backend called ``name`` in ``backends=``."""
    _BACKENDS[name] = cls


def resolve_backend_names(backends=None):
    """The backend names asked for: ``backends`` (a comma-separated string or a list), else
    $EZPZ_TRACKER_BACKENDS, else $EZPZ_TRACKERS, else ["wandb"]; "none" is []."""
    if backends is None:
        backends = _os.environ.get("EZPZ_TRACKER_BACKENDS", _os.environ.get("EZPZ_TRACKERS", "wandb"))
    if isinstance(backends, str):
        backends = backends.split(",")
    names = [str(name).strip() for name in backends if str(name).strip()]
    return [] if names == ["none"] else names


def setup_tracker(project_name=None, backends=None, config=None, outdir=None, rank=None, **kwargs):
    """A Tracker over the backends asked for (resolve_backend_names); an unknown or unavailable one is a
    warning. NullTracker when none is left. csv writes to ``outdir`` (default: the working directory)."""
    names = resolve_backend_names(backends)
    if not names:
        return NullTracker()
    rank = _rank(rank)
    active = []
    for name in names:
        cls = _BACKENDS.get(name)
        if cls is None:
            logger.warning("ezpz: unknown tracker backend %r (known: %s)", name, ", ".join(_BACKENDS))
            continue
        try:
            if cls is CSVBackend:
                backend = cls(outdir=outdir or _os.getcwd(), rank=rank)
                if config is not None:
                    backend.log_config(config)
            else:
                backend = cls(project_name=project_name, config=config, outdir=outdir, rank=rank, **kwargs)
        except ImportError as error:
            logger.warning("ezpz: tracker backend %r is not available (%s)", name, error)
            continue
        except Exception as error:  # noqa: BLE001
            logger.warning("ezpz: tracker backend %r failed to start: %s", name, error)
            continue
        active.append(backend)
    return Tracker(active) if active else NullTracker()
