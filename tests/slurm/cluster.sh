#!/usr/bin/env bash
# A real Slurm cluster on localhost for tests and CI: munged, slurmctld and three slurmd virtual nodes
# (n1, n2, n3; 2 CPUs each; partition `debug`), everything under one directory, no systemd, no
# system-wide slurm.conf or munge socket used.
#
#   cluster.sh start DIR   create DIR's config, start the daemons, wait until the nodes are idle, print
#                          `export SLURM_CONF=...` for eval; stops what it started when anything fails
#   cluster.sh stop DIR    cancel the cluster's jobs, stop its daemons by the PIDs recorded in DIR
#                          (idempotent; nothing to do when nothing runs)
#   cluster.sh env DIR     print the export lines of the cluster in DIR again
#
# Needs root (slurmd starts jobs as their user) and the Debian packages slurm-wlm and munge
# (scripts/install-deps.sh test). Environment: EZPZ_SLURM_START_TIMEOUT (s, default 30),
# EZPZ_SLURM_MIN_JOB_AGE (s a finished job stays in slurmctld, default 300),
# EZPZ_SLURM_FIRST_PORT (default 16817), EZPZ_SLURM_FIRST_JOB_ID (default from the clock).
# See tests/slurm/README.md.
set -euo pipefail

nodes=(n1 n2 n3)
munge_dir=''
socket=
failed=0
cpus_per_node=2

log() { echo "cluster.sh: $*" >&2; }

usage() {
  echo "usage: $0 start|stop|env DIR" >&2
  exit 2
}

# Prints the last lines of every log of the cluster (on failure).
show_logs() {
  local file
  for file in "$dir"/log/*; do
    [[ -s $file ]] || continue
    # A daemon's stdout repeats its log file; it alone has what came before the log was opened.
    [[ $file == *.out && -s ${file%.out}.log ]] && continue
    echo "----- $file (last 25 lines) -----" >&2
    tail -n 25 "$file" >&2
  done
}

# Fails the start: the EXIT trap shows the logs and stops what was started.
die() {
  failed=1
  log "error: $*"
  exit 1
}

on_start_exit() {  # on_start_exit STATUS COMMAND
  trap - EXIT
  (($1 != 0)) || return 0
  ((failed)) || log "error: unexpected failure (exit $1) in: $2"
  show_logs
  stop_cluster
}

is_alive() {  # is_alive PID
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]]
}

# True when PID is alive (not a zombie) and its command line names this cluster's directory: a
# reused PID is never killed.
is_ours() {  # is_ours PID
  is_alive "$1" || return 1
  local cmdline
  cmdline=$(tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline") || return 1
  [[ $cmdline == *"$dir/"* || (-n $munge_dir && $cmdline == *"$munge_dir/"*) ]]
}

# Local TCP ports in use in any state (listening, connected, TIME_WAIT), one decimal number a line.
used_ports() {
  local file
  for file in /proc/net/tcp /proc/net/tcp6; do
    [[ -r $file ]] || continue
    awk 'NR > 1 { split($2, a, ":"); print a[2] }' "$file"
  done | while read -r hex; do echo $((16#$hex)); done | sort -un
}

# The first port P >= FIRST such that P .. P+COUNT-1 are all free.
free_port_block() {  # free_port_block FIRST COUNT
  local port=$1 count=$2 used i ok
  used=" $(used_ports | tr '\n' ' ') "
  while ((port + count < 65536)); do
    ok=1
    for ((i = 0; i < count; i++)); do
      if [[ $used == *" $((port + i)) "* ]]; then
        ok=0
        port=$((port + i + 1))
        break
      fi
    done
    if ((ok)); then
      echo "$port"
      return 0
    fi
  done
  return 1
}

check_prerequisites() {
  local missing=() program
  for program in munged mungekey munge unmunge slurmctld slurmd sinfo scontrol squeue scancel setpriv setsid; do
    command -v "$program" >/dev/null || missing+=("$program")
  done
  if ((${#missing[@]})); then
    log "error: missing programs: ${missing[*]} (install the Debian packages slurm-wlm and munge:" \
        "scripts/install-deps.sh test)"
    exit 1
  fi
  if ((EUID != 0)); then
    log "error: must run as root (slurmd starts jobs as their owner; SlurmUser=root)"
    exit 1
  fi
  if ! id munge >/dev/null 2>&1; then
    log "error: no user 'munge' (reinstall the Debian package munge)"
    exit 1
  fi
}

# Starts a daemon in its own session, stdio to DIR/log/NAME.out, and records "NAME PID" in DIR/pids.
spawn() {  # spawn LABEL PROGRAM-NAME COMMAND...
  local label=$1 comm=$2
  shift 2
  setsid "$@" </dev/null >"$dir/log/$label.out" 2>&1 &
  local pid=$!
  echo "$comm $pid $label" >>"$dir/pids"
  # Until the forked shell, setsid and setpriv have exec'd the daemon, the PID has their names.
  local deadline=$((SECONDS + 5)) now
  while now=$(cat "/proc/$pid/comm" 2>/dev/null) && [[ $now != "$comm" ]] && is_alive "$pid"; do
    ((SECONDS < deadline)) || die "$label (pid $pid) did not start: still '$now' after 5s"
    sleep 0.01
  done
  is_ours "$pid" || die "$label (pid $pid) exited at once"
}

# Waits up to SECONDS for COMMAND to succeed; fails early when a recorded daemon died.
wait_for() {  # wait_for SECONDS WHAT COMMAND...
  local seconds=$1 what=$2 deadline
  shift 2
  deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    local comm pid label
    while read -r comm pid label; do
      is_ours "$pid" || die "$label (pid $pid) exited while waiting for $what"
    done <"$dir/pids"
    ((SECONDS < deadline)) || die "timed out after ${seconds}s waiting for $what"
    sleep 0.2
  done
}

# True when munged accepts its socket and key under PATH: every directory from PATH up to / is
# searchable by everyone, owned by root or munge, and writable by others only with the sticky bit.
secure_for_munge() {  # secure_for_munge PATH
  local path=$1 mode owner munge_uid
  munge_uid=$(id -u munge)
  while :; do
    read -r mode owner < <(stat -c '%a %u' "$path") || return 1
    mode=$((8#$mode))
    ((mode & 8#001)) || return 1
    if ((mode & 8#022)) && ! ((mode & 8#1000)); then return 1; fi
    [[ $owner == 0 || $owner == "$munge_uid" ]] || return 1
    [[ $path != / ]] || return 0
    path=$(dirname "$path")
  done
}

munge_works() {
  munge --no-input --socket="$socket" | unmunge --socket="$socket"
}

all_nodes_idle() {
  local states
  states=$(sinfo --noheader --Node --format='%N %T' 2>/dev/null) || return 1
  [[ $(grep -c ' idle$' <<<"$states") -eq ${#nodes[@]} ]]
}

env_lines() {
  echo "export SLURM_CONF=$(printf %q "$dir/etc/slurm.conf")"
  # For the munge/unmunge command-line tools only (Slurm reads the socket from AuthInfo).
  echo "export EZPZ_MUNGE_SOCKET=$(printf %q "$socket")"
}

start_cluster() {
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd -P)
  if [[ -s $dir/pids ]]; then log "a cluster from an earlier start is recorded in $dir: stopping it first"; fi
  stop_cluster
  # Only what this script creates is removed: DIR may hold the caller's own files.
  rm -rf "${dir:?}"/{etc,munge,munge-dir,state,spool,log,run,pids,env,jobcomp.txt}
  mkdir -p "$dir"/{etc,state,spool,log,run} "${nodes[@]/#/$dir/spool/}"
  : >"$dir/pids"
  # munged's key, socket, PID and seed files: under DIR when munged accepts that place, else in a
  # directory of its own under /tmp (removed by stop). munged refuses a socket in a directory that not
  # everyone can search, and a key under a directory others can write to; a Unix socket's path has at
  # most 107 bytes.
  munge_dir=$dir/munge
  if ! secure_for_munge "$dir" || ((${#munge_dir} > 90)); then
    munge_dir=$(mktemp -d /tmp/ezpz-munge.XXXXXX)
    log "munged's files are in $munge_dir (munged would not accept $dir)"
  fi
  echo "$munge_dir" >"$dir/munge-dir"
  mkdir -p "$munge_dir"
  socket=$munge_dir/munge.socket

  local host start=$SECONDS
  host=$(hostname -s 2>/dev/null || uname -n)
  host=${host%%.*}
  local port_ctld
  port_ctld=$(free_port_block "${EZPZ_SLURM_FIRST_PORT:-16817}" $((1 + ${#nodes[@]}))) ||
    die "no ${#nodes[@]}+1 consecutive free TCP ports"
  local port_first=$((port_ctld + 1)) port_last=$((port_ctld + ${#nodes[@]}))
  # Memory: split what the machine has among the virtual nodes (slurmd -C reports the real total).
  local memory
  memory=$(slurmd -C 2>/dev/null | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' || true)
  memory=$(( ${memory:-3000} / ${#nodes[@]} ))
  local first_job_id=${EZPZ_SLURM_FIRST_JOB_ID:-$(( $(date +%s) % 50000000 + 1000 ))}

  mungekey --create --bits=1024 --keyfile="$munge_dir/munge.key" ||
    dd if=/dev/urandom of="$munge_dir/munge.key" bs=128 count=1 status=none
  chown -R munge:munge "$munge_dir"
  chmod 0755 "$munge_dir"
  chmod 0600 "$munge_dir/munge.key"

  local last_node=${nodes[${#nodes[@]} - 1]}
  cat >"$dir/etc/slurm.conf" <<EOF
# Written by tests/slurm/cluster.sh for a test cluster on localhost; removed by the next start.
ClusterName=ezpz
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port_ctld
SlurmdPort=$port_first
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# MPI programs under a plain srun need PMI (real sites set a default too: cray_shasta on Frontier and
# Perlmutter); pmi2 works with Debian's MPICH (ezpz yeet, ezpz-yeet-mpi).
MpiDefault=pmi2
ReturnToService=2
SlurmdParameters=config_overrides
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
# No slurmdbd: finished jobs are in slurmctld for MinJobAge seconds, then only in the jobcomp file.
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
MinJobAge=${EZPZ_SLURM_MIN_JOB_AGE:-300}
# Job ids differ from one cluster to the next (records keyed by job id do not collide across runs).
FirstJobId=$first_job_id
KillWait=5
# Refuse at submission what can never run (more nodes or CPUs than the partition has), as sites do.
EnforcePartLimits=ALL
InactiveLimit=0
Waittime=0
MailProg=/bin/true
# Each task on node N also gets the variables in etc/task-env/N, when a test writes that file: how a
# test makes one node differ from another (ezpz doctor --all-nodes). Slurm applies a TaskProlog's
# "export NAME=value" lines to the task (slurm.conf(5), TaskProlog).
TaskProlog=$dir/etc/task-prolog.sh
NodeName=${nodes[0]:0:1}[${nodes[0]:1}-${last_node:1}] NodeHostname=$host NodeAddr=127.0.0.1 Port=[$port_first-$port_last] CPUs=$cpus_per_node RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=${nodes[0]:0:1}[${nodes[0]:1}-${last_node:1}] Default=YES MaxTime=INFINITE State=UP
EOF
  cat >"$dir/etc/task-prolog.sh" <<PROLOG
#!/bin/sh
env_file=$dir/etc/task-env/\$SLURMD_NODENAME
if [ -r "\$env_file" ]; then cat "\$env_file"; fi
exit 0
PROLOG
  chmod 0755 "$dir/etc/task-prolog.sh"
  mkdir -p "$dir/etc/task-env"
  env_lines >"$dir/env"

  spawn munged munged setpriv --reuid=munge --regid=munge --init-groups \
    munged --foreground --socket="$socket" --key-file="$munge_dir/munge.key" \
    --pid-file="$munge_dir/munged.pid" --seed-file="$munge_dir/munged.seed" --log-file=/dev/null
  wait_for 10 "munged to answer on $socket" munge_works

  export SLURM_CONF=$dir/etc/slurm.conf
  spawn slurmctld slurmctld slurmctld -D -i -f "$SLURM_CONF"
  wait_for 15 "slurmctld to answer (port $port_ctld)" scontrol ping
  local node
  for node in "${nodes[@]}"; do
    spawn "slurmd-$node" slurmd slurmd -D -N "$node" -f "$SLURM_CONF"
  done
  wait_for "${EZPZ_SLURM_START_TIMEOUT:-30}" "nodes ${nodes[*]} to be idle (sinfo)" all_nodes_idle
  log "cluster up in $((SECONDS - start))s: slurmctld on $host:$port_ctld, nodes ${nodes[*]} on ports" \
      "$port_first-$port_last, directory $dir"
  env_lines
}

# PID and parent PID of every process, one pair a line (from /proc: procps may be missing).
process_table() {
  local stat
  for stat in /proc/[0-9]*/stat; do
    stat=$(cat "$stat" 2>/dev/null) || continue
    local pid=${stat%% *} rest=${stat##*) }
    rest=${rest#* }
    echo "$pid ${rest%% *}"
  done
}

# The PIDs of slurmstepd processes of this cluster: they log to its slurmd log files and outlive
# slurmd on purpose, so they are found by their open files.
stray_stepds() {
  local comm pid
  for comm in /proc/[0-9]*/comm; do
    [[ $(cat "$comm" 2>/dev/null) == slurmstepd ]] || continue
    pid=${comm#/proc/}
    pid=${pid%/comm}
    local fd
    for fd in "/proc/$pid"/fd/*; do
      if [[ $(readlink "$fd" 2>/dev/null) == "$dir/"* ]]; then
        echo "$pid"
        break
      fi
    done
  done
}

descendants() {  # descendants PID TABLE: children, grandchildren, ... from a process_table
  local child
  awk -v parent="$1" '$2 == parent { print $1 }' <<<"$2" | while read -r child; do
    echo "$child"
    descendants "$child" "$2"
  done
}

# Sends SIGTERM to the recorded daemons whose names match, waits up to 15 s, then SIGKILL.
terminate() {  # terminate NAME...
  local comm pid label pids=() name
  while read -r comm pid label; do
    for name in "$@"; do
      if [[ $comm == "$name" ]] && is_ours "$pid"; then
        kill -TERM "$pid" 2>/dev/null || true
        pids+=("$pid:$comm")
      fi
    done
  done <"$dir/pids"
  local deadline=$((SECONDS + 15)) entry alive
  while :; do
    alive=()
    for entry in "${pids[@]}"; do
      is_ours "${entry%%:*}" && alive+=("$entry")
    done
    ((${#alive[@]})) || return 0
    if ((SECONDS >= deadline)); then
      for entry in "${alive[@]}"; do
        log "${entry#*:} (pid ${entry%%:*}) ignored SIGTERM for 15s: SIGKILL"
        kill -KILL "${entry%%:*}" 2>/dev/null || true
      done
      sleep 0.2
      return 0
    fi
    sleep 0.1
  done
}

stop_cluster() {
  [[ -d $dir ]] || return 0
  dir=$(cd "$dir" && pwd -P)
  munge_dir=$(cat "$dir/munge-dir" 2>/dev/null || true)
  if [[ -s $dir/pids ]]; then stop_daemons; fi
  if [[ $munge_dir == /tmp/ezpz-munge.* ]]; then rm -rf "$munge_dir"; fi
  rm -f "$dir/pids" "$dir/munge-dir"
}

stop_daemons() {
  local comm pid label running=0
  while read -r comm pid label; do
    if [[ $comm == slurmctld ]] && is_ours "$pid"; then running=1; fi
  done <"$dir/pids"
  if ((running)) && [[ -f $dir/etc/slurm.conf ]]; then
    # Jobs first, so that no slurmstepd or job process is left behind.
    local jobs=()
    mapfile -t jobs < <(SLURM_CONF=$dir/etc/slurm.conf squeue --noheader --format=%i 2>/dev/null || true)
    if ((${#jobs[@]})); then
      SLURM_CONF=$dir/etc/slurm.conf scancel --full "${jobs[@]}" 2>/dev/null || true
      local deadline=$((SECONDS + 15))
      while [[ -n $(SLURM_CONF=$dir/etc/slurm.conf squeue --noheader --format=%i 2>/dev/null) ]] &&
            ((SECONDS < deadline)); do
        sleep 0.2
      done
    fi
  fi
  terminate slurmd
  terminate slurmctld
  terminate munged
  # What is left when slurmctld could not cancel the jobs: their slurmstepds and the jobs' processes.
  local stray=() pid table
  table=$(process_table)
  for pid in $(stray_stepds); do
    # shellcheck disable=SC2207 # one PID a word
    stray+=("$pid" $(descendants "$pid" "$table"))
  done
  if ((${#stray[@]})); then
    log "killing slurmstepd and job processes left by the cluster: ${stray[*]}"
    kill -KILL "${stray[@]}" 2>/dev/null || true
  fi
}

(($# == 2)) || usage
command=$1
dir=$2
case $command in
  start)
    check_prerequisites
    trap 'on_start_exit $? "$BASH_COMMAND"' EXIT
    start_cluster
    ;;
  stop) stop_cluster ;;
  env)
    [[ -f $dir/env ]] || { log "error: no cluster started in $dir"; exit 1; }
    cat "$dir/env"
    ;;
  *) usage ;;
esac
