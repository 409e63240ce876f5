#!/usr/bin/env bash
# Runs the README's two commands on a fresh Debian 12 (a minbase chroot): ./scripts/quickstart.sh and
# ./scripts/test.sh, in the README's order in one fresh chroot, as root; reports each one's exit status and
# duration.
set -euo pipefail
{ # Read whole before it runs: editing the file during a run (which takes an hour) cannot change the run.

usage() {
  cat <<'USAGE'
usage: scripts/fresh-machine-check.sh [--only quickstart|test] [--commit REV] [--keep] [--refresh]
                                      [--no-ci] [--workdir DIR]

Proves the README's Quickstart works on a fresh Debian 12 machine: it unpacks one fresh
`debootstrap --variant=minbase bookworm` chroot (what the debian:12 image has: Priority required + apt),
copies this checkout as the working tree has it (tracked and untracked files, not the ignored ones such
as build dirs; --commit REV: that commit instead) to /root/<checkout name> and ../shared beside it
(tests use ../shared/third_party), bind-mounts the chroot on itself (so / is a mount point), mounts /sys
(with the host's cgroups), /dev, /dev/pts, a fresh /dev/shm and /run, and runs the command exactly as
the README writes them, in its order on the same checkout (so the second command finds the first one's
build/, as a user's would), as root, with a clean login environment (HOME=/root, Debian's root PATH, no
LANG):
  1. ./scripts/quickstart.sh
  2. ./scripts/test.sh        with CI=true as CI services set it (.ci/run runs this command), so tests
                              that would skip for a missing program fail instead; --no-ci leaves it out
The command runs in its own PID namespace with its own /proc (it sees no host processes; what it leaves
running ends with it). Everything is unmounted on exit, also on failure or ^C.

  --only NAME    run only `quickstart` or `test`
  --commit REV   copy the files of commit REV (git archive, e.g. HEAD) instead of the working tree
  --keep         keep the chroot (default: deleted at the end)
  --refresh      rebuild the cached base system (/var/cache/ezpz) instead of reusing it
  --no-ci        run ./scripts/test.sh without CI=true
  --workdir DIR  chroots and logs go to DIR/<UTC time>/ (default /var/tmp/ezpz-fresh-machine-check)

Needs root, about 8 GB of disk, network access to the Debian archive, and 30-60 minutes (the test suite
builds LibTorch parts and OpenPBS). The base system is made by scripts/debian-root.sh: the mirror is the
host's own `bookworm` entry in /etc/apt/sources.list or sources.list.d (plus its bookworm-updates and
bookworm-security entries); package installs do not start services in the chroot (policy-rc.d), as in a
container; it is cached as a tarball in /var/cache/ezpz and reused (--refresh to rebuild). debootstrap is
installed with apt-get when missing.

Do not run it while another test run is active on this machine: the chroot shares the host's network,
and the test suite starts a Slurm cluster (ports from 16817) and an OpenPBS server on fixed ports. The
test command is refused (exit 3) while slurmctld, slurmd, pbs_server, pbs_mom or pbs_comm runs on the
host (checked before it starts; a run started on the host later still collides on the ports).

Full logs: <workdir>/<UTC time>/<command>.log; one line per command in summary.txt there. Exit status: 0
when every command exited 0, 1 when one failed, 2 usage, 3 refused (another test run is active).
USAGE
}

root=$(cd "$(dirname "$0")/.." && pwd)
only=
commit=
keep=0
refresh=0
ci=1
workdir=/var/tmp/ezpz-fresh-machine-check
cache_dir=/var/cache/ezpz
suite=bookworm

while (($#)); do
  case $1 in
    --only) [[ ${2:-} == quickstart || ${2:-} == test ]] || { usage >&2; exit 2; }; only=$2; shift 2 ;;
    --commit) [[ -n ${2:-} ]] || { usage >&2; exit 2; }; commit=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --refresh) refresh=1; shift ;;
    --no-ci) ci=0; shift ;;
    --workdir) [[ -n ${2:-} ]] || { usage >&2; exit 2; }; workdir=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
commands=(quickstart test)
[[ -n $only ]] && commands=("$only")
if [[ -n $commit ]]; then
  git -C "$root" rev-parse --verify -q "$commit^{commit}" >/dev/null || { echo "no commit '$commit'" >&2; exit 2; }
fi

log() { echo "fresh-machine-check: $*" >&2; }
die() { log "error: $*"; exit 1; }

((EUID == 0)) || die "must run as root (debootstrap, chroot, mount)"
[[ -f /etc/debian_version ]] || die "needs a Debian host (debootstrap and the host's apt sources)"

# Refuses (exit 3) while a Slurm or PBS test run is active on the host: same ports, same host name.
check_idle() {
  local pids='' name
  for name in slurmctld slurmd pbs_server.bin pbs_server pbs_mom pbs_comm; do
    pids+=$(pgrep -x "$name" | tr '\n' ' ') || true
  done
  if [[ -n ${pids// /} ]]; then
    log "refused: a test run seems active on this machine (slurmctld/slurmd/pbs_* PIDs: ${pids% }); the test"
    log "suite's Slurm cluster and PBS server use fixed ports. Run this again when it has finished."
    exit 3
  fi
}
for name in "${commands[@]}"; do
  [[ $name == test ]] && check_idle
done

# --- the cached base system ----------------------------------------------------------------------------

if ! command -v debootstrap >/dev/null; then
  log "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

run_dir=$workdir/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$run_dir" "$cache_dir"
summary=$run_dir/summary.txt

chroot_dir=
mounts=()

# Stops what still runs inside the chroot (only processes whose root is the chroot: started by the
# command), unmounts what this script mounted, and deletes the chroot unless --keep.
cleanup_chroot() {
  local dir=$chroot_dir pid signal i
  [[ -n $dir ]] || return 0
  chroot_dir=
  for signal in TERM KILL; do
    local found=0
    for pid in /proc/[0-9]*; do
      pid=${pid#/proc/}
      [[ $(readlink "/proc/$pid/root" 2>/dev/null) == "$dir" ]] || continue
      kill "-$signal" "$pid" 2>/dev/null && found=1
    done
    ((found)) || break
    [[ $signal == TERM ]] && sleep 3
  done
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount -R "${mounts[i]}" 2>/dev/null || umount -R -l "${mounts[i]}" || log "warning: could not unmount ${mounts[i]}"
  done
  mounts=()
  if awk -v d="$dir/" 'index($2 "/", d) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
    log "warning: something is still mounted under $dir: not deleting it"
    return 0
  fi
  if ((keep)); then
    log "kept the chroot: $dir"
  else
    rm -rf --one-file-system "$dir"
  fi
}
# shellcheck disable=SC2317  # run by the EXIT trap
on_exit() {
  local status=$?
  trap - EXIT INT TERM
  cleanup_chroot
  exit "$status"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- one command in its own fresh chroot -----------------------------------------------------------------

mount_in() {  # mount_in TARGET MOUNT-ARGS...
  local target=$1
  shift
  mkdir -p "$target"
  mount "$@" "$target"
  mounts+=("$target")
}

prepare_chroot() {  # prepare_chroot DIR
  local dir=$1 checkout
  # The base system with the host's mirror, apt sources, policy-rc.d, hosts and resolv.conf; --refresh
  # rebuilds its cached tarball once.
  EZPZ_CACHE_DIR=$cache_dir EZPZ_DEBIAN_ROOT_REFRESH=$refresh "$root/scripts/debian-root.sh" "$suite" "$dir" ||
    die "scripts/debian-root.sh $suite could not make the base system"
  refresh=0
  chroot_dir=$(cd "$dir" && pwd -P)
  if [[ -z ${mirror:-} ]]; then
    mirror=$(awk '$1 == "deb" { print $2; exit }' "$chroot_dir/etc/apt/sources.list")
    echo "mirror: $mirror" >>"$summary"
  fi

  checkout=$chroot_dir/root/$(basename "$root")
  mkdir -p "$checkout"
  if [[ -n $commit ]]; then
    git -C "$root" archive "$commit" | tar -C "$checkout" -xf -
  else
    # The working tree's files, tracked and untracked, without ignored ones (build dirs); a deleted
    # tracked file is skipped.
    (cd "$root" && git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
       [[ -e $file || -L $file ]] && printf '%s\0' "$file"
     done | sort -zu | tar --null --no-recursion -T - -cf -) | tar -C "$checkout" -xf -
  fi
  if [[ -d $root/../shared ]]; then
    tar -C "$root/.." -cf - shared | tar -C "$chroot_dir/root" -xf -
  else
    log "warning: no ../shared beside the checkout: tests that use it will fail"
  fi

  # The root a mount point of its own, as / is on a machine (tests that make a mount namespace remount /
  # private, which fails on a plain directory).
  mount_in "$chroot_dir" --bind "$chroot_dir"
  # With the host's cgroup mounts below it, as on a booted machine (slurmd needs /sys/fs/cgroup); rslave,
  # so unmounting the chroot's copy never unmounts the host's.
  mount_in "$chroot_dir/sys" --rbind /sys
  mount --make-rslave "$chroot_dir/sys"
  mount_in "$chroot_dir/dev" --bind /dev
  mount_in "$chroot_dir/dev/pts" --bind /dev/pts
  mount_in "$chroot_dir/dev/shm" -t tmpfs -o mode=1777,nosuid,nodev shm
  mount_in "$chroot_dir/run" -t tmpfs -o mode=755,nosuid,nodev run
  mkdir -p "$chroot_dir/run/lock"
}

format_duration() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

if [[ -n $commit ]]; then
  source_description="commit $(git -C "$root" rev-parse --short "$commit")"
else
  source_description="working tree at $(git -C "$root" rev-parse --short HEAD) with its uncommitted changes"
fi
echo "source: $source_description" >>"$summary"
log "source: $source_description"

overall=0
prepare_chroot "$run_dir/root"
for name in "${commands[@]}"; do
  environment=(HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb
               PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
  [[ $name == test ]] && ((ci)) && environment+=(CI=true)
  command=./scripts/$name.sh
  logfile=$run_dir/$name.log
  log "$name: running $command in the chroot (env: ${environment[*]}); log: $logfile"
  start=$(date +%s)
  set +e
  # Its own PID namespace and /proc: the tests see only their own processes (a fresh machine has no other
  # engineer's daemons), and whatever they leave running ends with the command. In the background and
  # waited for, so a TERM to this script is handled at once (the EXIT trap stops the chroot's processes).
  unshare --pid --fork --mount-proc="$chroot_dir/proc" \
    chroot "$chroot_dir" /usr/bin/env -i "${environment[@]}" \
    /bin/bash -c "cd /root/$(basename "$root") && exec $command" >"$logfile" 2>&1 </dev/null &
  wait "$!"
  status=$?
  set -e
  duration=$(($(date +%s) - start))
  line="$name: $command exit $status after $(format_duration "$duration") (log: $logfile)"
  if [[ $name == test ]]; then
    ctest_line=$(grep -E '^[0-9]+% tests passed' "$logfile" | tail -n 1 || true)
    skipped=$(grep -c '\*\*\*Skipped' "$logfile" || true)
    line+="; ${ctest_line:-no ctest summary}; $skipped skipped"
  fi
  echo "$line" | tee -a "$summary"
  ((status == 0)) || { overall=1; tail -n 30 "$logfile" | sed "s/^/    $name: /" >&2; }
done
cleanup_chroot
log "summary: $summary"
exit "$overall"
}
