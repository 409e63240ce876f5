#!/usr/bin/env bash
# The release wheel where Debian 12's users would put it: a venv made with --system-site-packages (so
# Debian's python3-torch is seen), `pip install --no-index` of the wheel, then the ezpz command on the
# venv's PATH, `import ezpz` without torch running the venv's ezpz, the man pages and completions under
# the venv, and ezpz.setup_torch() joining a gloo group on 2 ranks under `ezpz launch` and under a bare
# mpiexec.mpich (tests/python/setup_torch_test.sh with the venv's python). Also `pip wheel` of the
# source checkout (the build backend tools/ezpz_wheel.py, offline, over the already built BUILD_DIR)
# makes the same package: the same files, the same Python code.
#   venv_test.sh DIST_DIR SOURCE_DIR BUILD_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
dist=$1
source_dir=$2
build=$3
shopt -s nullglob
wheels=("$dist"/ezpz-*.whl)
((${#wheels[@]} == 1)) || { echo "FAIL: expected one wheel in $dist, found ${#wheels[@]} (ctest release.artifacts makes it)" >&2; exit 1; }
/usr/bin/python3 -c 'import venv, ensurepip' 2>/dev/null ||
  cannot_run "/usr/bin/python3 cannot make a venv with pip (Debian python3-venv: scripts/install-deps.sh test)"

venv=$workdir/v
/usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --no-index --no-deps --disable-pip-version-check -q "${wheels[0]}" >"$workdir/pip.log" 2>&1
code=$?
check "pip install --no-index of the wheel exits 0 ($(tail -n 5 "$workdir/pip.log"))" test "$code" -eq 0
check "ezpz is on the venv's PATH, executable" test -x "$venv/bin/ezpz"
check "ezpz-yeet-mpi is installed beside it" test -x "$venv/bin/ezpz-yeet-mpi"
check "ezpz --version runs" "$venv/bin/ezpz" --version
for page in ezpz.1 ezpz-render.1; do
  check "the man page $page is under the venv's share/man" test -s "$venv/share/man/man1/$page"
done
check "bash completion is under the venv's share" test -s "$venv/share/bash-completion/completions/ezpz"

answer=$(cd "$workdir" && env -u PYTHONPATH -u EZPZ_BIN "$venv/bin/python" -c '
import sys, ezpz
print("torch" in sys.modules, ezpz._api.executable(), ezpz.__version__)
script = ezpz.render({"system": "polaris", "account": "MyProject", "nodes": 2, "walltime": "30m",
                      "filesystems": ["home", "eagle"], "run": ["python3", "train.py"]})
print("#PBS -l select=2" in script, ezpz.validate({"system": "slurm", "nodes": 2, "walltime": "1h", "run": "true"}))' 2>&1)
version=$("$venv/bin/ezpz" --version 2>&1 | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1)
check "import ezpz imports no torch and runs the venv's ezpz, version $version (got: $answer)" \
  grep -qxF "False $venv/bin/ezpz $version" <<<"$answer"
check "ezpz.render and ezpz.validate work from the venv (got: $answer)" grep -qxF "True []" <<<"$answer"

EZPZ_WHEEL_BUILD_DIR=$build "$venv/bin/pip" wheel --no-build-isolation --no-index --no-deps --disable-pip-version-check \
  -q -w "$workdir/from-source" "$source_dir" >"$workdir/pip-wheel.log" 2>&1
code=$?
check "pip wheel of the source checkout exits 0 ($(tail -n 5 "$workdir/pip-wheel.log"))" test "$code" -eq 0
same=$("$venv/bin/python" - "${wheels[0]}" "$workdir"/from-source/ezpz-*.whl <<'PY' 2>&1
import sys, zipfile
release, source = (zipfile.ZipFile(path) for path in sys.argv[1:3])
names = sorted(release.namelist())
assert names == sorted(source.namelist()), set(names) ^ set(source.namelist())
python = [name for name in names if name.startswith("ezpz/")]
assert python and all(release.read(name) == source.read(name) for name in python)
print("same", len(names))
PY
)
check "the wheel from source has the release wheel's files and Python code (got: $same)" grep -q '^same ' <<<"$same"

for mode in launch mpiexec; do
  EZPZ_TEST_PYTHON=$venv/bin/python "$here/../python/setup_torch_test.sh" "$venv/bin/ezpz" "$mode" 2
  code=$?
  check "setup_torch() from the wheel joins 2 ranks under $mode (exit $code)" test "$code" -eq 0
done
finish
