#!/usr/bin/env bash
# Proves the dependency audit can fail: it runs audit.py against copies of scripts/install-deps.sh with one
# package taken out and expects exit 1 with a message naming the package and a file from it.
#   audit_selftest.sh BUILD_DIR SOURCE_DIR [NINJA [CTEST]]   (the same arguments as audit.py's --ninja, --ctest)
#   1. without libboost-filesystem-dev (the package a fresh Debian 12 build once missed): the static
#      library ezpz links, from libboost-filesystem1.74-dev, in the build scope
#   2. without python3-torch, plus a program list naming an executable no package has: /usr/bin/torchrun
#      and the torch module in the test scope, and the stray program
# Skipped (77) when the audit itself is skipped (no dpkg, not a Ninja build).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
build=$1
source_dir=$2
ninja=${3:-ninja}
ctest_args=()
[[ -n ${4:-} ]] && ctest_args=(--ctest "$4")
install_deps=$source_dir/scripts/install-deps.sh

# without PACKAGE: a copy of install-deps.sh with PACKAGE taken out of its lists, at $workdir/PACKAGE.sh.
without() {
  local copy=$workdir/install-deps-without-$1.sh
  sed -E "s/(^|[ (])$1([ )]|$)/\1\2/" "$install_deps" >"$copy"
  if cmp -s "$install_deps" "$copy"; then
    echo "FAIL: $1 is not listed in $install_deps: the self-test needs it there" >&2
    exit 1
  fi
  echo "$copy"
}

audit() {  # audit NAME ARGS...: runs the audit, its output in $workdir/NAME.out, its status in $status
  local name=$1
  shift
  "$here/audit.py" "$build" "$source_dir" --ninja "$ninja" "${ctest_args[@]}" "$@" >"$workdir/$name.out" 2>&1
  status=$?
  echo "--- audit ($name): exit $status"
  sed 's/^/    /' "$workdir/$name.out"
  if ((status == 77)); then
    echo "SKIP: the audit is skipped here"
    exit 77
  fi
}

# 1. A build dependency removed.
audit no-boost-filesystem --install-deps "$(without libboost-filesystem-dev)"
check "without libboost-filesystem-dev: exit 1" test "$status" -eq 1
check "names the package that has the library" grep -q 'missing package libboost-filesystem[0-9.]*-dev (build)' "$workdir/no-boost-filesystem.out"
check "names a file from it" grep -q 'libboost-filesystem[0-9.]*-dev (build): /usr/[^ ]*boost[_/]filesystem' "$workdir/no-boost-filesystem.out"
check "suggests the listed name" grep -q 'fix: make .install-deps.sh build. install libboost-filesystem-dev' "$workdir/no-boost-filesystem.out"

# 2. A test dependency removed, and a program that no package has.
printf '#!/bin/sh\nexit 0\n' >"$workdir/stray-tool"
chmod +x "$workdir/stray-tool"
cp "$here/programs.txt" "$workdir/programs.txt"
echo "$workdir/stray-tool  self-test" >>"$workdir/programs.txt"
audit no-python3-torch --install-deps "$(without python3-torch)" --programs "$workdir/programs.txt"
check "without python3-torch: exit 1" test "$status" -eq 1
check "names python3-torch and torchrun" grep -q 'missing package python3-torch (test): /usr/bin/torchrun' "$workdir/no-python3-torch.out"
check "names the stray program" grep -q "not from a package: $workdir/stray-tool (test)" "$workdir/no-python3-torch.out"
check "boost is fine here" bash -c "! grep -q 'missing package libboost' '$workdir/no-python3-torch.out'"
finish
