"""A strict fake of PBS Pro / OpenPBS 23.06 qsub, qstat and qdel, for tests.

It enforces the rules of ../shared/reference/schedulers.md ("PBS Pro / OpenPBS qsub — observed on a
real OpenPBS 23.06 server"), with the exact texts and exit codes, and records what it got under
$FAKE_PBS_DIR. README.md beside this file lists every rule with its source and what is not modelled.
Standard library only. The commands qsub, qstat and qdel beside this file call main().
"""

import fcntl
import getpass
import json
import os
import re
import socket
import sys
import time

DEFAULT_SERVER = "fakepbs-0001.hostmgmt.cm.example"
PBS_VERSION = "23.06.06"
MAX_JOB_NAME = 230
# Exit codes are PBS error numbers mod 256 (reference), except the fake's own configuration errors.
PBSE_UNKJOBID = 15001 % 256  # 153
PBSE_BADATVAL = 15014 % 256  # 166
PBSE_UNKQUE = 15018 % 256  # 170
PBSE_BADUSER = 15023 % 256  # 175
PBSE_UNKRESC = 15035 % 256  # 187
PBSE_EXCQRESC = 15036 % 256  # 188
PBSE_INVALSELECTRESC = 15108 % 256  # 4
PBSE_INVALJOBRESC = 15109 % 256  # 5
PBSE_HISTJOBID = 15139 % 256  # 35
PBSE_NOSERVER = 15010 % 256  # 162
FAKE_CONFIG_ERROR = 99

QSUB_USAGE = (
    "usage: qsub [-a date_time] [-A account_string] [-c interval]\n"
    "\t[-C directive_prefix] [-e path] [-f ] [-h ] [-I [-X]] [-j oe|eo] [-J X-Y[:Z]]\n"
    "\t[-k keep] [-l resource_list] [-m mail_options] [-M user_list]\n"
    "\t[-N jobname] [-o path] [-p priority] [-P project] [-q queue] [-r y|n]\n"
    "\t[-R o|e|oe] [-S path] [-u user_list] [-W otherattributes=value...]\n"
    "\t[-v variable_list] [-V ] [-z] [script | -- command [arg1 ...]]\n"
    "       qsub --version\n"
)
QSTAT_USAGE = "usage: qstat [-x] [-f [-F json]] [job_identifier...]   (the fake models only these)\n"
QDEL_USAGE = "usage:\n\tqdel [-W force|suppress_email=X] [-x] job_identifier...\n\tqdel --version\n"

# qsub options: the ones the fake models (True: takes an argument) ...
QSUB_OPTIONS = {"A": True, "e": True, "h": False, "j": True, "k": True, "l": True, "m": True, "M": True,
                "N": True, "o": True, "q": True, "r": True, "V": False, "W": True}
# ... and the ones real qsub has but the fake refuses (usage, exit 2) so that nobody relies on them.
QSUB_UNMODELLED = {"a": True, "c": True, "C": True, "f": False, "I": False, "J": True, "p": True, "P": True,
                   "R": True, "S": True, "u": True, "v": True, "X": False, "z": False}

# Built-in PBS resources. Host-level ones may appear in a select chunk; as job-wide "-l name=" they
# cannot be combined with select/place. Types: duration, long, size, string.
HOST_RESOURCES = {"ncpus": "long", "mem": "size", "vmem": "size", "ngpus": "long", "mpiprocs": "long",
                  "ompthreads": "long", "host": "string", "vnode": "string", "arch": "string",
                  "naccelerators": "long", "accelerator": "boolean", "accelerator_model": "string",
                  "accelerator_memory": "size", "aoe": "string"}
JOB_RESOURCES = {"walltime": "duration", "select": "select", "place": "place", "nodes": "nodes",
                 "cput": "duration", "pcput": "duration", "min_walltime": "duration",
                 "max_walltime": "duration", "soft_walltime": "duration", "pmem": "size", "pvmem": "size",
                 "file": "size", "software": "string", "nice": "int", "preempt_targets": "string",
                 "site": "string"}
# Site-defined resources when $FAKE_PBS_DIR/resources does not exist: an ALCF-like server.
DEFAULT_SITE_RESOURCES = {"filesystems": ("job", "string")}

DEPEND_TYPES = ("after", "afterok", "afternotok", "afterany", "before", "beforeok", "beforenotok",
                "beforeany", "runone")
JOB_STATES = "QHRWTEBSFXM"
SUBSTATE = {"Q": 10, "H": 20, "W": 30, "T": 50, "R": 42, "E": 51, "B": 42, "S": 43, "F": 92, "X": 92, "M": 92}
SUBSTATE_DELETED = 91


class Exit(Exception):
    """Stops a command: the exit code, the stderr lines already queued are printed by main()."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


class Io:
    """Collects stdout/stderr so that main() can print them and record them in calls.jsonl."""

    def __init__(self):
        self.out = []
        self.err = []
        self.script = None  # the script qsub read, for calls.jsonl

    def print(self, text):
        self.out.append(text + "\n")

    def error(self, text):
        self.err.append(text + "\n")

    def fail(self, code, *lines):
        for line in lines:
            self.error(line)
        raise Exit(code)


# ---------------------------------------------------------------------------------------------------
# State directory and configuration


def state_dir(cmd):
    path = os.environ.get("FAKE_PBS_DIR", "")
    if not path:
        sys.stderr.write(f"{cmd} (fake PBS, tests/fake_pbs): FAKE_PBS_DIR is not set; it must name the "
                         "state directory (jobs, queues, resources, down)\n")
        sys.exit(FAKE_CONFIG_ERROR)
    os.makedirs(os.path.join(path, "jobs"), exist_ok=True)
    return path


def server_name():
    return os.environ.get("FAKE_PBS_SERVER", DEFAULT_SERVER)


def config_error(io, path, lineno, text):
    io.fail(FAKE_CONFIG_ERROR, f"fake PBS: {path}:{lineno}: {text}")


def config_lines(path):
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if line:
                yield lineno, line.split()


def load_queues(io, d):
    """[(name, max_nodes, max_walltime_seconds, min_nodes)], the first is the server's default queue."""
    path = os.path.join(d, "queues")
    if not os.path.exists(path):
        return [("workq", 64, 86400, 1)]
    queues = []
    for lineno, fields in config_lines(path):
        if len(fields) not in (3, 4) or not all(re.fullmatch(r"[0-9]+", f) for f in fields[1:]):
            config_error(io, path, lineno, "expected 'name max_nodes max_walltime_seconds [min_nodes]'")
        queues.append((fields[0], int(fields[1]), int(fields[2]), int(fields[3]) if len(fields) == 4 else 1))
    if not queues:
        config_error(io, path, 0, "no queue defined")
    return queues


def load_site_resources(io, d):
    """{name: (scope, type)}: scope 'job' (only as -l name=) or 'host' (also inside select chunks)."""
    path = os.path.join(d, "resources")
    if not os.path.exists(path):
        return dict(DEFAULT_SITE_RESOURCES)
    resources = {}
    for lineno, fields in config_lines(path):
        if len(fields) not in (2, 3) or fields[1] not in ("job", "host") or \
                (len(fields) == 3 and fields[2] not in ("string", "long", "size", "boolean", "duration")):
            config_error(io, path, lineno, "expected 'name job|host [string|long|size|boolean|duration]'")
        resources[fields[0]] = (fields[1], fields[2] if len(fields) == 3 else "string")
    return resources


class Lock:
    def __init__(self, d):
        self.path = os.path.join(d, ".lock")

    def __enter__(self):
        self.f = open(self.path, "a")
        fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.f, fcntl.LOCK_UN)
        self.f.close()


def write_file(path, data):
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    os.replace(tmp, path)


def check_server_up(io, d, cmd):
    if os.path.exists(os.path.join(d, "down")):
        if cmd == "qdel":
            io.fail(PBSE_NOSERVER, f"Couldn't connect to cluster: {server_name()}")
        io.fail(PBSE_NOSERVER, f"{cmd}: cannot connect to server {server_name()} (errno=15010)")


# ---------------------------------------------------------------------------------------------------
# Values


def parse_duration(value):
    """SS, MM:SS or HH:MM:SS (reference), each field digits only; seconds, or None."""
    parts = value.split(":")
    if len(parts) > 3 or not all(re.fullmatch(r"[0-9]+", p) for p in parts):
        return None
    seconds = 0
    for p in parts:
        seconds = seconds * 60 + int(p)
    return seconds


def format_duration(seconds):
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def valid_value(kind, value):
    if value == "":
        return False
    if kind == "duration":
        return parse_duration(value) is not None
    if kind == "long":
        return re.fullmatch(r"[0-9]+", value) is not None
    if kind == "int":
        return re.fullmatch(r"[-+]?[0-9]+", value) is not None
    if kind == "size":
        return re.fullmatch(r"[0-9]+([kmgtp]?[bw])?", value, re.IGNORECASE) is not None
    if kind == "boolean":
        return value.lower() in ("true", "false", "t", "f", "y", "n", "1", "0")
    return not any(c.isspace() for c in value)  # string


def normalise_value(kind, value):
    if kind == "duration":
        return format_duration(parse_duration(value))
    if kind in ("long", "int"):
        return int(value)
    return value


def make_argv(line):
    """qsub's make_argv(): split a directive on white space, honouring quotes and backslashes."""
    args, cur, have, i = [], [], False, 0
    while i < len(line):
        c = line[i]
        if c in "\"'":
            end = line.find(c, i + 1)
            if end < 0:
                return None, c
            cur.append(line[i + 1:end])
            have, i = True, end + 1
        elif c == "\\" and i + 1 < len(line):
            cur.append(line[i + 1])
            have, i = True, i + 2
        elif c.isspace():
            if have:
                args.append("".join(cur))
            cur, have, i = [], False, i + 1
        else:
            cur.append(c)
            have, i = True, i + 1
    if have:
        args.append("".join(cur))
    return args, None


def getopt(args, options):
    """POSIX getopt as qsub uses it: stops at the first operand; -- ends the options.

    Returns (list of (letter, value), operands, error text or None)."""
    parsed, i = [], 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return parsed, args[i:], None
        if not a.startswith("-") or a == "-":
            break
        if a.startswith("--"):
            return parsed, [], f"unrecognized option '{a}'"
        j = 1
        while j < len(a):
            letter = a[j]
            if letter not in options:
                return parsed, [], f"invalid option -- '{letter}'"
            if options[letter]:
                if j + 1 < len(a):
                    value = a[j + 1:]
                elif i + 1 < len(args):
                    i += 1
                    value = args[i]
                else:
                    return parsed, [], f"option requires an argument -- '{letter}'"
                parsed.append((letter, value))
                break
            parsed.append((letter, None))
            j += 1
        i += 1
    return parsed, args[i:], None


def split_commas(value):
    """qsub's comma_token(): commas inside quotes do not separate."""
    parts, cur, quote, i = [], [], None, 0
    while i < len(value):
        c = value[i]
        if c in "\"'":
            quote = None if quote == c else (c if quote is None else quote)
        elif c == "," and quote is None:
            parts.append("".join(cur))
            cur, i = [], i + 1
            continue
        elif c == "\\" and i + 1 < len(value):
            cur.append(c)
            i += 1
            c = value[i]
        cur.append(c)
        i += 1
    parts.append("".join(cur))
    return parts


# ---------------------------------------------------------------------------------------------------
# qsub


class Submission:
    """Options as qsub collects them: command line first (level 3), then directives (level 2), which
    only set what the command line did not; within a level the last occurrence wins."""

    def __init__(self):
        self.opts = {}  # letter -> (value, level)
        self.resources = {}  # name -> (value, level, origin)
        self.depend = None
        self.other_w = []
        self.directives = []  # [{"line": n, "text": ..., "args": [...]}]
        self.ignored_directives = []

    def set_opt(self, letter, value, level):
        if letter not in self.opts or self.opts[letter][1] <= level:
            self.opts[letter] = (value, level)

    def value(self, letter, default=None):
        return self.opts[letter][0] if letter in self.opts else default


def apply_options(io, sub, args, level):
    """process_opts(): returns False on an error (the messages are queued)."""
    all_options = dict(QSUB_OPTIONS)
    all_options.update(QSUB_UNMODELLED)
    parsed, operands, error = getopt(args, all_options)
    ok = True
    if error:
        io.error(f"qsub: {error}")
        return False, operands
    for letter, value in parsed:
        if letter in QSUB_UNMODELLED:
            io.error(f"qsub: option -{letter} is not modelled by the fake PBS (tests/fake_pbs/README.md)")
            ok = False
        elif letter == "r":
            if value not in ("y", "n"):
                io.error("qsub: illegal -r value")
                ok = False
            else:
                sub.set_opt("r", value, level)
        elif letter == "l":
            if not add_resources(sub, value, level):
                io.error("qsub: illegal -l value")
                ok = False
        elif letter == "W":
            value = value.lstrip()
            if not value or "=" not in value:
                io.error("qsub: illegal -W value")
                ok = False
                continue
            for item in split_commas(value) if not value.startswith("depend=") else [value]:
                key, _, val = item.partition("=")
                if key == "depend":
                    if sub.depend is None or sub.depend[1] <= level:
                        sub.depend = (val, level)
                else:
                    io.error(f"qsub: -W {key}= is not modelled by the fake PBS (tests/fake_pbs/README.md)")
                    ok = False
        elif letter in ("h", "V"):
            sub.set_opt(letter, True, level)
        elif letter == "m":
            sub.set_opt(letter, value.lstrip(), level)
        else:
            sub.set_opt(letter, value, level)
    return ok, operands


def add_resources(sub, value, level):
    for item in split_commas(value):
        name, eq, val = item.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            return False
        if len(val) >= 2 and val[0] == val[-1] and val[0] in "\"'":
            val = val[1:-1]
        old = sub.resources.get(name)
        if old is None or old[1] <= level:
            sub.resources[name] = (val, level, "command line" if level == 3 else "directive")
    return True


def read_script(io, operands):
    """The script bytes and where they came from (a file operand or stdin)."""
    if not operands or operands[0] == "-":
        return sys.stdin.buffer.read(), None
    path = operands[0]
    if not os.path.exists(path):
        io.fail(1, "qsub: script file:: No such file or directory")
    if not os.path.isfile(path):
        io.fail(1, "qsub: script not a file")
    with open(path, "rb") as f:
        return f.read(), path


def parse_directives(io, sub, text):
    """get_script(): #PBS lines (upper case, leading white space allowed) up to the first command line;
    a directive ending in a backslash continues on the next line; CR LF is refused."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    executable = False
    i = 0
    while i < len(lines):
        line = lines[i]
        lineno = i + 1
        if line.endswith("\r"):
            io.fail(1, "qsub: script contains cr, lf")
        stripped = line.lstrip()
        if stripped.startswith("#PBS"):
            if executable:
                sub.ignored_directives.append({"line": lineno, "text": line})
                i += 1
                continue
            body = stripped[len("#PBS"):]
            while body.endswith("\\") and i + 1 < len(lines):
                i += 1
                if lines[i].endswith("\r"):
                    io.fail(1, "qsub: script contains cr, lf")
                body = body[:-1] + lines[i]
            args, unmatched = make_argv(body)
            if args is None:
                io.fail(1, f"qsub: unmatched {unmatched}")
            sub.directives.append({"line": lineno, "text": line, "args": args})
            ok, operands = apply_options(io, sub, args, 2)
            if not ok or operands:
                io.fail(1, "qsub: directive error: " + "".join(a + " " for a in args))
        elif not executable and is_executable(line):
            executable = True
        i += 1


def is_executable(line):
    """pbs_isexecutable(): not ':' or '#!' at the start, and after white space something not '#'."""
    if line.startswith(":") or line.startswith("#!"):
        return False
    s = line.lstrip()
    return s != "" and not s.startswith("#")


def check_job_name(io, name):
    if len(name) > MAX_JOB_NAME:
        io.fail(2, "qsub: Job name is too long")
    if name == "" or any(c.isspace() or not c.isprintable() for c in name):
        illegal(io, "N")


def illegal(io, letter):
    io.error(f"qsub: illegal -{letter} value")
    io.err.append(QSUB_USAGE)
    raise Exit(2)


def check_option_values(io, sub):
    """The client-side attribute checks (qsub: illegal -X value + usage, exit 2)."""
    j = sub.value("j")
    if j is not None and j not in ("oe", "eo", "n"):
        illegal(io, "j")
    k = sub.value("k")
    if k is not None and k != "n" and not (k and len(set(k)) == len(k) and set(k) <= set("oed")):
        illegal(io, "k")
    m = sub.value("m")
    if m is not None and m != "n" and not (m and len(set(m)) == len(m) and set(m) <= set("abej")):
        illegal(io, "m")
    if sub.depend is not None:
        jobid = r"[0-9]+(\[[0-9]*\])?(\.[A-Za-z0-9.-]+)?(@[A-Za-z0-9.-]+)?"
        one = rf"({'|'.join(DEPEND_TYPES)}):{jobid}(:{jobid})*|on:[0-9]+"
        if not re.fullmatch(rf"({one})(,({one}))*", sub.depend[0]):
            illegal(io, "W")


def parse_select(value, known):
    """select=[N:]chunk[+[N:]chunk...]: ([(count, {resource: value})], error) where error is
    (exit code, message) or None."""
    chunks = []
    for spec in value.split("+"):
        parts = spec.split(":")
        count = 1
        if re.fullmatch(r"[0-9]+", parts[0]):
            count = int(parts[0])
            parts = parts[1:]
        if count < 1:
            return None, (PBSE_BADATVAL, "qsub: Illegal attribute or resource value Resource_List.select")
        resources = {}
        for part in parts:
            name, eq, val = part.partition("=")
            if not eq or not name:
                return None, (PBSE_BADATVAL, "qsub: Illegal attribute or resource value Resource_List.select")
            if name in JOB_RESOURCES or (name in known and known[name][0] == "job"):
                return None, (PBSE_INVALSELECTRESC, f'qsub: Resource invalid in "select" specification {name}')
            if name not in known:
                return None, (PBSE_UNKRESC, f"qsub: Unknown resource Resource_List.{name}")
            if not valid_value(known[name][1], val):
                return None, (PBSE_BADATVAL, "qsub: Illegal attribute or resource value Resource_List.select")
            resources[name] = normalise_value(known[name][1], val)
        chunks.append((count, resources))
    return chunks, None


PLACE_WORDS = {"arrangement": ("free", "pack", "scatter", "vscatter"), "sharing": ("excl", "shared", "exclhost")}


def valid_place(value):
    seen = set()
    for word in value.split(":"):
        kind = next((k for k, words in PLACE_WORDS.items() if word in words), None)
        if kind is None and re.fullmatch(r"group=[A-Za-z_][A-Za-z0-9_]*", word):
            kind = "group"
        if kind is None or kind in seen:
            return False
        seen.add(kind)
    return True


def check_resources(io, sub, site):
    """Unknown resource (187), bad value (166), legacy -l nodes/host-level resources next to select/place
    (5). Returns (Resource_List, select chunks, node count)."""
    known = dict((n, ("host", t)) for n, t in HOST_RESOURCES.items())
    known.update(site)
    resources = {name: value for name, (value, _, _) in sub.resources.items()}
    for name, value in resources.items():
        if name not in JOB_RESOURCES and name not in known:
            io.fail(PBSE_UNKRESC, f"qsub: Unknown resource Resource_List.{name}")
    result, chunks = {}, None
    for name, value in resources.items():
        kind = JOB_RESOURCES.get(name) or known[name][1]
        if kind == "select":
            chunks, error = parse_select(value, known)
            if error:
                io.fail(*error)
            result[name] = value
        elif kind == "place":
            if not valid_place(value):
                io.fail(PBSE_BADATVAL, "qsub: Illegal attribute or resource value Resource_List.place")
            result[name] = value
        elif kind == "nodes":
            if not re.fullmatch(r"([0-9]+|[A-Za-z][A-Za-z0-9_.-]*)(:[A-Za-z0-9_=.-]+)*"
                                r"(\+([0-9]+|[A-Za-z][A-Za-z0-9_.-]*)(:[A-Za-z0-9_=.-]+)*)*", value):
                io.fail(PBSE_BADATVAL, "qsub: Illegal attribute or resource value Resource_List.nodes")
            result[name] = value
        else:
            if not valid_value(kind, value):
                io.fail(PBSE_BADATVAL, f"qsub: Illegal attribute or resource value Resource_List.{name}")
            result[name] = normalise_value(kind, value)
    if "select" in resources or "place" in resources:
        for name in resources:
            if name == "nodes" or (name in known and known[name][0] == "host"):
                io.fail(PBSE_INVALJOBRESC,
                        f'qsub: "-lresource=" cannot be used with "select" or "place", resource is: {name}')
    if chunks is not None:
        nodect = sum(count for count, _ in chunks)
        result["ncpus"] = sum(count * int(r.get("ncpus", 1)) for count, r in chunks)
        for total in ("ngpus", "mpiprocs"):
            if any(total in r for _, r in chunks):
                result[total] = sum(count * int(r.get(total, 0)) for count, r in chunks)
    elif "nodes" in resources:
        nodect = sum(int(p.split(":")[0]) if re.match(r"[0-9]+(:|$)", p) else 1
                     for p in resources["nodes"].split("+"))
    else:
        nodect = 1
        result.setdefault("ncpus", 1)
    result["nodect"] = nodect
    return result, chunks, nodect


def submit_host():
    return os.environ.get("FAKE_PBS_SUBMIT_HOST") or socket.gethostname()


def output_path(path, host):
    if re.match(r"[A-Za-z0-9.-]+:/", path):
        return path
    return f"{host}:{os.path.abspath(path)}"


def qsub(io, d, argv):
    sub = Submission()
    ok, operands = apply_options(io, sub, argv, 3)
    if not ok or len(operands) > 1 or (operands and operands[0] == "--"):
        if operands and operands[0] == "--" and ok:
            io.error("qsub: '-- command' jobs are not modelled by the fake PBS (tests/fake_pbs/README.md)")
        io.err.append(QSUB_USAGE)
        raise Exit(2)
    script, path = read_script(io, operands)
    io.script = script
    default_name = "STDIN" if path is None else os.path.basename(path)[:MAX_JOB_NAME]
    parse_directives(io, sub, script.decode("utf-8", "surrogateescape"))

    check_server_up(io, d, "qsub")
    name = sub.value("N", default_name)
    check_job_name(io, name)
    check_option_values(io, sub)
    site = load_site_resources(io, d)
    resources, chunks, nodect = check_resources(io, sub, site)

    if os.geteuid() == 0 and os.environ.get("FAKE_PBS_ALLOW_ROOT") != "1":
        io.fail(PBSE_BADUSER, "qsub: Bad UID for job execution")
    queues = load_queues(io, d)
    queue = sub.value("q", queues[0][0])
    if "@" in queue:
        queue, _, server = queue.partition("@")
        if server not in (server_name(), server_name().split(".")[0]):
            io.fail(PBSE_NOSERVER, f"qsub: cannot connect to server {server} (errno=15010)")
        queue = queue or queues[0][0]
    limits = next((q for q in queues if q[0] == queue), None)
    if limits is None:
        io.fail(PBSE_UNKQUE, "qsub: Unknown queue")
    _, max_nodes, max_walltime, min_nodes = limits
    walltime = parse_duration(resources["walltime"]) if "walltime" in resources else None
    if nodect > max_nodes or nodect < min_nodes or (walltime is not None and walltime > max_walltime):
        io.fail(PBSE_EXCQRESC, "qsub: Job violates queue and/or server resource limits")

    with Lock(d):
        counter = os.path.join(d, "next_id")
        number = int(open(counter).read().strip()) if os.path.exists(counter) else 1
        write_file(counter, f"{number + 1}\n")
    job_id = f"{number}.{server_name()}"
    host = submit_host()
    cwd = os.getcwd()
    user = getpass.getuser()
    now = time.strftime("%a %b %d %H:%M:%S %Y")
    attributes = {
        "Job_Name": name,
        "Job_Owner": f"{user}@{host}",
        "queue": queue,
        "server": server_name(),
        "Checkpoint": "u",
        "ctime": now,
        "Error_Path": output_path(sub.value("e", f"{cwd}/{name}.e{number}"), host),
        "Hold_Types": "u" if sub.value("h") else "n",
        "Join_Path": sub.value("j", "n"),
        "Keep_Files": sub.value("k", "n"),
        "Mail_Points": sub.value("m", "a"),
        "mtime": now,
        "Output_Path": output_path(sub.value("o", f"{cwd}/{name}.o{number}"), host),
        "Priority": 0,
        "qtime": now,
        "Rerunable": "False" if sub.value("r") == "n" else "True",
        "Resource_List": resources,
        "Variable_List": variable_list(cwd, host, queue, bool(sub.value("V"))),
        "euser": user,
        "project": "_pbs_project_default",
        "Submit_Host": host,
        "Submit_arguments": " ".join(argv),
    }
    for letter, attr in (("A", "Account_Name"), ("M", "Mail_Users")):
        if sub.value(letter) is not None:
            attributes[attr] = sub.value(letter)
    if sub.depend is not None:
        attributes["depend"] = sub.depend[0]
    attributes["fake"] = {
        "script_path": path,
        "select_chunks": [{"count": c, "resources": r} for c, r in chunks] if chunks is not None else None,
        "resource_origins": {n: origin for n, (_, _, origin) in sub.resources.items()},
        "directives": sub.directives,
        "ignored_directives": sub.ignored_directives,
        "V": bool(sub.value("V")),
    }
    job_dir = os.path.join(d, "jobs", job_id)
    os.makedirs(job_dir)
    write_file(os.path.join(job_dir, "script"), script)
    write_file(os.path.join(job_dir, "argv.json"), json.dumps(["qsub"] + argv, indent=1) + "\n")
    write_file(os.path.join(job_dir, "attributes.json"), json.dumps(attributes, indent=1) + "\n")
    write_file(os.path.join(job_dir, "state"), "H\n" if sub.value("h") else "Q\n")
    io.print(job_id)
    return 0


def variable_list(cwd, host, queue, all_env):
    env = dict(os.environ) if all_env else {}
    for name in ("HOME", "LANG", "LOGNAME", "PATH", "MAIL", "SHELL", "TZ"):
        if name in os.environ:
            env[f"PBS_O_{name}"] = os.environ[name]
    env.update({"PBS_O_WORKDIR": cwd, "PBS_O_SYSTEM": os.uname().sysname, "PBS_O_QUEUE": queue,
                "PBS_O_HOST": host})
    return env


# ---------------------------------------------------------------------------------------------------
# qstat and qdel


def resolve_job_id(given):
    """'N', 'N.server' or 'N.<leading part of the server name>' -> the full id; None if malformed."""
    m = re.fullmatch(r"([0-9]+)(\.(.+))?", given)
    if not m:
        return None
    server = server_name()
    suffix = m.group(3)
    if suffix is not None and suffix != server and not server.startswith(suffix + "."):
        return f"{m.group(1)}.{suffix}"  # another server's job: unknown here
    return f"{m.group(1)}.{server}"


def read_job(io, d, job_id):
    job_dir = os.path.join(d, "jobs", job_id)
    if not os.path.isdir(job_dir):
        return None
    with open(os.path.join(job_dir, "attributes.json"), encoding="utf-8") as f:
        attributes = json.load(f)
    state = open(os.path.join(job_dir, "state")).read().strip()
    if len(state) != 1 or state not in JOB_STATES:
        io.fail(FAKE_CONFIG_ERROR, f"fake PBS: {job_dir}/state: '{state}' is not a job state ({JOB_STATES})")
    attributes.pop("fake", None)
    attributes["job_state"] = state
    attributes["substate"] = SUBSTATE[state]
    if os.path.exists(os.path.join(job_dir, "deleted")):
        attributes["substate"] = SUBSTATE_DELETED
    status_file = os.path.join(job_dir, "exit_status")
    if state in "FX" and os.path.exists(status_file):
        text = open(status_file).read().strip()
        if not re.fullmatch(r"-?[0-9]+", text):
            io.fail(FAKE_CONFIG_ERROR, f"fake PBS: {status_file}: '{text}' is not an integer")
        attributes["Exit_status"] = int(text)
    return attributes


def all_job_ids(d):
    def number(job_id):
        return int(job_id.split(".")[0])
    return sorted(os.listdir(os.path.join(d, "jobs")), key=number)


def history_enabled(d):
    return not os.path.exists(os.path.join(d, "no_history"))


def qstat(io, d, argv):
    parsed, operands, error = getopt(argv, {"x": False, "f": False, "F": True})
    flags = {letter for letter, _ in parsed}
    formats = [value for letter, value in parsed if letter == "F"]
    if error or (formats and (formats[-1] != "json" or "f" not in flags)) or ("f" in flags and not formats):
        if error:
            io.error(f"qstat: {error}")
        elif "f" in flags and not formats:
            io.error("qstat: -f without -F json is not modelled by the fake PBS (tests/fake_pbs/README.md)")
        io.err.append(QSTAT_USAGE)
        raise Exit(2)
    check_server_up(io, d, "qstat")
    history = "x" in flags
    jobs, failed = {}, 0
    ids = operands if operands else None
    for given in ids if ids is not None else all_job_ids(d):
        job_id = resolve_job_id(given)
        if job_id is None:
            io.error(f"qstat: illegally formed job identifier: {given}")
            failed = 1
            continue
        attributes = read_job(io, d, job_id)
        finished = attributes is not None and attributes["job_state"] in "FXM"
        if attributes is None or (finished and not history_enabled(d)):
            if ids is not None:
                io.error(f"qstat: Unknown Job Id {job_id}")
                failed = PBSE_UNKJOBID
            continue
        if finished and not history:
            if ids is not None:
                io.error(f"qstat: {job_id} Job has finished, use -x or -H to obtain historical job information")
                failed = PBSE_HISTJOBID
            continue
        jobs[job_id] = attributes
    if "f" in flags:
        if jobs or ids is None:
            document = {"timestamp": int(time.time()), "pbs_version": PBS_VERSION, "pbs_server": server_name(),
                        "Jobs": jobs}
            io.out.append(json.dumps(document, indent=4) + "\n")
    elif jobs:
        io.print(f"{'Job id':<17} {'Name':<16} {'User':<16}  {'Time Use':>8} S Queue")
        io.print(f"{'-' * 16}  {'-' * 16} {'-' * 16}  {'-' * 8} - {'-' * 5}")
        for job_id, a in jobs.items():
            io.print(f"{job_id[:16]:<17} {a['Job_Name'][:16]:<16} {a['euser'][:16]:<16}  {'0':>8} "
                     f"{a['job_state']} {a['queue']}")
    return failed


def qdel(io, d, argv):
    parsed, operands, error = getopt(argv, {"W": True, "x": False})
    for letter, value in parsed:
        if letter == "W" and value != "force" and not re.fullmatch(r"suppress_email=[0-9]+", value):
            io.error("qdel: illegal -W value")
            error = error or "-W"
    if error or not operands:
        io.err.append(QDEL_USAGE)
        raise Exit(2)
    check_server_up(io, d, "qdel")
    delete_history = any(letter == "x" for letter, _ in parsed)
    failed = 0
    for given in operands:
        job_id = resolve_job_id(given)
        if job_id is None:
            io.error(f"qdel: illegally formed job identifier: {given}")
            failed = 1
            continue
        with Lock(d):
            attributes = read_job(io, d, job_id)
            if attributes is None or (attributes["job_state"] in "FXM" and not history_enabled(d)):
                io.error(f"qdel: Unknown Job Id {job_id}")
                failed = PBSE_UNKJOBID
                continue
            job_dir = os.path.join(d, "jobs", job_id)
            state = attributes["job_state"]
            if state in "FXM":
                if delete_history:
                    os.rename(job_dir, os.path.join(d, f"purged.{job_id}.{os.getpid()}"))
                    continue
                io.error(f"qdel: Job has finished {job_id}")
                failed = PBSE_HISTJOBID
                continue
            if state in "RE":
                # Seen on OpenPBS 23.06 (tests/pbs): a running job deleted with qdel ends with substate 91
                # and Exit_status 271 (256 + SIGTERM; 265 with -W force).
                forced = any(letter == "W" and value == "force" for letter, value in parsed)
                write_file(os.path.join(job_dir, "exit_status"), "265\n" if forced else "271\n")
            write_file(os.path.join(job_dir, "deleted"), f"{state}\n")
            write_file(os.path.join(job_dir, "state"), "F\n")
    return failed


# ---------------------------------------------------------------------------------------------------


def stdin_closed():
    try:
        os.fstat(0)
        return False
    except OSError:
        return True


def main(cmd):
    closed = stdin_closed()  # before anything here opens a file and takes fd 0
    d = state_dir(cmd)
    io = Io()
    argv = sys.argv[1:]
    try:
        if closed and cmd in ("qstat", "qdel"):
            # Seen on OpenPBS 23.06 (shared/third_party/openpbs/README.md): with fd 0 closed, the client's
            # server socket gets fd 0, which cnt2server() takes for a failed connection; the message is
            # printed and the command still exits 0 (qstat.c: any_failed = conn; qdel.c: pbs_errno, 0).
            io.error(f"qstat: cannot connect to server {server_name()} (errno=0)" if cmd == "qstat"
                     else f"Couldn't connect to cluster: {server_name()}")
            code = 0
        elif argv == ["--version"]:
            io.print(f"pbs_version = {PBS_VERSION}")
            code = 0
        else:
            code = {"qsub": qsub, "qstat": qstat, "qdel": qdel}[cmd](io, d, argv)
    except Exit as e:
        code = e.code
    sys.stdout.write("".join(io.out))
    sys.stderr.write("".join(io.err))
    record = {"cmd": cmd, "argv": argv, "cwd": os.getcwd(), "exit": code, "stdout": "".join(io.out),
              "stderr": "".join(io.err)}
    if io.script is not None:
        record["script"] = io.script.decode("utf-8", "surrogateescape")
    with Lock(d):
        with open(os.path.join(d, "calls.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
    return code
