#!/usr/bin/env bash
# scripts/release.sh into DIST_DIR (the fixture the other release tests use), then what it made: the
# checksums, the wheel (its files, RECORD hashes, modes, and a tag no newer than manylinux_2_31), the
# tarball (the tree, a static stripped ezpz, the licence), the portable ezpz-yeet-mpi (nothing newer
# than GLIBC_2.31, no libstdc++, no library but libc's and libmpi.so.12), and the same bytes again from a
# second run.
#   artifacts_test.sh SOURCE_DIR BUILD_DIR DIST_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
source_dir=$1
build=$2
dist=$3
rm -rf "$dist"
"$source_dir/scripts/release.sh" --build-dir "$build" --out "$dist" >"$workdir/release.log" 2>&1
code=$?
check "scripts/release.sh exits 0 ($(tail -n 15 "$workdir/release.log"))" test "$code" -eq 0
((code == 0)) || finish
check "SHA256SUMS holds what was made" bash -c "cd '$dist' && sha256sum --quiet -c SHA256SUMS"

# The wheel: what pip needs, and every file's hash as RECORD says.
verdict=$(python3 - "$dist" "$source_dir/tools" <<'PY'
import base64, hashlib, pathlib, sys, zipfile
sys.path.insert(0, sys.argv[2])
import ezpz_wheel
version = ezpz_wheel.version()
wheels = list(pathlib.Path(sys.argv[1]).glob("ezpz-*.whl"))
assert len(wheels) == 1, wheels
name = wheels[0].name
tag = name[:-len(".whl")].split("-", 2)[2]
python, abi, platform = tag.split("-")
assert (python, abi) == ("py3", "none"), tag
glibc = int(platform.split("_")[2])
assert platform.startswith("manylinux_2_") and glibc <= 31, f"{platform}: not installable on glibc 2.31"
with zipfile.ZipFile(wheels[0]) as wheel:
    names = set(wheel.namelist())
    data, info = f"ezpz-{version}.data", f"ezpz-{version}.dist-info"
    wanted = {"ezpz/__init__.py", "ezpz/_api.py", "ezpz/distributed.py", "ezpz/run.py",
              "ezpz/examples/__init__.py", "ezpz/examples/minimal.py", "ezpz/models/minimal.py", f"{data}/scripts/ezpz",
              f"{data}/scripts/ezpz-yeet-mpi", f"{data}/data/share/man/man1/ezpz.1",
              f"{data}/data/share/bash-completion/completions/ezpz", f"{data}/data/share/ezpz/systems/aurora.yaml",
              f"{info}/METADATA", f"{info}/WHEEL", f"{info}/RECORD", f"{info}/LICENSE"}
    assert wanted <= names, f"missing: {sorted(wanted - names)}"
    assert not any(n.endswith(".so") for n in names), "a compiled extension in the wheel"
    for line in wheel.read(f"{info}/RECORD").decode().splitlines():
        path, digest, size = line.rsplit(",", 2)
        if path.endswith("/RECORD"):
            continue
        content = wheel.read(path)
        expected = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
        assert (digest, int(size)) == (expected, len(content)), f"RECORD is wrong for {path}"
    for script in (f"{data}/scripts/ezpz", f"{data}/scripts/ezpz-yeet-mpi"):
        assert (wheel.getinfo(script).external_attr >> 16) & 0o111, f"{script} is not executable"
    assert f"Tag: {tag}" in wheel.read(f"{info}/WHEEL").decode()
    assert "Requires-Python: >=3.9" in wheel.read(f"{info}/METADATA").decode()
print("ok", name)
PY
)
check "the wheel is complete, its RECORD right, its tag for glibc <= 2.31 and any CPython 3 (got: $verdict)" \
  grep -q '^ok ' <<<"$verdict"

# The tarball: one directory, runnable where it is unpacked.
tarballs=("$dist"/ezpz-*-linux-*.tar.gz)
mkdir -p "$workdir/unpacked"
tar -C "$workdir/unpacked" -xzf "${tarballs[0]}"
top=$(find "$workdir/unpacked" -mindepth 1 -maxdepth 1)
for file in bin/ezpz bin/ezpz-yeet-mpi LICENSE README.md share/ezpz/systems/polaris.yaml share/ezpz/systems/schedulers/pbs.yaml \
  share/ezpz/templates/batch.sh.mustache share/man/man1/ezpz.1 lib/python3/site-packages/ezpz/__init__.py; do
  check "the tarball has $file" test -s "$top/$file"
done
headers=$(readelf -lS "$top/bin/ezpz" 2>&1)
check "bin/ezpz is static (no program interpreter)" bash -c "! grep -q INTERP <<<\"\$1\"" _ "$headers"
check "bin/ezpz is stripped (no .symtab)" bash -c "! grep -q '\\.symtab' <<<\"\$1\"" _ "$headers"
size=$(stat -c %s "$top/bin/ezpz")
check "bin/ezpz is small ($size bytes, at most 16 MiB)" test "$size" -le $((16 << 20))

# The portable helper: glibc 2.31 and the machine's MPICH-ABI libmpi.so.12, nothing else.
helper=$top/bin/ezpz-yeet-mpi
needs=$(objdump -p "$helper" 2>&1)
newest=$(grep -oE 'GLIBC_2\.[0-9]+' <<<"$needs" | sort -t. -k2 -n | tail -n 1)
check "ezpz-yeet-mpi needs no glibc newer than 2.31 (newest: $newest)" test "${newest#GLIBC_2.}" -le 31
check "ezpz-yeet-mpi needs no libstdc++ symbols" bash -c "! grep -qE 'GLIBCXX|CXXABI' <<<\"\$1\"" _ "$needs"
libraries=$(awk '$1 == "NEEDED" { print $2 }' <<<"$needs" | sort | tr '\n' ' ')
others=$(tr ' ' '\n' <<<"$libraries" | grep -vE '^(libc|libm|libpthread|libdl|librt)\.so\.[0-9]+$|^ld-linux-x86-64\.so\.2$|^libmpi\.so\.12$|^$')
check "ezpz-yeet-mpi needs libmpi.so.12 and libc's libraries only (needs: $libraries)" \
  bash -c "[[ -z \$1 && \$2 == *libmpi.so.12* ]]" _ "$others" "$libraries"

# The same checkout gives the same bytes.
"$source_dir/scripts/release.sh" --build-dir "$build" --out "$workdir/again" >"$workdir/again.log" 2>&1
check "a second release makes the same bytes ($(diff "$dist/SHA256SUMS" "$workdir/again/SHA256SUMS" 2>&1 | head -c 400))" \
  cmp -s "$dist/SHA256SUMS" "$workdir/again/SHA256SUMS"
finish
