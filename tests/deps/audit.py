#!/usr/bin/python3
"""Dependency audit: every file the build used and every program the tests run comes from a Debian package
that scripts/install-deps.sh installs (itself or through its dependencies) or from the base system.

usage: audit.py BUILD_DIR SOURCE_DIR [--install-deps FILE] [--ninja PROGRAM] [--ctest PROGRAM]
                [--base minbase|standard] [--programs FILE] [--verbose]

What is checked, and in which scope (the install-deps.sh mode that must cover it):
  build  what ./scripts/quickstart.sh builds after `install-deps.sh build`: the objects and link lines of
         a default configure (with the unit tests, without the LibTorch parts; see OPTIONAL_PARTS), or of
         the targets it names with --target and their inputs, the libraries those programs load, the
         compiler, ar, cmake and ninja
  test   what ./scripts/test.sh uses after `install-deps.sh test`: the rest of the build (the LibTorch
         parts, the files CMake read while configuring), the programs the tests run (programs.txt beside
         this file, every `command -v NAME` and /usr/bin/NAME in the test scripts; with --ctest only the
         directories of registered tests) and the Python modules they import
Each file is mapped to its package with dpkg -S (the path as used and its realpath, with and without /usr).
Files in the source or build directory are ours. A package is covered when it is in the closure of the
scope's install-deps.sh packages (apt-cache depends --recurse, first alternative of each `a | b`, every
provider of a virtual package) or in the base system: `minbase` (default) = the installed packages of
Priority required or Essential, what `debootstrap --variant=minbase` and the debian:12 image contain;
`standard` adds Priority important and build-essential's dependencies.
The lists come from running install-deps.sh itself with stub dpkg-query (nothing installed) and apt-get
(records its arguments) first on PATH: they are what it would install on an empty machine.

Exit status: 0 all covered, 1 findings (each names the package, the file and what used it), 2 the audit
could not run, 77 skipped (not a Ninja build, or no dpkg).
"""
import argparse
import collections
import functools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
# Where a program named in a test script is looked for: the system directories and /usr/local, where a
# hand-prepared machine keeps what it installed by hand (nothing there comes from a Debian package).
NAMED_PATH = "/usr/local/sbin:/usr/local/bin:" + SYSTEM_PATH
# Shell builtins and keywords: a test script's `kill`, `time` or `test` is never the program of that name.
BUILTINS = set("""alias bg bind break builtin caller case cd command compgen complete continue coproc declare dirs
    disown do done echo elif else enable esac eval exec exit export false fc fg fi for function getopts hash help
    history if in jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return select set
    shift shopt source suspend test then time times trap true type typeset ulimit umask unalias unset until wait
    while""".split())
APT_DEPENDS = ["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
               "--no-breaks", "--no-replaces", "--no-enhances"]
# Top-level directories of the merged /usr: dpkg may record a file under either spelling.
MERGED_DIRS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")


class AuditError(Exception):
    pass


def run(cmd, **kwargs):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, errors="replace", **kwargs)
    except OSError as e:
        raise AuditError(f"cannot run {cmd[0]}: {e}") from e


def log(message):
    print(f"deps audit: {message}", flush=True)


# ---------------------------------------------------------------------------------------------------------
# What install-deps.sh installs


STUBS = {
    # Nothing is installed, so every package the mode wants is "missing".
    "dpkg-query": "#!/bin/sh\nexit 1\n",
    "apt-get": '#!/bin/sh\nprintf \'%s\\n\' "$*" >>"$EZPZ_AUDIT_CAPTURE"\n',
    "sudo": '#!/bin/sh\nexec "$@"\n',
}


def install_deps_lists(script, modes):
    """{mode: [package, ...]}: what `install-deps.sh MODE` would install on a machine with nothing installed."""
    text = open(script, encoding="utf-8").read()
    if re.search(r"/(usr/)?s?bin/(apt-get|apt|dpkg-query|sudo)\b", text):
        raise AuditError(f"{script} calls apt-get, dpkg-query or sudo by absolute path; the audit runs it with "
                         "stubs first on PATH and would not see (or would really run) those calls")
    lists = {}
    with tempfile.TemporaryDirectory(prefix="ezpz-deps-audit.") as tmp:
        stubs = os.path.join(tmp, "bin")
        os.mkdir(stubs)
        for name, body in STUBS.items():
            path = os.path.join(stubs, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(body)
            os.chmod(path, 0o755)
        capture = os.path.join(tmp, "apt-get.args")
        for mode in modes:
            open(capture, "w").close()
            env = {"PATH": f"{stubs}:{SYSTEM_PATH}", "EZPZ_AUDIT_CAPTURE": capture, "HOME": tmp, "LC_ALL": "C"}
            result = run(["bash", script, mode], env=env, cwd=tmp)
            if result.returncode != 0:
                raise AuditError(f"`{script} {mode}` with stub apt-get failed (exit {result.returncode}): "
                                 f"{result.stderr.strip()}")
            packages = []
            for line in open(capture, encoding="utf-8"):
                words = line.split()
                if words and "install" in words:
                    packages += [w for w in words[words.index("install") + 1:] if not w.startswith("-")]
            if not packages:
                raise AuditError(f"`{script} {mode}` never called `apt-get install` (run with stub dpkg-query and "
                                 "apt-get first on PATH); cannot tell what it installs")
            lists[mode] = sorted(set(packages))
    return lists


# ---------------------------------------------------------------------------------------------------------
# Dependency closure (apt-cache depends) and the base system


def bare(name):
    """Package name without <virtual> brackets or an :arch / :any qualifier."""
    return name.strip().strip("<>").split(":")[0]


def apt_graph(packages):
    """{package: [[alternative, ...], ...]} for everything reachable from PACKAGES (one apt-cache call).
    An alternative is (name, providers): providers is a list for a virtual package, None for a real one."""
    result = run(APT_DEPENDS + sorted(packages))
    if result.returncode != 0:
        raise AuditError(f"apt-cache depends failed (exit {result.returncode}): {result.stderr.strip()}")
    graph = {}
    node = group = last = None
    for line in result.stdout.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            node = graph.setdefault(bare(line), [])
            group = []
            continue
        if line.startswith("    "):  # a provider of the virtual package on the line before
            if last is not None and last[1] is not None:
                last[1].append(bare(line))
            continue
        m = re.match(r"^ ([| ])(\w+): (.+)$", line)
        if not m or node is None:
            continue
        alternative_follows, kind, name = m.group(1) == "|", m.group(2), m.group(3).strip()
        if kind not in ("Depends", "PreDepends"):
            continue
        last = (bare(name), [] if name.startswith("<") else None)
        group.append(last)
        if not alternative_follows:
            node.append(group)
            group = []
    return graph


def closure(graph, roots):
    """The packages apt would install for ROOTS: each dependency is satisfied by its first alternative that
    exists (apt's choice on a machine that has none of them), a virtual one by any of its providers."""
    seen = set()
    todo = list(roots)
    while todo:
        package = todo.pop()
        if package in seen:
            continue
        seen.add(package)
        for group in graph.get(package, []):
            for name, providers in group:
                if providers is None and name in graph:
                    todo.append(name)
                    break
                if providers:
                    todo.extend(providers)
                    break
    return seen


def base_system(kind, graph_for):
    """Installed packages a fresh machine already has (see the module comment for KIND)."""
    result = run(["dpkg-query", "-W", "-f=${binary:Package}\t${Priority}\t${Essential}\t${db:Status-Abbrev}\n"])
    base = set()
    priorities = {"required"} if kind == "minbase" else {"required", "important"}
    for line in result.stdout.splitlines():
        fields = line.split("\t")
        if len(fields) == 4 and fields[3].startswith("ii") and (fields[1] in priorities or fields[2] == "yes"):
            base.add(bare(fields[0]))
    if kind == "standard":
        base |= closure(graph_for(["build-essential"]), ["build-essential"])
    return base


# ---------------------------------------------------------------------------------------------------------
# Files the build used


Use = collections.namedtuple("Use", "path scope why")


# Parts of the build that exist only with an option on: (option, on in a default configure, pattern of the
# part's objects and link outputs in the build dir). ./scripts/quickstart.sh builds with the defaults,
# unless it passes -DOPTION=VALUE to build.sh; what it builds needs only `install-deps.sh build`.
OPTIONAL_PARTS = (
    ("EZPZ_BUILD_TESTS", True, re.compile(r"^tests/")),
    # ON when CMake finds LibTorch, which `install-deps.sh build` does not install.
    ("EZPZ_BUILD_TORCH", False, re.compile(r"torch")),
)


def quickstart_scoper(quickstart, ninja, build):
    """scope_of(build-relative path) -> "build" when ./scripts/quickstart.sh's build has that object or
    output, else "test". When it builds only some targets (`--target NAME` to build.sh), what it builds is
    those targets and every input ninja needs for them (`ninja -t inputs`)."""
    text = open(quickstart, encoding="utf-8").read() if os.path.exists(quickstart) else ""
    given = {m.group(1): m.group(2).upper() in ("ON", "TRUE", "YES", "1")
             for m in re.finditer(r"-D(\w+)(?::\w+)?=(\S+)", text)}
    off = [pattern for option, default, pattern in OPTIONAL_PARTS if not given.get(option, default)]
    targets = re.findall(r"--target\s+([\w.+-]+)", text)
    built = None
    if targets:
        result = run([ninja, "-C", build, "-t", "inputs", *targets])
        if result.returncode != 0:
            raise AuditError(f"`ninja -C {build} -t inputs {' '.join(targets)}` failed: {result.stderr.strip()}")
        built = set(result.stdout.split()) | set(targets)

    def scope_of(build_relative):
        if os.path.isabs(build_relative):
            return "test"
        if built is not None and build_relative not in built:
            return "test"
        return "test" if any(p.search(build_relative) for p in off) else "build"
    return scope_of


def ninja_deps(ninja, build, scope_of):
    result = run([ninja, "-C", build, "-t", "deps"])
    if result.returncode != 0:
        raise AuditError(f"`ninja -C {build} -t deps` failed: {result.stderr.strip()}")
    uses, target, objects = [], None, 0
    for line in result.stdout.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            target = line.split(": #deps")[0]
            objects += 1
        elif target:
            uses.append(Use(os.path.join(build, line.strip()), scope_of(target), f"compiling {target}"))
    return uses, objects


def configure_inputs(build):
    """Files CMake read while configuring: build.ninja's own dependencies (package config files, modules)."""
    uses = []
    with open(os.path.join(build, "build.ninja"), encoding="utf-8", errors="replace") as f:
        text = f.read().replace("$\n", " ")
    for line in text.splitlines():
        if line.startswith("build build.ninja") and "RERUN_CMAKE" in line:
            for word in line.split()[2:]:
                if word not in ("|", "||") and word != "RERUN_CMAKE":
                    uses.append(Use(os.path.join(build, word), "test", "cmake (configuring)"))
    return uses


def compiler_search_dirs(compiler, cache={}):
    if compiler not in cache:
        dirs = []
        for line in run([compiler, "-print-search-dirs"]).stdout.splitlines():
            if line.startswith("libraries: ="):
                dirs = [os.path.normpath(d) for d in line.split("=", 1)[1].split(":") if d]
        cache[compiler] = dirs
    return cache[compiler]


def resolve_library(name, dirs, static):
    if name.startswith(":"):
        candidates = [name[1:]]
    else:
        candidates = [f"lib{name}.a"] if static else [f"lib{name}.so", f"lib{name}.a"]
    for directory in dirs:
        for candidate in candidates:
            path = os.path.join(directory, candidate)
            if os.path.exists(path):
                return path
    return None


def is_compiler(program):
    return re.search(r"(^|[-/])(c\+\+|g\+\+|gcc|cc|clang\+\+|clang)(-[0-9.]+)?$", program) is not None


def ninja_commands(ninja, build, scope_of):
    """Link lines (libraries by path and -l), the programs the build runs, and the linked outputs."""
    result = run([ninja, "-C", build, "-t", "commands"])
    if result.returncode != 0:
        raise AuditError(f"`ninja -C {build} -t commands` failed: {result.stderr.strip()}")
    uses, programs, outputs, links, unresolved = [], {}, [], 0, []
    library_path = [d for d in os.environ.get("LIBRARY_PATH", "").split(":") if d]
    for command in result.stdout.splitlines():
        try:
            words = shlex.split(command)
        except ValueError:
            words = command.split()
        segments, current = [], []
        for word in words:
            if word == "&&":
                segments.append(current)
                current = []
            else:
                current.append(word)
        segments.append(current)
        for args in segments:
            if not args or args[0] in (":", "cd"):
                continue
            program = args[0]
            if os.path.isabs(program) or "/" in program:
                program = os.path.normpath(os.path.join(build, program))
            if "-c" in args or not is_compiler(program) or "-o" not in args:
                programs.setdefault(program, "build")
                continue
            # A link line.
            output = args[args.index("-o") + 1]
            inputs = [a for a in args[1:] if a.endswith((".o", ".a")) and not os.path.isabs(a)]
            scope = "test" if any(scope_of(i) == "test" for i in inputs) or scope_of(output) == "test" else "build"
            programs[program] = "build" if programs.get(program) == "build" or scope == "build" else "test"
            links += 1
            outputs.append((os.path.join(build, output), scope))
            why = f"linking {output}"
            static = "-static" in args or "-static-pie" in args
            search, names = [], []
            words_iter = iter(args[1:])
            for word in words_iter:
                parts = word[4:].split(",") if word.startswith("-Wl,") else [word]
                for part in parts:
                    part = part.strip('"')
                    if part in ("-Bstatic", "-Bdynamic"):
                        names.append(("mode", part == "-Bstatic"))
                    elif part == "-L":
                        search.append(next(words_iter, ""))
                    elif part.startswith("-L"):
                        search.append(part[2:])
                    elif part == "-l":
                        names.append(("lib", next(words_iter, "")))
                    elif part.startswith("-l"):
                        names.append(("lib", part[2:]))
                    elif os.path.isabs(part) and re.search(r"\.(a|so)(\.[0-9.]+)?$", part):
                        uses.append(Use(part, scope, why))
            dirs = [os.path.join(build, d) for d in search] + library_path + compiler_search_dirs(program)
            bstatic = static
            for kind, value in names:
                if kind == "mode":
                    bstatic = value
                    continue
                path = resolve_library(value, dirs, bstatic)
                if path:
                    uses.append(Use(path, scope, f"{why} (-l{value})"))
                else:
                    unresolved.append(f"-l{value} ({why})")
    return uses, programs, outputs, links, unresolved


def toolchain_programs(programs):
    """The compiler's own programs (cc1plus, as, ld, collect2) for each compiler the build runs."""
    extra = {}
    for program, scope in programs.items():
        if is_compiler(program):
            for name in ("cc1plus", "as", "ld", "collect2"):
                path = run([program, f"-print-prog-name={name}"]).stdout.strip()
                if not os.path.isabs(path):
                    path = shutil.which(path, path=SYSTEM_PATH) or ""
                if path and os.path.exists(path):
                    extra.setdefault(path, scope)
    return extra


def runtime_libraries(outputs):
    """Shared libraries the linked programs and libraries load (ldd), in their scope."""
    uses = []
    for path, scope in outputs:
        if not os.path.exists(path):
            continue
        result = run(["ldd", path])
        for line in result.stdout.splitlines():
            m = re.search(r"=>\s*(/\S+)\s*\(", line) or re.match(r"^\s*(/\S+)\s*\(", line)
            if m:
                uses.append(Use(m.group(1), scope, f"loaded by {os.path.basename(path)} (ldd)"))
    return uses


# ---------------------------------------------------------------------------------------------------------
# Programs and Python modules the tests run


def read_program_list(path):
    """programs.txt: `NAME why` required; `!NAME why` known not to come from a package; `python3:MODULE why`."""
    required, ignored, modules = {}, set(), {}
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, why = line.partition(" ")
        why = why.strip() or f"{os.path.basename(path)}:{number}"
        if "/" in name and not os.path.isabs(name.lstrip("!")):
            raise AuditError(f"{path}:{number}: '{name}' is neither a program name nor an absolute path")
        if name.startswith("!"):
            ignored.add(name[1:])
        elif name.startswith("python3:"):
            modules[name.split(":", 1)[1]] = why
        else:
            required[name] = why
    return required, ignored, modules


def registered_test_dirs(ctest, build, source):
    """The directories under tests/ of the scripts registered CTest tests run (ctest --show-only):
    scripts nobody runs yet (work in progress) are not the suite's dependencies."""
    result = run([ctest, "--show-only=json-v1"], cwd=build)
    if result.returncode != 0:
        raise AuditError(f"`ctest --show-only=json-v1` in {build} failed: {result.stderr.strip()}")
    tests_dir = os.path.join(source, "tests") + "/"
    dirs = set()
    for test in json.loads(result.stdout).get("tests", []):
        program = os.path.realpath((test.get("command") or [""])[0])
        if program.startswith(tests_dir) and os.path.isfile(program):
            dirs.add(os.path.dirname(program))
    return sorted(dirs)


def test_sources(source, dirs=None):
    """Shell and Python files under DIRS (default: all of tests/), without rendered golden scripts (run with
    stub launchers) and this audit's own directory."""
    own = os.path.dirname(os.path.abspath(__file__))
    for root in dirs if dirs is not None else [os.path.join(source, "tests")]:
        for top, subdirs, files in os.walk(root):
            subdirs[:] = [d for d in subdirs if d != "golden" and os.path.join(top, d) != own]
            if top == own:
                continue
            for name in files:
                if name.endswith((".sh", ".py")):
                    yield os.path.join(top, name)


def discover(source, dirs):
    """Programs and Python modules named in tests/. Programs: `command -v NAME`, `for program in A B; do
    command -v "$program"`, absolute /usr/bin/NAME paths (all required); and every other word of a shell
    script's code (comments left out) that names a program in NAMED_PATH and is no shell builtin (`named`:
    an over-approximation, so a word that only appears in a message needs a `!NAME` line in programs.txt).
    Modules: `import X` in .py files, `python3 -c 'import X'` and `python3 -m X` in shell scripts."""
    programs, named, modules = {}, {}, {}
    for path in sorted(set(test_sources(source, dirs))):
        text = open(path, encoding="utf-8", errors="replace").read()
        where = os.path.relpath(path, source)
        if path.endswith(".sh"):
            for line in text.splitlines():
                code = re.sub(r"(^|\s)#.*$", "", line)
                for m in re.finditer(r"(?<![\w$./@%:=-])([A-Za-z][A-Za-z0-9_+.-]*[A-Za-z0-9_+])(?![\w/=])", code):
                    word = m.group(1)
                    if word not in BUILTINS and word not in named and shutil.which(word, path=NAMED_PATH):
                        named[word] = where
        for m in re.finditer(r"command -v ([A-Za-z0-9_.+-]*[A-Za-z0-9_+])", text):
            programs.setdefault(m.group(1), where)
        for m in re.finditer(r"for (\w+) in ([^;\n]+); do\n(.*\n){0,3}?.*command -v \"?\$\{?\1\b", text):
            for name in m.group(2).split():
                if re.fullmatch(r"[A-Za-z0-9_.+-]+", name):
                    programs.setdefault(name, where)
        for m in re.finditer(r"(?<![\w./$-])(/(?:usr/)?s?bin/[A-Za-z0-9_.+-]*[A-Za-z0-9_+])", text):
            programs.setdefault(m.group(1), where)
        if path.endswith(".py"):
            for m in re.finditer(r"^\s*(?:import ([\w., ]+)|from ([\w.]+) import)", text, re.M):
                for name in (m.group(1) or m.group(2)).split(","):
                    name = name.split(" as ")[0].strip()
                    if name and not name.startswith("."):
                        modules.setdefault(name.split(".")[0], where)
        else:
            for m in re.finditer(r"python3?\"? -c ['\"]import ([\w.]+(?:, *[\w.]+)*)", text):
                for name in m.group(1).split(","):
                    modules.setdefault(name.strip().split(".")[0], where)
            for m in re.finditer(r"python3?\"? -m ([\w.]+)", text):
                modules.setdefault(m.group(1).split(".")[0], where)
    return programs, named, modules


def local_modules(source):
    names = set()
    for path in test_sources(source):
        if path.endswith(".py"):
            names.add(os.path.basename(path)[:-3])
    return names


def resolve_modules(modules):
    """{module: file or None} as /usr/bin/python3 (what the tests run) finds them, without importing them
    (top-level names only: a dotted name would import its parents).
    Built-in modules map to python3 itself and are left out."""
    code = ("import importlib.util, sys\n"
            "for name in sys.argv[1:]:\n"
            "    try:\n"
            "        spec = importlib.util.find_spec(name)\n"
            "    except Exception:\n"
            "        spec = None\n"
            "    print(name, spec.origin if spec and spec.origin else ('-' if spec is None else 'built-in'))\n")
    result = run(["/usr/bin/python3", "-c", code] + sorted(modules))
    found = {}
    for line in result.stdout.splitlines():
        name, _, origin = line.partition(" ")
        found[name] = None if origin == "-" else origin
    return found


# ---------------------------------------------------------------------------------------------------------
# Files to packages


@functools.lru_cache(maxsize=None)
def realpath(path):
    return os.path.realpath(path)


def variants(path):
    """PATH as dpkg may have recorded it: with and without /usr for the merged top-level directories."""
    out = [path]
    parts = path.split("/")
    if len(parts) > 2 and parts[1] in MERGED_DIRS:
        out.append("/usr" + path)
    elif len(parts) > 3 and parts[1] == "usr" and parts[2] in MERGED_DIRS:
        out.append(path[4:])
    return out


def through_alternatives(path):
    """True when the symlink chain from PATH passes /etc/alternatives (update-alternatives made the link)."""
    for _ in range(40):
        if not os.path.islink(path):
            return False
        target = os.path.join(os.path.dirname(path), os.readlink(path))
        if target.startswith("/etc/alternatives/"):
            return True
        path = os.path.normpath(target)
    return False


def dpkg_owners(paths):
    """{path: {package, ...}} for the paths dpkg knows (one dpkg -S call per 2000 paths)."""
    owners = collections.defaultdict(set)
    paths = sorted(paths)
    for i in range(0, len(paths), 2000):
        chunk = paths[i:i + 2000]
        # dpkg -S treats *, ?, [ and \ as a pattern; escape them so every argument is an exact path.
        args = [re.sub(r"([*?\[\\])", r"\\\1", p) for p in chunk]
        result = run(["dpkg", "-S"] + args, env=dict(os.environ, LC_ALL="C"))
        for line in result.stdout.splitlines():
            if line.startswith("diversion by"):
                continue
            packages, sep, path = line.partition(": ")
            if sep:
                owners[path].update(bare(p) for p in packages.split(", "))
    return owners


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("source_dir")
    parser.add_argument("--install-deps", help="the install-deps.sh to check against (default SOURCE/scripts/...)")
    parser.add_argument("--ninja", default=shutil.which("ninja") or "ninja")
    parser.add_argument("--ctest", help="with it, only test directories with a registered test are scanned")
    parser.add_argument("--base", choices=("minbase", "standard"), default="minbase")
    parser.add_argument("--programs", default=os.path.join(here, "programs.txt"))
    parser.add_argument("--verbose", action="store_true", help="print every file and package checked")
    args = parser.parse_args()
    build = os.path.realpath(args.build_dir)
    source = os.path.realpath(args.source_dir)
    install_deps = args.install_deps or os.path.join(source, "scripts", "install-deps.sh")

    if not shutil.which("dpkg") or not shutil.which("apt-cache"):
        print("SKIP: no dpkg/apt-cache: the audit checks against Debian packages")
        return 77
    if not os.path.exists(os.path.join(build, "build.ninja")):
        print(f"SKIP: {build} is not a Ninja build (the audit reads ninja -t deps)")
        return 77

    findings = []  # (kind, package or None, file, scope, why)

    lists = install_deps_lists(install_deps, ["build", "test"])
    wanted = set(lists["build"]) | set(lists["test"])
    graph_cache = {}

    def graph_for(packages):
        key = tuple(sorted(packages))
        if key not in graph_cache:
            graph_cache[key] = apt_graph(packages)
        return graph_cache[key]

    graph = graph_for(wanted)
    for package in sorted(wanted):
        if package not in graph:
            findings.append(("unknown", package, install_deps, "test", "listed, but apt-cache does not know it"))
    covered = {"build": closure(graph, lists["build"]), "test": closure(graph, lists["test"])}
    base = base_system(args.base, graph_for)

    # The build.
    scope_of = quickstart_scoper(os.path.join(source, "scripts", "quickstart.sh"), args.ninja, build)
    uses, objects = ninja_deps(args.ninja, build, scope_of)
    if objects == 0:
        raise AuditError(f"no compiler dependencies in {build} (ninja -t deps is empty): build it first")
    uses += configure_inputs(build)
    link_uses, build_programs, outputs, links, unresolved = ninja_commands(args.ninja, build, scope_of)
    uses += link_uses
    for item in unresolved:
        findings.append(("unresolved", None, item, "build", "the linker would not find it"))
    build_programs.update({p: s for p, s in toolchain_programs(build_programs).items() if p not in build_programs})
    build_programs.setdefault(shutil.which(args.ninja) or args.ninja, "build")
    uses += runtime_libraries(outputs)
    for program, scope in build_programs.items():
        uses.append(Use(program, scope, "run by the build"))

    # The tests.
    required, ignored, list_modules = read_program_list(args.programs)
    scanned = registered_test_dirs(args.ctest, build, source) if args.ctest else None
    found_programs, named, found_modules = discover(source, scanned)
    test_programs = dict(required)
    for name, where in found_programs.items():
        if name in ignored or os.path.basename(name) in ignored:
            continue
        if name not in required:
            test_programs[name] = where
    for name, where in named.items():
        if name not in ignored and name not in test_programs:
            test_programs[name] = f"named in {where}"
    for name, why in sorted(test_programs.items()):
        if os.path.isabs(name):
            path = name if os.path.exists(name) else None
        else:
            path = shutil.which(name, path=NAMED_PATH)
        if path:
            uses.append(Use(path, "test", f"program run by the tests ({why})"))
            continue
        elsewhere = shutil.which(name) if not os.path.isabs(name) else None
        if elsewhere:
            findings.append(("unowned", None, elsewhere, "test",
                             f"program `{name}` ({why}) is only here, outside the system directories"))
        else:
            findings.append(("absent", None, name, "test", f"program run by the tests ({why}) is not installed"))
    modules = dict(found_modules)
    modules.update(list_modules)
    local = local_modules(source)
    for name in list(modules):
        if name in local or name in ignored:
            del modules[name]
    resolved = resolve_modules(modules)
    for name, why in sorted(modules.items()):
        origin = resolved.get(name)
        if origin is None:
            findings.append(("absent", None, f"python3 module {name}", "test",
                             f"/usr/bin/python3 cannot import it ({why})"))
        elif origin not in ("built-in", "frozen"):
            uses.append(Use(origin, "test", f"python3 module {name} ({why})"))

    # Map every file to its packages.
    ours = (source + "/", build + "/")
    checked = {}  # path -> (scope, why): the narrowest scope wins, build before test
    for use in uses:
        path = os.path.normpath(use.path)
        real = realpath(path)
        if path.startswith(ours) or real.startswith(ours):
            continue
        if path not in checked or (use.scope == "build" and checked[path][0] == "test"):
            checked[path] = (use.scope, use.why)
    lookups = set()
    for path in checked:
        lookups.update(variants(path))
        lookups.update(variants(realpath(path)))
    owners = dpkg_owners(lookups)

    def owner_of(path):
        for variant in variants(path):
            if variant in owners:
                return owners[variant]
        return set()

    packages = collections.defaultdict(list)  # package -> [(path, scope, why)]
    for path, (scope, why) in sorted(checked.items()):
        real = realpath(path)
        own = owner_of(path)
        found = own | (owner_of(real) if real != path else set())
        if not found:
            findings.append(("unowned", None, path, scope, why + ": no Debian package has this file"))
        elif not own and os.path.islink(path) and not through_alternatives(path):
            findings.append(("unowned", None, path, scope, why + f": a symlink no Debian package has (to {real}, "
                             f"from {', '.join(sorted(found))})"))
        for package in found:
            packages[package].append((path, scope, why))
    for package, files in sorted(packages.items()):
        scope = "build" if any(s == "build" for _, s, _ in files) else "test"
        if package in base:
            state = "base system"
        elif package in covered[scope]:
            state = f"install-deps.sh {scope}"
        else:
            state = None
            example = next(f for f in files if f[1] == scope)
            findings.append(("missing", package, example[0], scope, example[2]))
        if args.verbose:
            log(f"{package}: {state or 'NOT COVERED'} ({len(files)} files, e.g. {files[0][0]})")

    n_build_programs = sum(1 for _, (_, why) in checked.items() if why.startswith("run by the build"))
    n_test_programs = sum(1 for _, (_, why) in checked.items() if why.startswith("program run by the tests"))
    log(f"checked {len(checked)} files ({objects} objects' dependencies, {links} link lines, "
        f"{n_build_programs} programs the build runs, {n_test_programs} programs the tests run, "
        f"{len(modules)} python3 modules) -> {len(packages)} Debian packages")
    log(f"install-deps.sh lists {len(lists['build'])} build + {len(set(lists['test']) - set(lists['build']))} test "
        f"packages ({len(covered['build'])} / {len(covered['test'])} with dependencies); "
        f"base system ({args.base}): {len(base)} installed packages")
    if not findings:
        log("ok: every package is installed by install-deps.sh or part of the base system")
        return 0

    print(f"deps audit: FAILED: {len(findings)} problem(s); a fresh Debian 12 machine would not have these "
          f"after `install-deps.sh`:", flush=True)
    for kind, package, path, scope, why in findings:
        if kind == "missing":
            files = packages[package]
            more = f" and {len(files) - 1} more file(s)" if len(files) > 1 else ""
            hint = suggestion(package)
            print(f"  missing package {package} ({scope}): {path}{more}, {why}; not in install-deps.sh {scope}, "
                  f"not pulled in by it, not in the base system ({args.base}). "
                  f"fix: make `install-deps.sh {scope}` install {hint}")
        elif kind == "unknown":
            print(f"  unknown package {package} in {path}: {why}")
        elif kind == "unresolved":
            print(f"  unresolved library {path}: {why}")
        elif kind == "absent":
            print(f"  not installed: {path} ({scope}): {why}")
        else:
            print(f"  not from a package: {path} ({scope}): {why}")
    return 1


def suggestion(package):
    """The unversioned package that installs PACKAGE, when there is one (libboost-filesystem1.74-dev ->
    libboost-filesystem-dev), else PACKAGE itself."""
    candidate = re.sub(r"-?[0-9][0-9.]*(?=(-dev)?$)", "", package)
    if candidate != package and candidate:
        result = run(["apt-cache", "depends", "--no-recommends", "--no-suggests", candidate])
        if re.search(rf"^\s*\|?(Pre)?Depends: {re.escape(package)}(:\w+)?$", result.stdout, re.M):
            return f"{candidate} (it depends on {package})"
    return package


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AuditError as e:
        print(f"deps audit: error: {e}", file=sys.stderr)
        sys.exit(2)
