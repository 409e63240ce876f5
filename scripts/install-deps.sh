#!/usr/bin/env bash
# Installs the Debian 12 packages ezpz needs that are missing: `build` (default) or `test` (build + test tools).
# Uses apt-get as root, or through sudo when not root. Installs nothing that is already there.
set -euo pipefail

# `build` is what the ezpz command and its libraries need (scripts/quickstart.sh: the first render);
# libmpich-dev (ezpz-yeet-mpi; it pulls in gfortran, hwloc and UCX) and libgtest-dev come with `test`.
build_packages=(cmake ninja-build g++ pkg-config libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libboost-dev libboost-filesystem-dev
                libxxhash-dev libarchive-dev libre2-dev)
# Tests also run real launchers (MPICH, Open MPI), the LibTorch smoke test (libtorch-dev, libgloo-dev), a
# real Slurm cluster on localhost (slurm-wlm, munge; tests/slurm) and the users' side: Python DDP programs
# and torchrun (python3-torch), and the Python module's tests (python3-pytest; python3-matplotlib for
# History.finalize's PNG and SVG plots, tests/python/test_history.py). zstd, bzip2, xz-utils and
# python3-venv make yeet fixtures. The sanitizer stage and the fuzz targets (scripts/test-sanitized.sh)
# build with clang and its runtimes; llvm has llvm-symbolizer, which puts file and line into sanitizer
# reports. clang-format checks the C++ files' formatting (tests/format). iproute2 (ip, tc) makes the
# simulated nodes of tests/scale (scripts/simnodes.sh).
# zsh and fish run the generated completion scripts, man-db and groff-base render the generated man pages
# (tests/completion). debootstrap makes the Debian 11 roots (scripts/debian-root.sh) that build the release
# yeet helper (scripts/build-yeet-helper.sh) and run the release tests (tests/release).
test_packages=(iproute2 libgtest-dev libgmock-dev shellcheck python3 hyperfine mpich libmpich-dev openmpi-bin libopenmpi-dev
               libtorch-dev libgloo-dev slurm-wlm munge zstd bzip2 xz-utils python3-venv python3-torch python3-pytest
               python3-matplotlib jq clang libclang-rt-14-dev llvm clang-format zsh fish man-db groff-base debootstrap)
# Debian has no PBS: tests/pbs builds OpenPBS from shared/third_party/openpbs with these (its README's list).
pbs_packages=(autoconf automake libtool gcc g++ make libhwloc-dev libx11-dev libxt-dev libedit-dev libical-dev
              libncurses-dev perl postgresql postgresql-contrib postgresql-server-dev-all python3-dev tcl-dev tk-dev
              swig libexpat1-dev libssl-dev libxext-dev libxft-dev expat libcjson-dev pkg-config iproute2)

case "${1:-build}" in
  build) wanted=("${build_packages[@]}") ;;
  test) wanted=("${build_packages[@]}" "${test_packages[@]}" "${pbs_packages[@]}") ;;
  *) echo "usage: $0 [build|test]" >&2; exit 2 ;;
esac

missing=()
for package in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "ezpz: all ${#wanted[@]} required packages are installed"
  exit 0
fi

sudo=()
if ((EUID != 0)); then
  command -v sudo >/dev/null || { echo "ezpz: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
echo "ezpz: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
