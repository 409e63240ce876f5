#!/usr/bin/env bash
# Installs OpenPBS at /opt/pbs from the source tarball in shared/third_party/openpbs (a test tool, never
# part of ezpz), building it only once per tarball: the installed tree is kept in a cache outside the
# repository, keyed by the tarball's SHA-256, and copied back to /opt/pbs when /opt/pbs is missing or
# came from another tarball.
#
#   build.sh          verify the tarball, build into the cache if needed, install /opt/pbs from it,
#                     run pbs_postinstall; prints nothing on stdout
#
# Environment: EZPZ_OPENPBS_DIR (the tarball's directory, default <repo>/../shared/third_party/openpbs),
# EZPZ_CACHE_DIR (default /var/cache/ezpz; the cache is EZPZ_CACHE_DIR/openpbs-<sha256>),
# EZPZ_BUILD_JOBS (make -j, default the number of CPUs). Needs root and the Debian packages in
# scripts/install-deps.sh's pbs_packages. See tests/pbs/README.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
prefix=/opt/pbs
stamp_name=.ezpz-openpbs-sha256

log() { echo "build.sh: $*" >&2; }
die() {
  log "error: $*"
  exit 1
}

source_dir=${EZPZ_OPENPBS_DIR:-$here/../../../shared/third_party/openpbs}
[[ -f $source_dir/SHA256SUMS ]] || die "no $source_dir/SHA256SUMS (set EZPZ_OPENPBS_DIR)"
((EUID == 0)) || die "must run as root (installs $prefix, /etc/init.d/pbs and PBS_HOME)"

# The tarball is the one .tar.gz named in SHA256SUMS; its hash must match.
read -r want tarball_name < <(grep -E '^[0-9a-f]{64} +\*?openpbs-[^ ]*\.tar\.gz$' "$source_dir/SHA256SUMS" | head -n 1) ||
  die "no openpbs-*.tar.gz line in $source_dir/SHA256SUMS"
tarball_name=${tarball_name#\*}
tarball=$source_dir/$tarball_name
[[ -f $tarball ]] || die "the tarball $tarball is absent"
got=$(sha256sum "$tarball" | cut -d' ' -f1)
[[ $got == "$want" ]] || die "$tarball: SHA-256 $got, SHA256SUMS says $want"

cache_root=${EZPZ_CACHE_DIR:-/var/cache/ezpz}
cache=$cache_root/openpbs-$want
mkdir -p "$cache_root"
# One build or install at a time (two ctest runs, or two clones, on one machine).
exec 9>"$cache_root/openpbs.lock"
flock 9

build() {
  local tmp start=$SECONDS jobs=${EZPZ_BUILD_JOBS:-$(nproc)}
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/ezpz-openpbs-build.XXXXXX")
  # shellcheck disable=SC2064 # expand now: tmp is local
  trap "rm -rf '$tmp'" EXIT
  log "building OpenPBS from $tarball_name in $tmp (make -j$jobs; about 5 minutes on 2 cores)"
  tar -xzf "$tarball" -C "$tmp"
  local src
  src=$(find "$tmp" -mindepth 2 -maxdepth 2 -name configure.ac -printf '%h\n' | head -n 1)
  [[ -n $src ]] || die "no configure.ac in $tarball"
  (
    cd "$src"
    # Debian's python3 and tools first: a pyenv (or other) python3 earlier on PATH breaks the build.
    export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    unset PYTHONHOME PYTHONPATH
    ./autogen.sh >"$tmp/autogen.log" 2>&1 || { tail -n 30 "$tmp/autogen.log" >&2; exit 1; }
    ./configure --prefix="$prefix" --with-python=/usr >"$tmp/configure.log" 2>&1 ||
      { tail -n 30 "$tmp/configure.log" >&2; exit 1; }
    make -j"$jobs" >"$tmp/make.log" 2>&1 || { tail -n 40 "$tmp/make.log" >&2; exit 1; }
    make install DESTDIR="$tmp/stage" >"$tmp/install.log" 2>&1 || { tail -n 30 "$tmp/install.log" >&2; exit 1; }
  ) || die "the OpenPBS build failed (logs were in $tmp)"
  [[ -x $tmp/stage$prefix/sbin/pbs_server.bin ]] || die "make install left no $prefix/sbin/pbs_server.bin"
  # Only the prefix is kept: make install also writes /etc/profile.d and a systemd unit, not needed here.
  rm -rf "$cache.tmp"
  mkdir -p "$cache.tmp"
  cp -a "$tmp/stage$prefix" "$cache.tmp/pbs"
  echo "$want" >"$cache.tmp/pbs/$stamp_name"
  rm -rf "$cache"
  mv "$cache.tmp" "$cache"
  rm -rf "$tmp"
  trap - EXIT
  log "built in $((SECONDS - start))s; cached in $cache"
}

# True when a PBS daemon runs (a zombie does not: some containers' PID 1 reaps stopped daemons late).
server_running() {
  local comm stat
  for comm in /proc/[0-9]*/comm; do
    case $(cat "$comm" 2>/dev/null) in
      pbs_server.bin | pbs_mom | pbs_sched | pbs_comm | pbs_ds_monitor)
        stat=$(cat "${comm%/comm}/stat" 2>/dev/null) || continue
        stat=${stat##*) }
        [[ ${stat:0:1} == Z ]] || return 0
        ;;
    esac
  done
  return 1
}

install() {
  if [[ -e $prefix && ! -f $prefix/$stamp_name ]]; then
    die "$prefix exists and was not installed by this script (no $prefix/$stamp_name): remove it or move it away"
  fi
  server_running && die "a PBS daemon is running: stop it first (tests/pbs/server.sh stop DIR)"
  log "installing $prefix from $cache"
  rm -rf "$prefix.ezpz-new"
  cp -a "$cache/pbs" "$prefix.ezpz-new"
  rm -rf "$prefix"
  mv "$prefix.ezpz-new" "$prefix"
}

[[ -f $cache/pbs/$stamp_name ]] || build
if [[ $(cat "$prefix/$stamp_name" 2>/dev/null) != "$want" ]]; then install; fi
# pbs_postinstall writes /etc/pbs.conf (when missing), /etc/init.d/pbs and PBS_HOME (/var/spool/pbs);
# it keeps what is already there (a PBS_HOME of another version is updated by pbs_habitat at the next
# start). pbs_iff and pbs_rcp must be setuid root for non-root clients.
if [[ ! -d /var/spool/pbs/server_priv ]]; then
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$prefix/libexec/pbs_postinstall" server >&2 ||
    die "$prefix/libexec/pbs_postinstall failed"
fi
chmod 4755 "$prefix/sbin/pbs_iff" "$prefix/sbin/pbs_rcp"
