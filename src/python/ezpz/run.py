"""Runs a script that expects its launcher to have joined the process group: ``python3 -m ezpz.run``.

    python3 -m ezpz.run script.py ARGS...        # under ezpz launch, mpiexec, srun or torchrun
    python3 -m ezpz.run -m package.module ARGS...

joins the process group with ``ezpz.setup_torch()`` (rank, device and backend from ezpz's C++ rules,
as for every script), runs the script as ``__main__`` with ``sys.argv`` as ``python3 script.py ARGS...``
would give it (and the script's directory first on ``sys.path``), and destroys the group at the end,
also when the script raises or exits; the exit code is the script's. A script that calls
``init_process_group`` itself needs none of this: start it with ``ezpz launch`` or ``ezpz exec``.
"""

import os
import sys

_USAGE = "usage: python3 -m ezpz.run SCRIPT.py [ARGS...] | -m MODULE [ARGS...]"


def _target(argv):
    """(kind, name, argv the script sees) from this module's arguments, or None when they are wrong."""
    if len(argv) >= 2 and argv[0] == "-m":
        return "module", argv[1], [argv[1], *argv[2:]]
    if argv and not argv[0].startswith("-"):
        return "path", argv[0], list(argv)
    return None


def _run(kind, name, argv):
    """Runs the script as __main__ in this process, as python3 would start it."""
    import runpy

    sys.argv = argv
    if kind == "module":
        # python3 -m puts the current directory first on sys.path; the script's argv[0] is its file.
        sys.path.insert(0, os.getcwd())
        runpy.run_module(name, run_name="__main__", alter_sys=True)
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(name)))
        runpy.run_path(name, run_name="__main__")


def main(argv=None):
    """Joins the group, runs the script, destroys the group; returns the script's exit code, or raises
    what the script raised (after the group is destroyed)."""
    target = _target(sys.argv[1:] if argv is None else argv)
    if target is None:
        print(_USAGE, file=sys.stderr)
        return 2
    kind, name, script_argv = target
    if kind == "path" and not os.path.isfile(name):
        print(f"ezpz.run: can't open file {name!r}: no such file", file=sys.stderr)
        return 2

    import ezpz

    ezpz.setup_torch()
    try:
        _run(kind, name, script_argv)
    except SystemExit as stop:
        return stop.code
    finally:
        ezpz.cleanup()
    return 0


if __name__ == "__main__":
    # SystemExit with the script's code: None is 0, an int is itself, anything else is printed and is 1,
    # exactly as the interpreter would have ended the script.
    sys.exit(main())
