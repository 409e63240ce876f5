"""The door to ezpz's C++ rules: the ``ezpz`` executable installed with this package, spoken to with
``ezpz api`` (one JSON request line in, one answer line out). Nothing here decides anything itself."""

import os as _os
import sys as _sys

# json, subprocess and sysconfig are imported by the calls that use them: `import ezpz` must stay cheap
# for a training script on every rank (bench/python-import).


class Diagnostic:
    """One problem: where it is, what it is, and how to fix it (as ``ezpz validate`` prints it)."""

    __slots__ = ("where", "file", "line", "column", "message", "hint", "warning", "text")

    def __init__(self, where="", file="", line=0, column=0, message="", hint="", warning=False, text=""):
        self.where, self.file, self.line, self.column = where, file, line, column
        self.message, self.hint, self.warning, self.text = message, hint, warning, text

    def __repr__(self):
        place = f"{self.where}: " if self.where else ""
        return f"<ezpz.Diagnostic {place}{'warning' if self.warning else 'error'}: {self.message}>"

    def __str__(self):
        return self.text


class Error(ValueError):
    """A problem the caller can fix; ``diagnostics`` lists every one (errors first)."""

    def __init__(self, message, diagnostics=()):
        super().__init__(message)
        self.diagnostics = list(diagnostics)


def _executable_candidates():
    """Where the ezpz executable of this package is, most specific first: a build tree's (the package
    in <build>/python/ezpz), the wheel's (the environment's scripts directory, also for --user and
    --prefix installs), a CMake install's (<prefix>/bin for <prefix>/lib/python3…/…-packages/ezpz)."""
    import sysconfig as _sysconfig

    here = _os.path.dirname(_os.path.abspath(__file__))
    yield _os.path.join(here, _os.pardir, _os.pardir, "ezpz")
    yield _os.path.join(_sysconfig.get_path("scripts"), "ezpz")
    user_scheme = f"{_os.name}_user"
    if user_scheme in _sysconfig.get_scheme_names():
        yield _os.path.join(_sysconfig.get_path("scripts", user_scheme), "ezpz")
    yield _os.path.join(here, *([_os.pardir] * 4), "bin", "ezpz")
    yield _os.path.join(_os.path.dirname(_sys.executable), "ezpz")


_EXECUTABLE = None


def executable():
    """The ezpz executable this package runs: the one installed with it, else $EZPZ_BIN (the one a
    rendered script runs), else the one on PATH. Raises FileNotFoundError when there is none."""
    global _EXECUTABLE
    if _EXECUTABLE is None:
        import shutil

        found = next((_os.path.normpath(path) for path in _executable_candidates()
                      if _os.path.isfile(path) and _os.access(path, _os.X_OK)), None)
        found = found or shutil.which(_os.environ.get("EZPZ_BIN") or "ezpz")
        if found is None:
            raise FileNotFoundError("ezpz: the ezpz executable is not installed with this package nor on PATH; "
                                    "reinstall the wheel (docs/install.md) or set EZPZ_BIN")
        _EXECUTABLE = found
    return _EXECUTABLE


def _answer_runs(process, run):
    """Reads the answer line, first answering each {"run": …} line with the caller's run(argv, cwd)."""
    import json as _json

    for line in process.stdout:
        message = _json.loads(line)
        if "run" not in message:
            return message
        request = message["run"]
        if run is None:
            raise Error("ezpz api asked to run a command without a runner")
        exit_code, out, err = run(list(request["argv"]), request["cwd"])
        process.stdin.write(_json.dumps({"exit_code": int(exit_code), "out": out, "err": err}) + "\n")
        process.stdin.flush()
    return None


def call(name, run=None, **members):
    """The result of the API call ``name`` with the request's ``members``; raises Error for a problem
    the caller can fix. ``run(argv, cwd) -> (exit_code, out, err)`` runs scheduler commands instead of
    ezpz (submit, status, cancel)."""
    import subprocess as _subprocess
    import tempfile

    request = dict(members, call=name)
    if run is not None:
        request["runner"] = "caller"

    # stderr goes to a file: a pipe nobody reads while the answer is awaited could fill and stall ezpz.
    with tempfile.TemporaryFile() as stderr_file:
        process = _subprocess.Popen([executable(), "api"], stdin=_subprocess.PIPE, stdout=_subprocess.PIPE,
                                    stderr=stderr_file, text=True, encoding="utf-8", errors="surrogateescape")
        answer = _converse(process, request, run)
        stderr_file.seek(0)
        stderr = stderr_file.read().decode("utf-8", "replace")
    if answer is None:
        raise Error(stderr.strip() or f"ezpz api exited {process.returncode} without an answer")
    if "error" in answer:
        raise Error(answer["error"], [Diagnostic(**item) for item in answer.get("diagnostics", ())])
    return answer["result"]


def _converse(process, request, run):
    """Sends the request, answers the runs, returns the answer (None when ezpz gave none) once ezpz ended."""
    import json as _json

    try:
        try:
            process.stdin.write(_json.dumps(request) + "\n")
            process.stdin.flush()
        except BrokenPipeError:
            pass  # ezpz ended before reading it: its stderr says why
        answer = _answer_runs(process, run)
    except BaseException:
        process.kill()
        raise
    finally:
        process.stdin.close()
        process.stdout.close()
        process.wait()
    return answer
