"""The job a rank runs in, with the names of the Python ezpz's ``ezpz.launch``: its id, its hosts and
its scheduler, as ezpz's runtime reads them (PBS_JOBID, SLURM_JOB_ID …; PBS_NODEFILE, the Slurm node
list …); no scheduler command is run.

``python3 -m ezpz.launch ARGS`` runs ``ezpz launch ARGS`` (the ezpz executable of this package).
"""

import os as _os

__all__ = ["get_active_jobid", "get_nodelist_of_active_job", "get_scheduler"]


def _setup():
    from .distributed import _setup

    return _setup()


def get_active_jobid():
    """The scheduler's id of the job this process runs in, or None outside a job."""
    return _setup()["job_id"] or None


def get_nodelist_of_active_job():
    """The hosts of the job this process runs in, in allocation order, or None outside a job."""
    setup = _setup()
    return list(setup["hosts"]) if setup["job_id"] or setup["hosts"] else None


def get_scheduler(_scheduler=None):
    """"PBS", "SLURM" … (upper case): ``_scheduler`` when given, else $EZPZ_SCHEDULER, else the
    scheduler of the system ezpz detected; "UNKNOWN" for a machine without one."""
    if _scheduler is not None:
        return _scheduler.upper()
    if _os.environ.get("EZPZ_SCHEDULER"):
        return _os.environ["EZPZ_SCHEDULER"].upper()
    scheduler = _setup()["scheduler"]
    return "UNKNOWN" if scheduler in ("", "none") else scheduler.upper()


def main(argv=None):
    """Replaces this process with ``ezpz launch`` and ``argv`` (default sys.argv[1:])."""
    import sys

    from . import _api

    program = _api.executable()
    _os.execv(program, [program, "launch", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    main()
