#!/usr/bin/env bash
# Makes a fresh Debian root (debootstrap minbase of a suite plus packages, cached as a tarball) and runs
# commands inside one, as root or as an unprivileged user, in private mount and PID namespaces.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: scripts/debian-root.sh SUITE DIR [PACKAGE ...]
       scripts/debian-root.sh run DIR [--user NAME] [--bind SRC:DEST]... [--ro-bind SRC:DEST]...
                                  [--env NAME=VALUE]... [--cwd PATH] -- COMMAND [ARG ...]

SUITE DIR [PACKAGE ...]
  DIR becomes a fresh root of the Debian SUITE (bookworm, bullseye, ...): `debootstrap --variant=minbase`
  (Priority required + apt, as in the debian images) with PACKAGE ... and their dependencies installed
  by apt-get (--no-install-recommends). DIR must be missing or an empty directory. Nothing is printed
  on stdout; progress and errors go to stderr.
  The root has apt sources for SUITE (plus SUITE-updates and SUITE-security where the host's apt
  sources list those: the host's own suite; another suite is its last point release), a policy-rc.d that keeps
  package installs from starting services (as in a container), and the host's /etc/hosts and
  /etc/resolv.conf (copied at unpack time, not cached).

  Both steps are cached as tarballs in ${EZPZ_CACHE_DIR:-/var/cache/ezpz}, one lock (flock) at a time:
    debian-SUITE-minbase-KEY.tar.gz       the debootstrap result (KEY: the mirror), the base of every root
    debian-root-SUITE-KEY.tar.gz          with the packages (KEY: suite, sorted packages, mirrors, recipe)
  A cached run only unpacks (seconds) and needs no network. EZPZ_DEBIAN_ROOT_REFRESH=1 rebuilds both.

run DIR [options] -- COMMAND [ARG ...]
  Runs COMMAND inside the root DIR (made by the form above) and exits with its status. It runs in its
  own mount namespace (every mount below is gone when it ends, also on failure or a signal) and PID
  namespace (whatever it leaves running ends with it), with /proc, /sys (read-only), the host's /dev
  and /dev/pts, a fresh /dev/shm (MPI's shared memory) and a fresh /run mounted. The environment is
  clean: HOME, USER, LOGNAME, SHELL=/bin/bash, TERM=dumb, LANG=C.UTF-8, Debian's PATH, and --env's.
    --user NAME         run as NAME (`chroot --userspec`); added to the root's /etc/passwd by useradd
                        (home /home/NAME, shell bash) when it is not there yet. Default: root.
    --bind SRC:DEST     bind-mount the host's SRC at DEST inside the root (created if missing)
    --ro-bind SRC:DEST  the same, read-only
    --env NAME=VALUE    add to the environment (repeatable)
    --cwd PATH          working directory inside the root (default: the user's HOME)

Needs root, debootstrap (scripts/install-deps.sh test installs it), unshare and chroot (util-linux,
coreutils). The mirror is EZPZ_DEBIAN_MIRROR, else the host's apt entry for SUITE (main), else the host's
entry for its own Debian suite (the same archive serves every supported suite); the security archive is
EZPZ_DEBIAN_SECURITY_MIRROR, else the host's SUITE-security entry. Exit status: 0, 1 on failure, 2 usage; run
exits with COMMAND's status.

Examples:
  scripts/debian-root.sh bullseye /var/tmp/r python3 python3-venv mpich
  scripts/debian-root.sh run /var/tmp/r --user ezpz --ro-bind "$PWD/dist:/dist" -- python3 -m venv v
USAGE
}

log() { echo "debian-root.sh: $*" >&2; }
die() {
  log "error: $*"
  exit 1
}
usage_error() {
  log "$*"
  usage >&2
  exit 2
}

# Raised whenever the way a root with packages is made changes, so older cached tarballs are not used.
readonly recipe=1
readonly root_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
readonly user_path=/usr/local/bin:/usr/bin:/bin

# --- the host's Debian mirror (also in scripts/fresh-machine-check.sh) --------------------------------

# Prints "URI SUITE COMPONENT..." for each enabled `deb` entry of the host's apt sources (one-line
# .list files and deb822 .sources files).
host_sources() {
  local file
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -r $file ]] || continue
    sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$file" | awk '$1 == "deb" && NF >= 4 { $1 = ""; print substr($0, 2) }'
  done
  for file in /etc/apt/sources.list.d/*.sources; do
    [[ -r $file ]] || continue
    awk '
      function flush(   i, j) {
        if (types ~ /(^| )deb( |$)/ && enabled != "no")
          for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++) print uris[i], suites[j], comps
        types = ""; enabled = ""; comps = ""; nu = 0; ns = 0
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      {
        key = tolower($1); sub(/:$/, "", key); $1 = ""; value = substr($0, 2)
        if (key == "types") types = value
        else if (key == "enabled") enabled = tolower(value)
        else if (key == "components") comps = value
        else if (key == "uris") nu = split(value, uris, " ")
        else if (key == "suites") ns = split(value, suites, " ")
      }
      END { flush() }' "$file"
  done
}

# The URI of the host's entry for SUITE with the main component (empty if none).
uri_for() {  # uri_for SUITE
  host_sources | awk -v suite="$1" '$2 == suite { for (i = 3; i <= NF; i++) if ($i == "main") { print $1; exit } }'
}

host_codename() {
  # shellcheck disable=SC1091
  (. /etc/os-release && echo "${VERSION_CODENAME:-}")
}

# Sets mirror and security for SUITE.
pick_mirrors() {  # pick_mirrors SUITE
  local suite=$1 codename
  codename=$(host_codename)
  mirror=${EZPZ_DEBIAN_MIRROR:-$(uri_for "$suite")}
  [[ -n $mirror || -z $codename ]] || mirror=$(uri_for "$codename")
  [[ -n $mirror ]] ||
    die "no Debian mirror: no '$suite main' or '${codename:-<host suite>} main' entry in the host's apt sources (set EZPZ_DEBIAN_MIRROR)"
  mirror=${mirror%/}
  # Updates and security only where the host itself lists them for SUITE (its own suite): another
  # suite's root is its point release, which no longer changes (and a mirror may not carry the rest).
  updates=$(uri_for "$suite-updates")
  updates=${updates%/}
  security=${EZPZ_DEBIAN_SECURITY_MIRROR:-$(uri_for "$suite-security")}
  security=${security%/}
}

# --- running inside a root ----------------------------------------------------------------------------

# The second half of `run`, already in the new mount and PID namespaces (PID 1 there): mounts, then the
# command as a child (PID 1 reaps orphans; when it exits, the kernel ends everything else in the namespace).
inside() {  # inside DIR SPEC-FILE
  local dir=$1 spec=$2 user='' cwd='' home status
  local -a binds=() env=() command=()
  # The spec file: NUL-separated "KEY=VALUE" records (user, cwd, bind, robind, env, arg).
  local record
  while IFS= read -r -d '' record; do
    case $record in
      user=*) user=${record#user=} ;;
      cwd=*) cwd=${record#cwd=} ;;
      bind=* | robind=*) binds+=("$record") ;;
      env=*) env+=("${record#env=}") ;;
      arg=*) command+=("${record#arg=}") ;;
    esac
  done <"$spec"

  mount --make-rprivate /
  mount -t proc -o nosuid,nodev,noexec proc "$dir/proc"
  mount --rbind /sys "$dir/sys"
  mount -o remount,bind,ro "$dir/sys" 2>/dev/null || true
  mount --bind /dev "$dir/dev"
  mount --bind /dev/pts "$dir/dev/pts"
  mkdir -p "$dir/dev/shm"
  mount -t tmpfs -o mode=1777,nosuid,nodev shm "$dir/dev/shm"
  mkdir -p "$dir/run"
  mount -t tmpfs -o mode=755,nosuid,nodev run "$dir/run"
  mkdir -p "$dir/run/lock"
  chmod 1777 "$dir/run/lock"
  local bind src dest
  for bind in "${binds[@]}"; do
    src=${bind#*=}
    dest=${src#*:}
    src=${src%%:*}
    if [[ -d $src ]]; then mkdir -p "$dir/$dest"; else mkdir -p "$(dirname "$dir/$dest")"; touch "$dir/$dest"; fi
    mount --bind "$src" "$dir/$dest"
    [[ $bind == robind=* ]] && mount -o remount,bind,ro "$dir/$dest"
  done

  local -a userspec=() environment
  if [[ -n $user && $user != root ]]; then
    local uid gid
    IFS=: read -r uid gid home < <(awk -F: -v u="$user" '$1 == u { print $3 ":" $4 ":" $6 }' "$dir/etc/passwd")
    # Numeric ids: chroot then looks nothing up in the host's user database.
    userspec=(--userspec="$uid:$gid" --groups="$gid")
    environment=(HOME="$home" USER="$user" LOGNAME="$user" PATH="$user_path")
  else
    home=/root
    environment=(HOME=/root USER=root LOGNAME=root PATH="$root_path")
  fi
  environment+=(SHELL=/bin/bash TERM=dumb LANG=C.UTF-8 "${env[@]}")
  [[ -n $cwd ]] || cwd=$home
  set +e
  # shellcheck disable=SC2016  # the inner shell expands them
  chroot "${userspec[@]}" "$dir" /usr/bin/env -i "${environment[@]}" /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$cwd" "${command[@]}"
  status=$?
  set -e
  exit "$status"
}

run() {  # run DIR [options] -- COMMAND...
  (($# >= 1)) || usage_error "run: no DIR"
  local dir=$1 user='' cwd='' spec
  shift
  ((EUID == 0)) || die "run must be started as root (chroot, mount); --user NAME runs the command as NAME"
  [[ -d $dir && -x $dir/bin/sh && -f $dir/etc/passwd ]] || die "'$dir' is not a root made by this script"
  dir=$(cd "$dir" && pwd -P)
  spec=$(mktemp "${TMPDIR:-/tmp}/debian-root-run.XXXXXX")
  # shellcheck disable=SC2064  # expand now: spec is local
  trap "rm -f '$spec'" EXIT
  while (($#)); do
    case $1 in
      --user) [[ -n ${2:-} ]] || usage_error "run: --user needs a NAME"; user=$2; printf 'user=%s\0' "$2" >>"$spec"; shift 2 ;;
      --bind | --ro-bind)
        [[ ${2:-} == /*:/* ]] || usage_error "run: $1 needs SRC:DEST, both absolute"
        [[ -e ${2%%:*} ]] || die "run: $1: no '${2%%:*}'"
        local kind=bind
        [[ $1 == --ro-bind ]] && kind=robind
        printf '%s=%s\0' "$kind" "$2" >>"$spec"
        shift 2
        ;;
      --env) [[ ${2:-} == [A-Za-z_]*=* ]] || usage_error "run: --env needs NAME=VALUE"; printf 'env=%s\0' "$2" >>"$spec"; shift 2 ;;
      --cwd) [[ ${2:-} == /* ]] || usage_error "run: --cwd needs an absolute PATH"; cwd=$2; printf 'cwd=%s\0' "$2" >>"$spec"; shift 2 ;;
      --) shift; break ;;
      *) usage_error "run: unknown option '$1'" ;;
    esac
  done
  (($# >= 1)) || usage_error "run: no COMMAND after --"
  local arg
  for arg in "$@"; do printf 'arg=%s\0' "$arg" >>"$spec"; done
  if [[ -n $user && $user != root ]] && ! awk -F: -v u="$user" '$1 == u { found = 1 } END { exit !found }' "$dir/etc/passwd"; then
    chroot "$dir" /usr/sbin/useradd --create-home --shell /bin/bash "$user" >&2 || die "useradd $user in $dir failed"
  fi
  set +e
  unshare --mount --pid --fork "$0" __inside "$dir" "$spec"
  local status=$?
  set -e
  rm -f "$spec"
  trap - EXIT
  return "$status"
}

# --- making a root ------------------------------------------------------------------------------------

# Writes the root's apt sources, policy-rc.d and name resolution.
configure_root() {  # configure_root DIR SUITE
  local dir=$1 suite=$2
  {
    echo "deb $mirror $suite main"
    [[ -z $updates ]] || echo "deb $updates $suite-updates main"
    [[ -z $security ]] || echo "deb $security $suite-security main"
  } >"$dir/etc/apt/sources.list"
  printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
  chmod 755 "$dir/usr/sbin/policy-rc.d"
}

make_base() {  # make_base SUITE TARBALL TMP
  local suite=$1 tarball=$2 tmp=$3/base include=()
  log "debootstrap --variant=minbase $suite from $mirror (cached afterwards in $tarball)"
  # A minbase apt has no CA certificates; an https mirror needs them (a plain http mirror does not).
  [[ $mirror == https:* ]] && include=(--include=ca-certificates)
  debootstrap --variant=minbase "${include[@]}" "$suite" "$tmp" "$mirror" >"$3/debootstrap.log" 2>&1 ||
    { tail -n 20 "$3/debootstrap.log" >&2; die "debootstrap failed"; }
  rm -f "$tmp"/var/cache/apt/archives/*.deb
  tar -C "$tmp" --numeric-owner -cf - . | gzip -1 >"$tarball.tmp"
  mv "$tarball.tmp" "$tarball"
  rm -rf --one-file-system "$tmp"
}

make_with_packages() {  # make_with_packages SUITE BASE-TARBALL TARBALL TMP PACKAGE...
  local suite=$1 base=$2 tarball=$3 work=$4 tmp=$4/root
  shift 4
  log "installing $* into a $suite root (cached afterwards in $tarball)"
  mkdir -p "$tmp"
  tar -C "$tmp" --numeric-owner -xpzf "$base"
  configure_root "$tmp" "$suite"
  cp /etc/resolv.conf "$tmp/etc/resolv.conf"
  # shellcheck disable=SC2016  # the inner shell expands them
  "$0" run "$tmp" --env DEBIAN_FRONTEND=noninteractive -- /bin/sh -c \
    'apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@" && apt-get clean' sh "$@" \
    >"$work/apt.log" 2>&1 || { tail -n 30 "$work/apt.log" >&2; die "installing $* failed"; }
  rm -rf "$tmp"/var/lib/apt/lists/* "$tmp/etc/resolv.conf"
  : >"$tmp/etc/resolv.conf"
  tar -C "$tmp" --numeric-owner -cf - . | gzip -1 >"$tarball.tmp"
  mv "$tarball.tmp" "$tarball"
  rm -rf --one-file-system "$tmp"
}

make_root() {  # make_root SUITE DIR PACKAGE...
  local suite=$1 dir=$2
  shift 2
  [[ $suite =~ ^[a-z][a-z0-9-]*$ ]] || usage_error "'$suite' is not a Debian suite name"
  ((EUID == 0)) || die "must run as root (debootstrap, chroot, mount)"
  if [[ -e $dir || -L $dir ]]; then
    [[ -d $dir && ! -L $dir ]] || die "'$dir' exists and is not a directory"
    [[ -z $(ls -A "$dir") ]] || die "'$dir' is not empty: give a new or empty directory"
  fi
  pick_mirrors "$suite"
  local -a packages=()
  (($#)) && mapfile -t packages < <(printf '%s\n' "$@" | sort -u)
  local package
  for package in "${packages[@]}"; do
    [[ $package =~ ^[a-z0-9][a-z0-9+.:=~-]*$ ]] || usage_error "'$package' is not a Debian package name"
  done

  local cache=${EZPZ_CACHE_DIR:-/var/cache/ezpz} mirror_key key base tarball
  mkdir -p "$cache"
  # The same name and content as scripts/fresh-machine-check.sh's base system.
  mirror_key=$(printf '%s' "$mirror" | sha256sum | cut -c1-12)
  base=$cache/debian-$suite-minbase-$mirror_key.tar.gz
  key=$(printf '%s\n' "recipe $recipe" "$suite" "$mirror" "$updates" "$security" "${packages[@]}" | sha256sum | cut -c1-16)
  tarball=$cache/debian-root-$suite-$key.tar.gz
  ((${#packages[@]})) || tarball=$base

  exec 9>"$cache/debian-root.lock"
  flock 9
  local tmp
  tmp=$(mktemp -d "$cache/debian-root-build.XXXXXX")
  # shellcheck disable=SC2064  # expand now: tmp is local
  trap "rm -rf --one-file-system '$tmp'" EXIT
  if [[ ${EZPZ_DEBIAN_ROOT_REFRESH:-0} == 1 ]]; then rm -f "$base" "$tarball"; fi
  if [[ ! -s $base ]]; then
    command -v debootstrap >/dev/null || die "debootstrap is not installed (scripts/install-deps.sh test)"
    make_base "$suite" "$base" "$tmp"
  fi
  [[ -s $tarball ]] || make_with_packages "$suite" "$base" "$tarball" "$tmp" "${packages[@]}"

  mkdir -p "$dir"
  tar -C "$dir" --numeric-owner -xpzf "$tarball"
  flock -u 9
  rm -rf --one-file-system "$tmp"
  trap - EXIT
  configure_root "$dir" "$suite"
  cp /etc/resolv.conf "$dir/etc/resolv.conf"
  cp /etc/hosts "$dir/etc/hosts"
}

case ${1:-} in
  -h | --help) usage ;;
  '') usage_error "no SUITE" ;;
  run) shift; run "$@" ;;
  __inside) shift; inside "$@" ;;
  -*) usage_error "unknown option '$1'" ;;
  *)
    (($# >= 2)) || usage_error "no DIR"
    make_root "$@"
    ;;
esac
