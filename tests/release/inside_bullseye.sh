#!/usr/bin/env bash
# Run by tests/release/bullseye_test.sh inside a Debian 11 root, as an unprivileged user in its home
# directory: installs and uses the release artifacts in DIST as a user of a glibc 2.31 login node would.
# Prints PASS or FAIL per check; exits 1 when one failed.
#   inside_bullseye.sh DIST
set -uo pipefail
dist=$1
failures=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then echo "PASS: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}
cd "$HOME" || exit 1
wheel=$(ls "$dist"/ezpz-*.whl)
tarball=$(ls "$dist"/ezpz-*-linux-*.tar.gz)
check "running as an unprivileged user ($(id -un))" test "$(id -u)" -ne 0
check "Python is 3.9 ($(python3 --version 2>&1))" bash -c 'python3 --version 2>&1 | grep -q "^Python 3\.9\."'

# The wheel, into a venv, without the network.
python3 -m venv v
v/bin/pip install --no-index --disable-pip-version-check -q "$wheel" >pip.log 2>&1
check "pip install --no-index of the wheel into a Python 3.9 venv ($(tail -n 5 pip.log))" test -x v/bin/ezpz
check "ezpz --version runs on glibc 2.31 ($(v/bin/ezpz --version 2>&1))" v/bin/ezpz --version

mapfile -t systems < <(v/bin/ezpz systems list | awk 'NR > 1 {print $1}')
check "systems list names the shipped systems (${systems[*]})" test "${#systems[@]}" -ge 9
for system in "${systems[@]}"; do
  v/bin/ezpz init --system "$system" "$system.yaml" 2>/dev/null
  sed -E 's/^([a-z_]+):  # fill in:.*/\1: MyProject/' "$system.yaml" >"$system.filled.yaml"
  v/bin/ezpz render "$system.filled.yaml" >"$system.sh" 2>"$system.err"
  check "$system: the wheel's ezpz renders a spec ($(head -c 300 "$system.err"))" grep -q '^#!' "$system.sh"
done

answer=$(v/bin/python - <<'PY' 2>&1
import sys
import ezpz
script = ezpz.render({"system": "aurora", "account": "MyProject", "nodes": 2, "walltime": "30m",
                      "filesystems": ["home", "flare"], "run": ["python3", "train.py"]})
problems = ezpz.validate({"system": "slurm", "nodes": "two", "walltime": "1h", "run": "true"})
print("render", "#PBS -l select=2" in script, "validate", [p.where for p in problems], "torch", "torch" in sys.modules)
PY
)
check "the Python job API: render and validate from Python 3.9 (got: $answer)" \
  grep -qxF "render True validate ['<dict> nodes=two'] torch False" <<<"$answer"

v/bin/ezpz launch -n 2 -- v/bin/python -c 'import ezpz; print("rank", ezpz.get_rank(), "of", ezpz.get_world_size(), "local", ezpz.get_local_rank())' \
  >launch.out 2>launch.err
code=$?
check "ezpz launch -n 2 of a Python program exits 0 ($(head -c 400 launch.err))" test "$code" -eq 0
for rank in 0 1; do
  check "rank $rank of 2 says so ($(tr '\n' '|' <launch.out))" grep -qx "rank $rank of 2 local $rank" launch.out
done

# ezpz yeet with bullseye's MPICH (libmpi.so.12), for the wheel's helper and for the tarball's.
mkdir -p src/sub/deeper
head -c 3000000 /dev/urandom >src/big.bin
printf 'hello\n' >src/sub/small.txt
printf '#!/bin/sh\necho hi\n' >src/sub/deeper/run.sh
chmod 755 src/sub/deeper/run.sh
ln -s small.txt src/sub/link
fingerprint() {  # every path, kind, mode and content of a tree (not yeet's own record in a copy)
  (cd "$1" && find . -path ./.ezpz-yeet -prune -o -printf '%p %y %m %l\n' | sort &&
    find . -path ./.ezpz-yeet -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
}
yeet_check() {  # yeet_check NAME EZPZ
  local name=$1 ezpz=$2 rank
  timeout -k 5 120 mpiexec -n 2 "$ezpz" yeet "$HOME/src" "$HOME/dest-$name-%r" >"yeet-$name.log" 2>&1
  local code=$?
  check "$name: mpiexec -n 2 ezpz yeet exits 0 ($(tail -n 5 "yeet-$name.log"))" test "$code" -eq 0
  for rank in 0 1; do
    check "$name: rank $rank's copy is the tree, byte for byte" \
      cmp -s <(fingerprint "$HOME/src") <(fingerprint "$HOME/dest-$name-$rank")
  done
}
# Debian's MPICH names its library libmpich.so.12; the MPICH ABI's name, which the helper asks for (as
# Cray's lib-abi-mpich and Intel MPI provide it), is a link away. ezpz doctor says so first.
v/bin/ezpz doctor --system local >doctor-before.txt 2>&1
check "ezpz doctor: the yeet helper cannot find libmpi.so.12, and what to do ($(grep -A1 yeet doctor-before.txt | tr '\n' '|'))" \
  grep -q "libmpi.so.12 => not found" doctor-before.txt
mkdir -p mpi-abi
ln -s /usr/lib/x86_64-linux-gnu/libmpich.so.12 mpi-abi/libmpi.so.12
export LD_LIBRARY_PATH=$HOME/mpi-abi
v/bin/ezpz doctor --system local >doctor-after.txt 2>&1
check "ezpz doctor: the yeet helper loads once libmpi.so.12 is found ($(grep yeet doctor-after.txt))" \
  grep -qE "yeet.*loads here and links mpich" doctor-after.txt
yeet_check wheel v/bin/ezpz

mkdir -p opt
tar -xzf "$tarball" -C opt
unpacked=$(ls -d "$HOME"/opt/ezpz-*)
"$unpacked/bin/ezpz" render polaris.filled.yaml >tarball-polaris.sh 2>tarball.err
check "the tarball's ezpz renders where it was unpacked ($(head -c 300 tarball.err))" grep -q '^#!' tarball-polaris.sh
profile=$("$unpacked/bin/ezpz" systems list | awk '$1 == "polaris" {print $NF}')
check "the tarball's ezpz reads its shipped profiles from share/ezpz/systems ($profile)" \
  grep -q "share/ezpz/systems/polaris.yaml" <<<"$profile"
yeet_check tarball "$unpacked/bin/ezpz"

echo "$failures check(s) failed"
((failures == 0))
