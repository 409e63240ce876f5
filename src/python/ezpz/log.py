"""Logging as the Python ezpz's ``ezpz.log`` does it: ``get_logger(__name__)`` gives a standard
logging.Logger that prints on rank 0 only (other ranks: CRITICAL only), one line per record on
standard output, "[2026-11-28 12:34:56][I][dir/module:12:func] message".

    logger = ezpz.get_logger(__name__)
    logger.info(history.update({"loss": loss}))

EZPZ_LOG_LEVEL (or LOG_LEVEL) sets the level, default INFO; EZPZ_LOG_FROM_ALL_RANKS=1 (or
LOG_FROM_ALL_RANKS) makes every rank print, its lines starting with "[rank]". Plain text, no colours:
the lines are the same in a terminal, a file and a scheduler's log.
"""

import logging
import os
import sys

__all__ = ["get_logger", "getLogger", "get_file_logger", "silence_noisy_loggers"]

_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def _truthy(value):
    return str(value).strip().lower() in ("1", "true", "yes", "on", "y")


class _Formatter(logging.Formatter):
    """[time][L][parent/module:line:function] message; with ``rank``, "[rank]" first."""

    def __init__(self, rank=None):
        super().__init__(datefmt=_TIME_FORMAT)
        self.rank = rank

    def format(self, record):
        parent = os.path.basename(os.path.dirname(record.pathname or "")) if record.pathname else ""
        where = f"{parent}/{record.module}:{record.lineno}:{record.funcName}"
        prefix = f"[{self.rank}]" if self.rank is not None else ""
        text = f"{prefix}[{self.formatTime(record, self.datefmt)}][{record.levelname[:1]}][{where}] {record.getMessage()}"
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        if record.stack_info:
            text += "\n" + self.formatStack(record.stack_info)
        return text


class _StdoutHandler(logging.StreamHandler):
    """A handler writing to whatever sys.stdout is at the time of each record (a test's capture, a
    redirected stream), flushed after each line."""

    _ezpz = True

    def __init__(self):
        super().__init__(sys.stdout)

    @property
    def stream(self):
        return sys.stdout

    @stream.setter
    def stream(self, value):
        pass


def _root_handler(rank):
    """The one handler ezpz puts on the root logger (level INFO there, as the Python ezpz's config)."""
    root = logging.getLogger()
    handler = next((h for h in root.handlers if getattr(h, "_ezpz", False)), None)
    if handler is None:
        handler = _StdoutHandler()
        root.addHandler(handler)
        if root.level == logging.WARNING:  # Python's default: the Python ezpz's configuration says INFO
            root.setLevel(logging.INFO)
    handler.setFormatter(_Formatter(rank))
    return handler


def get_logger(name=None, level=None, rank_zero_only=True, rank=None, colored_logs=True):
    """The logger ``name`` (default "ezpz.log"), printing through ezpz's handler on the root logger.

    ``level``: default $EZPZ_LOG_LEVEL, else $LOG_LEVEL, else INFO. ``rank_zero_only``: ranks other
    than 0 (``rank``, default this process's) get level CRITICAL. ``colored_logs`` is accepted for
    the Python ezpz's signature; the lines are never coloured.
    """
    if rank is None:
        rank = 0
        if rank_zero_only:
            from .distributed import get_rank

            rank = get_rank()
    wanted = level if level is not None else os.environ.get("EZPZ_LOG_LEVEL", os.environ.get("LOG_LEVEL", "INFO"))
    wanted = wanted.upper() if isinstance(wanted, str) else wanted
    every_rank = _truthy(os.environ.get("LOG_FROM_ALL_RANKS", os.environ.get("EZPZ_LOG_FROM_ALL_RANKS", "")))
    _root_handler(int(rank) if every_rank else None)
    logger = logging.getLogger(name if name is not None else __name__)
    if every_rank or not rank_zero_only or int(rank) == 0:
        logger.setLevel(wanted)
    else:
        logger.setLevel(logging.CRITICAL)
    return logger


def getLogger(name=None, level=None, rank_zero_only=True, rank=None, colored_logs=True):  # noqa: N802 - theirs
    """get_logger under logging's spelling."""
    return get_logger(name=name, level=level, rank_zero_only=rank_zero_only, rank=rank, colored_logs=colored_logs)


def get_file_logger(name=None, level="INFO", rank_zero_only=True, fname=None):
    """A logger that also writes to "<fname>.log" (default "output.log"), from rank 0 only; with
    ``rank_zero_only=False`` every rank writes "<fname>-<rank>.log"."""
    from .distributed import get_rank

    fname = "output" if fname is None else fname
    logger = logging.getLogger(name)
    rank = get_rank()
    path = f"{fname}.log" if rank_zero_only else f"{fname}-{rank}.log"
    handler = logging.FileHandler(path)
    handler.setFormatter(logging.Formatter("[%(asctime)s][%(name)s][%(levelname)s] - %(message)s"))
    chosen = level if (not rank_zero_only or rank == 0) else "CRITICAL"
    logger.setLevel(chosen)
    handler.setLevel(chosen)
    logger.addHandler(handler)
    return logger


_NOISY_LOGGERS = ("httpx", "huggingface_hub", "filelock", "urllib3", "datasets", "datasets.load", "datasets.builder",
                  "datasets.info", "datasets.arrow_dataset")


def silence_noisy_loggers(*, extra=None, level=logging.WARNING, silence_transformers=True, silence_datasets=True):
    """Raises httpx, huggingface_hub, filelock, urllib3 and datasets' loggers (and ``extra``) to
    ``level``; quiets transformers and datasets (verbosity error, no progress bars): through their own
    functions when they are imported already, else through their environment variables, so that
    neither is imported here."""
    for name in tuple(_NOISY_LOGGERS) + tuple(extra or ()):
        logging.getLogger(name).setLevel(level)
    quiet = []
    if silence_transformers:
        quiet.append(("transformers", "transformers.utils.logging",
                      {"TRANSFORMERS_VERBOSITY": "error", "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1"}))
    if silence_datasets:
        quiet.append(("datasets", "datasets.utils.logging",
                      {"DATASETS_VERBOSITY": "error", "HF_DATASETS_DISABLE_PROGRESS_BARS": "1"}))
    for package, module_name, variables in quiet:
        module = sys.modules.get(module_name) if package in sys.modules else None
        if module is None:
            for variable, value in variables.items():
                os.environ.setdefault(variable, value)
            continue
        try:
            module.set_verbosity_error()
            module.disable_progress_bar()
        except Exception:  # noqa: BLE001 - an older release without one of them: nothing to silence
            pass
