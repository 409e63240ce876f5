"""The door to ezpz's C++ rules: the ``ezpz`` executable installed with this package, spoken to with
``ezpz api`` (one JSON request line in, one answer line out). Nothing here decides anything itself."""

import os as _os
import sys as _sys

# json, select and sysconfig are imported by the calls that use them: `import ezpz` must stay cheap
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
    """Where the ezpz executable of this package is, most specific first: beside the package itself, in a
    build tree (<build>/python/ezpz runs <build>/ezpz) or an install (<prefix>/lib/python3…/…-packages/ezpz
    runs <prefix>/bin/ezpz: a venv, --user, --prefix and CMake installs alike); then the scripts
    directories of this interpreter's install schemes."""
    import sysconfig as _sysconfig

    here = _os.path.dirname(_os.path.abspath(__file__))
    yield _os.path.join(here, _os.pardir, _os.pardir, "ezpz")
    yield _os.path.join(here, *([_os.pardir] * 4), "bin", "ezpz")
    yield _os.path.join(_sysconfig.get_path("scripts"), "ezpz")
    user_scheme = f"{_os.name}_user"
    if user_scheme in _sysconfig.get_scheme_names():
        yield _os.path.join(_sysconfig.get_path("scripts", user_scheme), "ezpz")


_EXECUTABLE = None


def executable():
    """The ezpz executable this package runs: the one installed with it, else $EZPZ_BIN (the one a
    rendered script runs), else the one on PATH. Raises FileNotFoundError when there is none."""
    global _EXECUTABLE
    if _EXECUTABLE is None:
        found = next((_os.path.abspath(path) for path in _executable_candidates()
                      if _os.path.isfile(path) and _os.access(path, _os.X_OK)), None)
        if found is None:
            import shutil

            found = shutil.which(_os.environ.get("EZPZ_BIN") or "ezpz")
            found = found and _os.path.abspath(found)
        if found is None:
            raise FileNotFoundError("ezpz: the ezpz executable is not installed with this package nor on PATH; "
                                    "reinstall the wheel (docs/install.md) or set EZPZ_BIN")
        _EXECUTABLE = found
    return _EXECUTABLE


# json's encoder recurses, and ezpz reads 64 levels at most (docs/limits.md): values nested deeper than
# this are refused here, well before Python's recursion limit, at the place they are.
_MAX_SENT_DEPTH = 200


def plain(value, where, depth=0, enclosing=frozenset()):
    """``value`` as JSON can carry it: dicts with string keys, lists, strings, numbers, booleans, None.
    What cannot be sent raises an error that names its place (``env.A``, ``run[1]``): a value inside
    itself or nested too deep (Error), text with a lone surrogate (Error), another type (TypeError).
    The rules for the values themselves are ezpz's, applied to what arrives."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise Error(f"the value at '{where}' is not text ezpz can read: {error.reason} "
                        f"at character {error.start}") from None
        return value
    if isinstance(value, _os.PathLike):
        return plain(_os.fspath(value), where, depth, enclosing)
    if not isinstance(value, (dict, list, tuple)):
        raise TypeError(f"the value at '{where}' is a {type(value).__name__}; ezpz takes strings, numbers, "
                        f"booleans, None, lists and dicts")
    if id(value) in enclosing:
        raise Error(f"the value at '{where}' contains itself")
    if depth >= _MAX_SENT_DEPTH:
        raise Error(f"the values at '{where}' nest deeper than {_MAX_SENT_DEPTH} levels")
    inside = enclosing | {id(value)}
    if not isinstance(value, dict):
        return [plain(item, f"{where}[{index}]", depth + 1, inside) for index, item in enumerate(value)]
    result = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise TypeError(f"the key {key!r:.60} at '{where}' is a {type(key).__name__}, not a string")
        result[plain(key, where)] = plain(item, f"{where}.{key}" if where else key, depth + 1, inside)
    return result


def _text(value):
    """``out``/``err`` of a runner's answer as text JSON can carry (bytes are decoded as UTF-8)."""
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    return text.encode("utf-8", "replace").decode("utf-8")


def _run_answer(run, argv, cwd):
    """The caller's ``run(argv, cwd)`` as the reply ezpz api reads; an answer of another shape raises
    Error naming the command."""
    answer = run(argv, cwd)
    if (not isinstance(answer, (tuple, list)) or len(answer) != 3 or isinstance(answer[0], bool)
            or not isinstance(answer[0], int) or not all(isinstance(text, (str, bytes)) for text in answer[1:])):
        raise Error(f"run({argv[0]!r}, ...) returned {answer!r:.200}; expected (exit_code, out, err): "
                    f"an int and two strings")
    return {"exit_code": answer[0], "out": _text(answer[1]), "err": _text(answer[2])}


def call(name, run=None, **members):
    """The result of the API call ``name`` with the request's ``members``; raises Error for a problem
    the caller can fix. ``run(argv, cwd) -> (exit_code, out, err)`` runs scheduler commands instead of
    ezpz (submit, status, cancel)."""
    import json as _json

    request = {key: plain(value, key) for key, value in members.items()}
    request["call"] = name
    if run is not None:
        request["runner"] = "caller"
    answer, stderr, status = _converse(executable(), (_json.dumps(request) + "\n").encode("utf-8"), run)
    if answer is None:
        raise Error(stderr.strip() or f"ezpz api ended (wait status {status}) without an answer")
    if "error" in answer:
        raise Error(answer["error"], [Diagnostic(**item) for item in answer.get("diagnostics", ())])
    return answer["result"]


def _write_all(fd, data):
    while data:
        data = data[_os.write(fd, data):]


def _converse(program, request, run):
    """Runs `program api` with `request` on its stdin and reads its stdout line by line, answering each
    {"run": …} line with the caller's run(argv, cwd), until it ends; returns (answer or None, stderr
    text, wait status). os.posix_spawn and pipes, not subprocess: importing subprocess alone costs a
    training script about 10 ms on every rank (bench/python-import)."""
    import json as _json
    import select

    pipes = [_os.pipe() for _ in range(3)]  # stdin, stdout, stderr; close-on-exec, as Python makes them
    try:
        # SIGPIPE and SIGXFSZ (13, 25), which Python ignores, are set back to their defaults, as subprocess does.
        pid = _os.posix_spawn(program, [program, "api"], _os.environ, setsigdef=(13, 25), file_actions=[
            (_os.POSIX_SPAWN_DUP2, pipes[0][0], 0), (_os.POSIX_SPAWN_DUP2, pipes[1][1], 1),
            (_os.POSIX_SPAWN_DUP2, pipes[2][1], 2)])
    finally:
        for fd in (pipes[0][0], pipes[1][1], pipes[2][1]):
            _os.close(fd)
    stdin, stdout, stderr = pipes[0][1], pipes[1][0], pipes[2][0]
    answer, pending, errors = None, b"", []
    try:
        try:
            _write_all(stdin, request)
        except BrokenPipeError:
            pass  # ezpz ended before reading it: its stderr says why
        poller = select.poll()
        for fd in (stdout, stderr):
            poller.register(fd, select.POLLIN)
        open_fds = 2
        while open_fds:  # both streams are drained as they come: neither pipe can fill and stall ezpz
            for fd, _ in poller.poll():
                chunk = _os.read(fd, 65536)
                if not chunk:
                    poller.unregister(fd)
                    open_fds -= 1
                elif fd == stderr:
                    errors.append(chunk)
                else:
                    *lines, pending = (pending + chunk).split(b"\n")
                    for line in lines:
                        message = _json.loads(line)
                        if "run" not in message:
                            answer = message
                            continue
                        if run is None:
                            raise Error("ezpz api asked to run a command without a runner")
                        reply = _run_answer(run, list(message["run"]["argv"]), message["run"]["cwd"])
                        _write_all(stdin, (_json.dumps(reply) + "\n").encode("utf-8"))
    except BaseException:
        _os.kill(pid, 9)
        raise
    finally:
        for fd in (stdin, stdout, stderr):
            _os.close(fd)
        _, status = _os.waitpid(pid, 0)
    return answer, b"".join(errors).decode("utf-8", "replace"), status
