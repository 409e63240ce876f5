"""Small programs that train with ezpz's training API, run as modules on any launcher::

    python3 -m ezpz.examples.minimal                          # one process
    ezpz launch -n 4 -- python3 -m ezpz.examples.minimal      # 4 ranks (any system ezpz knows)

and ``get_example_outdir``, the folder the examples (the Python ezpz's too) write their outputs to.
Importing this package imports no torch.
"""

import os


def _broadcast_from_rank_zero(value):
    """``value`` as rank 0 has it, on every rank of the process group (itself when there is no group)."""
    try:
        import torch.distributed as dist
    except ImportError:
        return value
    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return value
    box = [value]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def get_example_outdir(module_name, base_dir=None):
    """``<base_dir>/<module_name>/<timestamp>`` (base_dir default ``./outputs``), created, as a
    pathlib.Path: the same folder on every rank. The timestamp is rank 0's, kept in
    ``EZPZ_LOG_TIMESTAMP`` (set it to put a run's outputs in a folder of your choice)."""
    import pathlib

    import ezpz

    created_at = os.environ.get("EZPZ_LOG_TIMESTAMP")
    if created_at is None:
        created_at = _broadcast_from_rank_zero(ezpz.get_timestamp() if ezpz.get_rank() == 0 else None)
        os.environ["EZPZ_LOG_TIMESTAMP"] = created_at
    base = pathlib.Path.cwd() / "outputs" if base_dir is None else pathlib.Path(base_dir).expanduser()
    outdir = base / module_name / created_at
    outdir.mkdir(parents=True, exist_ok=True)
    return outdir
