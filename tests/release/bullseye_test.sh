#!/usr/bin/env bash
# The release artifacts where ezpz's users are: a Debian 11 (bullseye) root stands in for an HPC login
# node (glibc 2.31, Python 3.9; scripts/debian-root.sh, cached), with python3, python3-venv and
# bullseye's own mpich installed and no compiler. As an unprivileged user there (tests/release/inside_bullseye.sh):
# the wheel installs into a venv with pip --no-index and gives the ezpz command, a render of a spec for
# every shipped system, the Python job API, `ezpz launch -n 2` of a Python program that asks ezpz for its
# rank, and `mpiexec -n 2 ezpz yeet` copying a tree byte for byte with the wheel's helper; the tarball,
# unpacked in the home directory, renders with its shipped files and yeets with its own helper.
#   bullseye_test.sh SOURCE_DIR DIST_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
source_dir=$1
dist=$2
shopt -s nullglob
artifacts=("$dist"/ezpz-*.whl "$dist"/ezpz-*-linux-*.tar.gz)
((${#artifacts[@]} == 2)) ||
  { echo "FAIL: expected a wheel and a tarball in $dist, found: ${artifacts[*]} (ctest release.artifacts makes them)" >&2; exit 1; }
((EUID == 0)) || cannot_run "a Debian root needs root (debootstrap, chroot, namespaces)"
command -v debootstrap >/dev/null || cannot_run "debootstrap not found (scripts/install-deps.sh test installs it)"

root=$workdir/bullseye
if ! "$source_dir/scripts/debian-root.sh" bullseye "$root" python3 python3-venv mpich 2>"$workdir/root.log"; then
  tail -n 20 "$workdir/root.log" >&2
  echo "FAIL: scripts/debian-root.sh could not make the bullseye root" >&2
  exit 1
fi
glibc=$("$source_dir/scripts/debian-root.sh" run "$root" -- ldd --version 2>&1 | head -n 1)
check "the root's glibc is 2.31 (got: $glibc)" grep -qE ' 2\.31$' <<<"$glibc"
for compiler in gcc cc g++ c++; do  # mpich brings the mpicc script, but no compiler for it to run
  check "the root has no compiler: $compiler" test ! -e "$root/usr/bin/$compiler"
done

# One script inside, as the user 'ezpz': every check there prints its own PASS/FAIL line.
"$source_dir/scripts/debian-root.sh" run "$root" --user ezpz --ro-bind "$dist:/dist" \
  --ro-bind "$here/inside_bullseye.sh:/inside.sh" -- bash /inside.sh /dist >"$workdir/inside.log" 2>&1
code=$?
sed 's/^/    bullseye: /' "$workdir/inside.log"
check "every check as an unprivileged user on bullseye passes (exit $code)" test "$code" -eq 0
passed=$(grep -c '^PASS' "$workdir/inside.log")
check "the checks inside ran ($passed passed)" test "$passed" -ge 20
finish
