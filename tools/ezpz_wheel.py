"""The ezpz wheel: a PEP 517 build backend (pyproject.toml) and the packer scripts/release.sh uses.

One wheel for every CPython 3.9 or newer on x86_64 (or aarch64) Linux, the way ruff and uv ship: the
static ``ezpz`` executable (and ``ezpz-yeet-mpi``) as scripts, so pip puts them on the environment's
PATH, the pure-Python package ``ezpz`` that runs them, and the man pages and completions as data. The
wheel packs what ``cmake --install --component runtime`` puts under a prefix (the same tree as the
release tarball): ``pip install .`` builds and installs that tree from this checkout first, and
scripts/release.sh hands over its own (EZPZ_WHEEL_STAGE). Needs only the standard library.

The platform tag is what the executables need: manylinux_2_N for the newest GLIBC_2.N symbol version
they ask for (2.17 when none does, as for the static ``ezpz``), read from the ELF files themselves.
"""

import base64
import hashlib
import os
import platform
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import zipfile

_NAME = "ezpz"
_SUMMARY = "Portable distributed PyTorch jobs on HPC systems: the ezpz command and its Python package"
_SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_OLDEST_MANYLINUX = 17  # manylinux_2_17: the oldest glibc a manylinux tag can name


def version():
    """The project's version, from its one place: project(ezpz VERSION …) in CMakeLists.txt."""
    with open(os.path.join(_SOURCE, "CMakeLists.txt"), encoding="utf-8") as cmake:
        found = re.search(r"project\(ezpz VERSION ([0-9.]+)", cmake.read())
    if not found:
        raise RuntimeError("CMakeLists.txt has no 'project(ezpz VERSION x.y.z'")
    return found.group(1)


# --- ELF: which glibc an executable needs ------------------------------------------------------------

_SHT_GNU_VERNEED = 0x6FFFFFFE


def elf_glibc_needs(path):
    """The GLIBC_2.N minor versions an ELF file's symbol version references ask for (empty for a static
    executable, None for a file that is not a 64-bit little-endian ELF)."""
    with open(path, "rb") as file:
        data = file.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    section_offset, = struct.unpack_from("<Q", data, 0x28)
    entry_size, count = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, section_offset + i * entry_size) for i in range(count)]
    minors = set()
    for _, kind, _, _, offset, _, link, entries, _, _ in sections:
        if kind != _SHT_GNU_VERNEED:
            continue
        strings = sections[link][4]
        need = offset
        for _ in range(entries):
            _, aux_count, _, aux_offset, next_need = struct.unpack_from("<HHIII", data, need)
            aux = need + aux_offset
            for _ in range(aux_count):
                _, _, _, name, next_aux = struct.unpack_from("<IHHII", data, aux)
                text = data[strings + name:data.index(b"\0", strings + name)].decode("ascii", "replace")
                matched = re.fullmatch(r"GLIBC_2\.([0-9]+)(\.[0-9]+)?", text)
                if matched:
                    minors.add(int(matched.group(1)))
                aux += next_aux
            need += next_need
    return minors


def platform_tag(executables):
    """manylinux_2_N_<machine> for the newest glibc any of `executables` needs."""
    newest = _OLDEST_MANYLINUX
    for path in executables:
        minors = elf_glibc_needs(path)
        if minors:
            newest = max(newest, *minors)
    machine = platform.machine()
    if sys.platform != "linux" or machine not in ("x86_64", "aarch64"):
        raise RuntimeError(f"ezpz wheels are for x86_64 and aarch64 Linux, not {sys.platform} {machine}")
    return f"manylinux_2_{newest}_{machine}"


# --- the wheel ---------------------------------------------------------------------------------------

def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def _metadata():
    with open(os.path.join(_SOURCE, "README.md"), encoding="utf-8") as readme:
        description = readme.read()
    return (f"Metadata-Version: 2.1\nName: {_NAME}\nVersion: {version()}\nSummary: {_SUMMARY}\n"
            "License: MIT\nRequires-Python: >=3.9\nClassifier: Operating System :: POSIX :: Linux\n"
            "Classifier: Programming Language :: Python :: 3\nClassifier: Programming Language :: C++\n"
            f"Description-Content-Type: text/markdown\n\n{description}")


def _stage_files(stage):
    """(path in the wheel, file on disk) for every file of an installed runtime tree."""
    data = f"{_NAME}-{version()}.data"
    files = []
    for top, _, names in os.walk(stage):
        for name in names:
            path = os.path.join(top, name)
            relative = os.path.relpath(path, stage).replace(os.sep, "/")
            package = re.match(r"lib/python3[^/]*/(site|dist)-packages/(.*)", relative)
            if package:
                files.append((package.group(2), path))
            elif relative.startswith("bin/"):
                files.append((f"{data}/scripts/{relative[4:]}", path))
            elif relative.startswith("share/"):
                files.append((f"{data}/data/{relative}", path))
            else:
                raise RuntimeError(f"{relative}: the runtime component installs something the wheel has no place for")
    return sorted(files)


def pack(stage, wheel_directory):
    """Writes the wheel of the installed runtime tree `stage` into `wheel_directory`; returns its name.
    The same tree gives the same bytes (fixed times and order)."""
    bin_directory = os.path.join(stage, "bin")
    executables = [os.path.join(bin_directory, name) for name in sorted(os.listdir(bin_directory))] if os.path.isdir(
        bin_directory) else []
    if not any(os.path.basename(path) == "ezpz" for path in executables):
        raise RuntimeError(f"{stage}: no bin/ezpz (install the runtime component there first)")
    tag = f"py3-none-{platform_tag(executables)}"
    dist_info = f"{_NAME}-{version()}.dist-info"
    wheel_name = f"{_NAME}-{version()}-{tag}.whl"
    stamp = (1980, 1, 1, 0, 0, 0)
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        import time

        stamp = time.gmtime(max(int(epoch), 315532800))[:6]
    record = []
    os.makedirs(wheel_directory, exist_ok=True)
    target = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(target + ".tmp", "w", zipfile.ZIP_DEFLATED) as wheel:
        def add(name, data, mode):
            info = zipfile.ZipInfo(name, stamp)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
            record.append(f"{name},{_record_hash(data)},{len(data)}")

        for name, path in _stage_files(stage):
            with open(path, "rb") as file:
                add(name, file.read(), 0o755 if os.access(path, os.X_OK) else 0o644)
        with open(os.path.join(_SOURCE, "LICENSE"), "rb") as license_file:
            add(f"{dist_info}/LICENSE", license_file.read(), 0o644)
        add(f"{dist_info}/METADATA", _metadata().encode("utf-8"), 0o644)
        add(f"{dist_info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: ezpz (tools/ezpz_wheel.py)\n"
                                   f"Root-Is-Purelib: false\nTag: {tag}\n").encode("ascii"), 0o644)
        record.append(f"{dist_info}/RECORD,,")
        info = zipfile.ZipInfo(f"{dist_info}/RECORD", stamp)
        info.external_attr = 0o100644 << 16
        wheel.writestr(info, "\n".join(record) + "\n", zipfile.ZIP_DEFLATED)
    os.replace(target + ".tmp", target)
    return wheel_name


def install_runtime(build_directory, stage):
    """Builds this checkout in `build_directory` (configured first, when it is not yet: Release, no tests,
    no LibTorch) and installs its runtime component into `stage`, stripped."""
    if not os.path.exists(os.path.join(build_directory, "CMakeCache.txt")):
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        subprocess.run(["cmake", "-S", _SOURCE, "-B", build_directory, *generator, "-DCMAKE_BUILD_TYPE=Release",
                        "-DEZPZ_BUILD_TESTS=OFF", "-DEZPZ_BUILD_TORCH=OFF"], check=True, stdout=sys.stderr)
    subprocess.run(["cmake", "--build", build_directory, "--parallel", str(os.cpu_count() or 2)], check=True,
                   stdout=sys.stderr)
    shutil.rmtree(stage, ignore_errors=True)
    subprocess.run(["cmake", "--install", build_directory, "--prefix", stage, "--component", "runtime", "--strip"],
                   check=True, stdout=sys.stderr)


# --- PEP 517 -----------------------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    dist_info = f"{_NAME}-{version()}.dist-info"
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    with open(os.path.join(metadata_directory, dist_info, "METADATA"), "w", encoding="utf-8") as metadata:
        metadata.write(_metadata())
    return dist_info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """The wheel of EZPZ_WHEEL_STAGE (an installed runtime tree) when set, else of this checkout built
    in $EZPZ_WHEEL_BUILD_DIR, default build-wheel/ (cmake, a C++17 compiler and ezpz's build dependencies:
    README.md, docs/install.md)."""
    stage = os.environ.get("EZPZ_WHEEL_STAGE")
    if not stage:
        build_directory = os.path.abspath(os.environ.get("EZPZ_WHEEL_BUILD_DIR") or os.path.join(_SOURCE, "build-wheel"))
        stage = os.path.join(build_directory, "wheel-stage")
        install_runtime(build_directory, stage)
    return pack(stage, wheel_directory)


def build_sdist(sdist_directory, config_settings=None):
    """The source files git tracks, as ezpz-<version>.tar.gz."""
    files = subprocess.run(["git", "-C", _SOURCE, "ls-files", "-z"], check=True, capture_output=True).stdout
    name = f"{_NAME}-{version()}"
    os.makedirs(sdist_directory, exist_ok=True)
    with tarfile.open(os.path.join(sdist_directory, name + ".tar.gz"), "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        metadata = _metadata().encode("utf-8")
        info = tarfile.TarInfo(f"{name}/PKG-INFO")
        info.size, info.mode = len(metadata), 0o644
        import io

        sdist.addfile(info, io.BytesIO(metadata))
        for relative in sorted(filter(None, files.decode("utf-8").split("\0"))):
            sdist.add(os.path.join(_SOURCE, relative), f"{name}/{relative}", recursive=False)
    return name + ".tar.gz"


if __name__ == "__main__":
    # python3 tools/ezpz_wheel.py STAGE OUT_DIR: the wheel of an installed runtime tree (scripts/release.sh).
    if len(sys.argv) != 3:
        sys.exit("usage: tools/ezpz_wheel.py STAGE OUT_DIR")
    print(pack(sys.argv[1], sys.argv[2]))
