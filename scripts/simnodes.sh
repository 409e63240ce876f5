#!/usr/bin/env bash
# Simulated nodes on one machine, for the tests and benchmarks of what crosses a network (bench/scale,
# tests/scale). Needs root and iproute2 (ip, tc).
#
# Each node is a network namespace NAME-HOST whose eth0 is one end of a veth pair; the other end is in
# the bridge NAMEbr. Hosts n0 … n<N-1> get 10.213.0.1 … (with --storage, a host "store" gets the next
# address). Every link is limited to RATE in each direction by a tbf qdisc on both ends of its veth
# pair. /etc/netns/NAME-HOST/hosts names all hosts; `ip netns exec` puts it over /etc/hosts. Commands
# run with the node's own host name (a UTS namespace) and boot id (a file bound over
# /proc/sys/kernel/random/boot_id in the mount namespace `ip netns exec` makes), so MPI treats the
# nodes as separate machines: UCX takes two processes for one machine, and then talks through shared
# memory instead of the network, when their boot ids match.
# No address lives outside the namespaces: nothing reaches or leaves the machine's own network.
#
#   simnodes.sh up NAME NODES RATE [--storage]  create them (removes a leftover NAME first). RATE is
#                                               tc's (100mbit, 1gbit) or "none" for no limit
#   simnodes.sh down NAME                       stop every process in them and remove all NAME made
#   simnodes.sh run NAME HOST CMD...            run CMD on HOST
#   simnodes.sh head NAME CMD...                run CMD on n0 with the environment through which an
#                                               mpiexec.mpich it starts (itself or through ezpz launch)
#                                               reaches the other hosts
#   simnodes.sh mpiexec NAME NODES CMD...       MPICH's mpiexec on n0, one rank on each of the first
#                                               NODES hosts
#   simnodes.sh hostfile NAME NODES             the first NODES hosts, one per line
#   simnodes.sh bytes NAME HOST                 "RX TX": the bytes HOST's eth0 received and sent
#   simnodes.sh -x HOST CMDLINE...              what MPICH's Hydra calls instead of ssh (its
#                                               HYDRA_LAUNCHER_EXEC): CMDLINE run by sh on HOST of
#                                               the simulated nodes $EZPZ_SIMNODES
#
# NAME: at most 8 letters and digits (Linux interface names have 15 characters).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self=$here/$(basename "${BASH_SOURCE[0]}")
subnet=10.213.0  # a private range, used only inside the namespaces
state=/run/ezpz-simnodes  # NAME/HOST.boot_id

die() { echo "simnodes: $*" >&2; exit 2; }

check_name() {
  [[ $1 =~ ^[A-Za-z0-9]{1,8}$ ]] || die "NAME must be 1-8 letters and digits, not '$1'"
}

# The hosts of NAME, in address order, from its hosts file (written by `up`).
hosts_of() {
  local file=/etc/netns/$1-n0/hosts
  [[ -f $file ]] || die "no simulated nodes named '$1' (simnodes.sh up)"
  awk 'NR > 1 {print $2}' "$file"
}

limit() {  # limit RATE DEV [NETNS]: tbf on DEV's egress
  local rate=$1 dev=$2
  [[ $rate == none ]] && return 0
  # burst: a few full-size segments (veth sends GSO segments up to 64 KiB; tbf splits larger ones);
  # latency bounds the queue, as a switch port's buffer would.
  tc ${3:+-n "$3"} qdisc add dev "$dev" root tbf rate "$rate" burst 256kb latency 200ms
}

up() {
  local name=$1 nodes=$2 rate=$3 storage=${4:-}
  check_name "$name"
  if ! [[ $nodes =~ ^[0-9]+$ ]] || ((nodes < 1 || nodes > 250)); then die "NODES must be 1-250, not '$nodes'"; fi
  [[ -z $storage || $storage == --storage ]] || die "unknown option '$storage'"
  down "$name"
  local hosts=() i
  for ((i = 0; i < nodes; i++)); do hosts+=("n$i"); done
  [[ -n $storage ]] && hosts+=(store)
  mkdir -p "$state/$name"
  ip link add "${name}br" type bridge
  ip link set "${name}br" up
  local hosts_file
  hosts_file=$(mktemp)
  printf '127.0.0.1 localhost\n' >"$hosts_file"
  for i in "${!hosts[@]}"; do printf '%s.%d %s\n' "$subnet" $((i + 1)) "${hosts[$i]}" >>"$hosts_file"; done
  for i in "${!hosts[@]}"; do
    local host=${hosts[$i]} ns="$name-${hosts[$i]}" veth="${name}v$i"
    ip netns add "$ns"
    cat /proc/sys/kernel/random/uuid >"$state/$name/$host.boot_id"
    mkdir -p "/etc/netns/$ns"
    cp "$hosts_file" "/etc/netns/$ns/hosts"  # every host finds every other, and itself, by name
    ip link add "$veth" type veth peer name eth0 netns "$ns"
    ip link set "$veth" master "${name}br" up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$subnet.$((i + 1))/24" dev eth0
    ip -n "$ns" link set eth0 up
    limit "$rate" "$veth"
    limit "$rate" eth0 "$ns"
    echo "simnodes: $host = $subnet.$((i + 1)) in namespace $ns, link $rate" >&2
  done
  rm -f "$hosts_file"
}

down() {
  local name=$1 ns
  check_name "$name"
  for ns in $(ip netns list | awk -v p="$name-" 'index($1, p) == 1 {print $1}'); do
    ip netns pids "$ns" | xargs -r kill -KILL 2>/dev/null || true
    ip netns del "$ns"
    rm -rf "/etc/netns/$ns"
  done
  ip link del "${name}br" 2>/dev/null || true
  rm -rf "${state:?}/$name"
}

run() {
  local name=$1 host=$2
  shift 2
  check_name "$name"
  ip netns list | awk '{print $1}' | grep -qx "$name-$host" || die "no host '$host' in simulated nodes '$name'"
  # shellcheck disable=SC2016 # $0, $1 and $@ are the inner shell's
  exec ip netns exec "$name-$host" unshare --uts sh -c \
    'hostname "$0" && mount --bind "$1" /proc/sys/kernel/random/boot_id && shift && exec "$@"' \
    "$host" "$state/$name/$host.boot_id" "$@"
}

hostfile() {
  hosts_of "$1" | grep -E '^n[0-9]+$' | head -n "$2"
}

head_node() {
  local name=$1
  shift
  # Hydra starts its proxies on the other hosts through $self -x HOST (as it would with ssh); they
  # connect back to n0 by name. UCX (MPICH's ch4 device) sends between nodes over TCP on eth0, across
  # the limited links (shared memory only within a node). UCX_RNDV_THRESH=inf: UCX's rendezvous over
  # TCP holds each message until the receiver's reply, which in yeet's chain cost a whole pipeline
  # window per hop (8.5 s instead of 3.5 s on 8 nodes at 100 Mbit/s; bench/README.md, "scale").
  # EZPZ_YEET_SHARED_CORES=1: all nodes share this machine's cores, so yeet's ranks nap when idle.
  EZPZ_SIMNODES=$name HYDRA_LAUNCHER=ssh HYDRA_LAUNCHER_EXEC=$self UCX_TLS=tcp,self,sm UCX_NET_DEVICES=eth0 \
    UCX_RNDV_THRESH=inf EZPZ_YEET_SHARED_CORES=1 run "$name" n0 "$@"
}

mpiexec() {
  local name=$1 nodes=$2
  shift 2
  head_node "$name" mpiexec.mpich -hosts "$(hostfile "$name" "$nodes" | paste -sd,)" -n "$nodes" -ppn 1 "$@"
}

bytes() {
  local name=$1 host=$2
  check_name "$name"
  ip netns exec "$name-$host" cat /sys/class/net/eth0/statistics/{rx,tx}_bytes | paste -sd' '
}

ssh_stand_in() {
  local host=$1
  shift
  [[ -n ${EZPZ_SIMNODES:-} ]] || die "-x HOST: EZPZ_SIMNODES (the simulated nodes' NAME) is not set"
  # Like ssh, the words after the host are one command line for the remote shell.
  run "$EZPZ_SIMNODES" "$host" sh -c "$*"
}

((EUID == 0)) || die "needs root (network namespaces)"
[[ $# -ge 1 ]] || die "usage: simnodes.sh up|down|run|head|mpiexec|hostfile|bytes NAME … (see the script's head)"
command=$1
shift
case $command in
  up) [[ $# -ge 3 ]] || die "usage: simnodes.sh up NAME NODES RATE [--storage]"; up "$@" ;;
  down) [[ $# -eq 1 ]] || die "usage: simnodes.sh down NAME"; down "$1" ;;
  run) [[ $# -ge 3 ]] || die "usage: simnodes.sh run NAME HOST CMD..."; run "$@" ;;
  head) [[ $# -ge 2 ]] || die "usage: simnodes.sh head NAME CMD..."; head_node "$@" ;;
  hostfile) [[ $# -eq 2 ]] || die "usage: simnodes.sh hostfile NAME NODES"; hostfile "$@" ;;
  mpiexec) [[ $# -ge 3 ]] || die "usage: simnodes.sh mpiexec NAME NODES CMD..."; mpiexec "$@" ;;
  bytes) [[ $# -eq 2 ]] || die "usage: simnodes.sh bytes NAME HOST"; bytes "$@" ;;
  -x) [[ $# -ge 2 ]] || die "usage: simnodes.sh -x HOST CMDLINE..."; ssh_stand_in "$@" ;;
  *) die "unknown command '$command' (up, down, run, head, mpiexec, hostfile, bytes)" ;;
esac
