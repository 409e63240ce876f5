#!/usr/bin/env bash
# A real OpenPBS 23.06 server on this machine for tests and CI: pbs_comm, pbs_server (with the
# PostgreSQL datastore it starts), pbs_sched and one pbs_mom, node `ezpz-pbs`, the site resources and
# queues of the shipped PBS profiles. OpenPBS is built from the tarball in shared/third_party/openpbs
# by build.sh (once; cached outside the repository) and installed at /opt/pbs, PBS_HOME /var/spool/pbs.
#
#   server.sh build DIR   verify the tarball, build (or take from the cache) and install /opt/pbs
#   server.sh start DIR   build, configure, start the daemons, wait until the node is free, set up
#                         resources, queues and the node; print the export lines for eval; stops what it
#                         started when anything fails
#   server.sh stop DIR    delete every job, stop the daemons by the PIDs recorded in DIR (idempotent)
#   server.sh env DIR     print the export lines again: PATH, PBS_SERVER, EZPZ_PBS_USER, EZPZ_PBS_HOST
#
# Needs root (the daemons run as root, /etc/hosts, /etc/pbs.conf, a test user). Jobs must be submitted
# by the non-root user EZPZ_PBS_USER (default ezpzpbs, created with a home directory when missing).
# Environment: EZPZ_PBS_HOST (default ezpz-pbs: the name added to /etc/hosts for the first
# non-loopback IPv4 address), EZPZ_PBS_USER, EZPZ_PBS_START_TIMEOUT (s, default 120), and build.sh's
# EZPZ_OPENPBS_DIR, EZPZ_CACHE_DIR. See tests/pbs/README.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
systems_dir=$here/../../systems
pbs_exec=/opt/pbs
pbs_home=/var/spool/pbs
host=${EZPZ_PBS_HOST:-ezpz-pbs}
user=${EZPZ_PBS_USER:-ezpzpbs}
# The PBS profiles whose queues the server gets.
profiles=(aurora sunspot polaris sophia crux pbs)
# The order stop ends them in: jobs' MoM first, the server (which stops using the database) before
# PostgreSQL.
daemons=(pbs_mom pbs_sched pbs_server.bin pbs_comm pbs_ds_monitor postgres)
failed=0

log() { echo "server.sh: $*" >&2; }

usage() {
  echo "usage: $0 build|start|stop|env DIR" >&2
  exit 2
}

# Prints the last lines of the daemons' logs of today and of what the init script printed (on failure).
show_logs() {
  local file day
  day=$(date +%Y%m%d)
  for file in "$dir/log/"* "$pbs_home"/{server_logs,sched_logs,mom_logs,comm_logs}/"$day" \
    "$pbs_home/datastore/log/"*; do
    [[ -s $file ]] || continue
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

on_start_exit() { # on_start_exit STATUS COMMAND
  trap - EXIT
  (($1 != 0)) || return 0
  ((failed)) || log "error: unexpected failure (exit $1) in: $2"
  show_logs
  record_pids
  stop_server
}

# The start time of PID in clock ticks since boot (field 22 of /proc/PID/stat); '' when gone.
start_time() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  stat=${stat##*) }
  # shellcheck disable=SC2086 # split the fields
  set -- $stat
  [[ $1 != Z ]] && echo "${20}"
}

# True when PID is still the process recorded: alive, same name, same start time (a reused PID is
# never killed).
is_ours() { # is_ours PID COMM START_TIME
  [[ $(cat "/proc/$1/comm" 2>/dev/null) == "$2" && $(start_time "$1") == "$3" ]]
}

# The PID in a lock or PID file (first word of the first line), '' when there is none.
pid_in() {
  local pid=
  if [[ -r $1 ]]; then read -r pid _ <"$1" || true; fi
  [[ $pid =~ ^[0-9]+$ ]] && echo "$pid"
  return 0
}

# Appends the running PBS daemons to DIR/pids as "COMM PID START_TIME" (each once): the daemons fork
# themselves away, so they are found by their lock files, the datastore's postmaster.pid and
# pbs_dblock (HOST:PID of pbs_ds_monitor, which pbs_server starts to watch PostgreSQL).
record_pids() {
  [[ -d $dir ]] || return 0
  touch "$dir/pids"
  local file pid comm started
  for file in server_priv/server.lock sched_priv/sched.lock mom_priv/mom.lock server_priv/comm.lock \
    datastore/postmaster.pid datastore/pbs_dblock; do
    if [[ $file == */pbs_dblock ]]; then
      pid=$(cat "$pbs_home/$file" 2>/dev/null || true)
      pid=${pid##*:}
      [[ $pid =~ ^[0-9]+$ ]] || pid=''
    else
      pid=$(pid_in "$pbs_home/$file")
    fi
    [[ -n $pid ]] || continue
    comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
    started=$(start_time "$pid")
    [[ -n $started ]] || continue
    case $comm in pbs_server.bin | pbs_sched | pbs_mom | pbs_comm | pbs_ds_monitor | postgres) ;; *) continue ;; esac
    grep -qx "$comm $pid $started" "$dir/pids" || echo "$comm $pid $started" >>"$dir/pids"
  done
}

# PIDs of running PBS daemons, whoever started them (zombies are not running: PID 1 reaps stopped
# daemons late in some containers).
running_daemons() {
  local comm pid
  for comm in /proc/[0-9]*/comm; do
    case $(cat "$comm" 2>/dev/null) in
      pbs_server.bin | pbs_sched | pbs_mom | pbs_comm | pbs_ds_monitor)
        pid=${comm#/proc/}
        pid=${pid%/comm}
        [[ -z $(start_time "$pid") ]] || echo "$pid"
        ;;
    esac
  done
}

# Waits up to SECONDS for COMMAND to succeed; fails early when a recorded daemon died.
wait_for() { # wait_for SECONDS WHAT COMMAND...
  local seconds=$1 what=$2 deadline
  shift 2
  deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    local comm pid started
    while read -r comm pid started; do
      is_ours "$pid" "$comm" "$started" || die "$comm (pid $pid) exited while waiting for $what"
    done <"$dir/pids"
    ((SECONDS < deadline)) || die "timed out after ${seconds}s waiting for $what"
    sleep 0.5
  done
}

pbs() { # pbs COMMAND ARGS...: a PBS client command of /opt/pbs as root, stdin from /dev/null
  local command=$1
  shift
  PBS_SERVER=$host "$pbs_exec/bin/$command" "$@" </dev/null
}

qmgr_c() { # qmgr_c COMMAND: one qmgr command; a failure fails the start with qmgr's message
  local out
  out=$(pbs qmgr -c "$1" 2>&1) || die "qmgr -c '$1' failed: $out"
}

# The first non-loopback IPv4 address of this machine.
first_address() {
  local address
  # ip (iproute2) is not on a minimal Debian; hostname -I is (the hostname package is essential).
  address=$(ip -4 -o addr show scope global 2>/dev/null | awk '{ sub(/\/.*/, "", $4); print $4; exit }' || true)
  [[ -n $address ]] || address=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9.]+$' | grep -v '^127\.' | head -n 1)
  [[ -n $address ]] && echo "$address"
}

# pbs_server refuses a host name that resolves to loopback (the machine's own name maps to 127.0.0.1
# in many containers' /etc/hosts): give the non-loopback address a name of its own. /etc/hosts is
# rewritten in place (it may be a bind mount that cannot be renamed over).
ensure_host_name() {
  local address=$1 current
  current=$(getent ahostsv4 "$host" 2>/dev/null | awk '{ print $1; exit }' || true)
  [[ $current == "$address" ]] && return 0
  local kept
  kept=$(grep -v "[[:space:]]${host}[[:space:]]*# ezpz tests/pbs\$" /etc/hosts || true)
  printf '%s\n%s\t%s\t# ezpz tests/pbs\n' "$kept" "$address" "$host" >/etc/hosts
  current=$(getent ahostsv4 "$host" 2>/dev/null | awk '{ print $1; exit }' || true)
  [[ $current == "$address" ]] || die "$host resolves to '$current', not $address, after adding it to /etc/hosts"
  log "added '$address $host' to /etc/hosts"
}

ensure_user() {
  if ! id "$user" >/dev/null 2>&1; then
    useradd --create-home --shell /bin/bash "$user" || die "could not create the user $user"
    log "created the user $user"
  fi
  local home
  home=$(getent passwd "$user" | cut -d: -f6)
  [[ -d $home ]] || { mkdir -p "$home" && chown "$user:" "$home"; } || die "no home directory $home for $user"
}

# "NAME MAX_NODES MAX_WALLTIME" for every queue of a profile ('-' where the profile records no limit).
# A queue whose directives replace the select line (Sophia's by-gpu: select counts GPUs) gets no node
# limit: its chunk count is not the job's node count.
profile_queues() { # profile_queues FILE
  awk '
    function flush(  nodes, walltime, s) {
      if (name == "") return
      nodes = "-"; walltime = "-"
      if (match(text, /max_nodes: *[0-9]+/)) { s = substr(text, RSTART, RLENGTH); sub(/.*: */, "", s); nodes = s }
      if (text ~ /directives:.*[{ ]nodes: *"/) nodes = "-"
      if (match(text, /max_walltime: *"?[0-9:]+/)) { s = substr(text, RSTART, RLENGTH); sub(/^max_walltime: *"?/, "", s); walltime = s }
      print name, nodes, walltime
      name = ""
    }
    /^queues:/ { inside = ($0 !~ /\{\}/); next }
    inside && /^[^ #]/ { flush(); inside = 0 }
    inside && /^  [A-Za-z0-9_.-]+:/ { flush(); name = $1; sub(/:$/, "", name); text = $0; next }
    inside && /^    / { text = text " " $0 }
    END { flush() }' "$1"
}

seconds_of() { # seconds_of HH:MM:SS
  local h m s
  IFS=: read -r h m s <<<"$1"
  echo $((10#$h * 3600 + 10#$m * 60 + 10#$s))
}

# One line per queue name of all PBS profiles: the largest limits any profile records, so that every
# job a profile accepts fits and a job over every profile's limit is refused by the server.
server_queues() {
  local profile file
  for profile in "${profiles[@]}"; do
    file=$systems_dir/$profile.yaml
    [[ -f $file ]] || die "no profile $file"
    profile_queues "$file"
  done | sort -k1,1 | {
    local name nodes walltime last='' best_nodes=- best_walltime=-
    emit() { [[ -z $last ]] || echo "$last $best_nodes $best_walltime"; }
    while read -r name nodes walltime; do
      if [[ $name != "$last" ]]; then
        emit
        last=$name
        best_nodes=-
        best_walltime=-
      fi
      if [[ $nodes != - ]] && { [[ $best_nodes == - ]] || ((nodes > best_nodes)); }; then best_nodes=$nodes; fi
      if [[ $walltime != - ]] &&
        { [[ $best_walltime == - ]] || (($(seconds_of "$walltime") > $(seconds_of "$best_walltime"))); }; then
        best_walltime=$walltime
      fi
    done
    emit
  }
}

write_config() {
  # Written by this script on every start (pbs_postinstall's own file names no server).
  cat >/etc/pbs.conf <<EOF
PBS_EXEC=$pbs_exec
PBS_HOME=$pbs_home
PBS_SERVER=$host
PBS_SERVER_HOST_NAME=$host
PBS_MOM_NODE_NAME=$host
PBS_LEAF_NAME=$host
PBS_START_SERVER=1
PBS_START_SCHED=1
PBS_START_COMM=1
PBS_START_MOM=1
PBS_CORE_LIMIT=unlimited
PBS_SCP=/usr/bin/scp
EOF
  mkdir -p "$pbs_home/mom_priv"
  # $usecp: output files are copied locally, not over scp; the poll times make MoM check walltime
  # every few seconds instead of up to every 120 s (the walltime test).
  cat >"$pbs_home/mom_priv/config" <<EOF
\$clienthost $host
\$usecp *:/ /
\$logevent 0x1ff
\$min_check_poll 2
\$max_check_poll 5
EOF
}

node_free() {
  pbs pbsnodes "$host" 2>/dev/null | grep -qE '^ *state = free$'
}

configure_server() {
  qmgr_c "set server job_history_enable = True"
  # Forget the finished jobs of earlier runs: after a restart the server's next job id was seen to lag
  # behind the ids in its history (0, then the id of the last job), and qsub then fails with "Job with
  # requested ID already exists" (exit 161) until the counter has passed them.
  local finished=()
  mapfile -t finished < <(pbs qselect -x -s F 2>/dev/null)
  if ((${#finished[@]})); then pbs qdel -x "${finished[@]}" >/dev/null 2>&1 || true; fi
  qmgr_c "set server scheduler_iteration = 5"
  # Site resources of the ALCF systems: -l filesystems=…, select=…:system=polaris, ngpus per node,
  # place=…:group=tier0.
  local spec name
  for spec in "filesystems type=string" "system type=string, flag=h" "ngpus type=long, flag=nh" \
    "tier0 type=string, flag=h"; do
    name=${spec%% *}
    pbs qmgr -c "list resource $name" >/dev/null 2>&1 || qmgr_c "create resource $spec"
  done
  if ! pbs pbsnodes "$host" >/dev/null 2>&1; then qmgr_c "create node $host"; fi
  # The node: enough CPUs for every profile's ranks per node and several jobs at once; Polaris's
  # system=polaris in select; GPUs; a tier0 group for place=scatter:group=tier0.
  qmgr_c "set node $host resources_available.ncpus = 256"
  qmgr_c "set node $host resources_available.ngpus = 8"
  qmgr_c "set node $host resources_available.system = polaris"
  qmgr_c "set node $host resources_available.tier0 = tier0-a"
  local queue nodes walltime queues=()
  while read -r queue nodes walltime; do
    queues+=("$queue")
    pbs qstat -Q "$queue" >/dev/null 2>&1 || qmgr_c "create queue $queue queue_type = execution"
    qmgr_c "set queue $queue enabled = True"
    qmgr_c "set queue $queue started = True"
    if [[ $nodes != - ]]; then
      qmgr_c "set queue $queue resources_max.nodect = $nodes"
    else
      pbs qmgr -c "unset queue $queue resources_max.nodect" >/dev/null 2>&1 || true
    fi
    if [[ $walltime != - ]]; then
      qmgr_c "set queue $queue resources_max.walltime = $walltime"
    else
      pbs qmgr -c "unset queue $queue resources_max.walltime" >/dev/null 2>&1 || true
    fi
  done < <(server_queues)
  ((${#queues[@]})) || die "no queues found in the profiles ${profiles[*]}"
  printf '%s\n' "${queues[@]}" >"$dir/queues"
  # The scheduler matches only the resources on its sched_config line: add system (and ngpus).
  local config=$pbs_home/sched_priv/sched_config
  [[ -f $config ]] || die "no $config"
  if ! grep -qE '^resources:.*[ ,"]system[,"]' "$config"; then
    sed -i -E '/^resources:/ s/"$/, system"/' "$config"
  fi
  if ! grep -qE '^resources:.*[ ,"]ngpus[,"]' "$config"; then
    sed -i -E '/^resources:/ s/"$/, ngpus"/' "$config"
  fi
  grep -qE '^resources:.*[ ,"]system[,"]' "$config" || die "could not add system to $config's resources line"
  local sched
  sched=$(pid_in "$pbs_home/sched_priv/sched.lock")
  [[ -n $sched ]] || die "no pbs_sched PID in $pbs_home/sched_priv/sched.lock"
  kill -HUP "$sched"
}

env_lines() {
  # shellcheck disable=SC2016 # $PATH expands where the lines are eval'd
  printf 'export PATH=%q:"$PATH"\n' "$pbs_exec/bin"
  echo "export PBS_SERVER=$(printf %q "$host")"
  echo "export EZPZ_PBS_HOST=$(printf %q "$host")"
  echo "export EZPZ_PBS_USER=$(printf %q "$user")"
  echo "export EZPZ_PBS_QUEUES=$(printf %q "$(tr '\n' ' ' <"$dir/queues")")"
}

check_prerequisites() {
  ((EUID == 0)) || { log "error: must run as root (PBS daemons, /etc/hosts, /etc/pbs.conf, a test user)"; exit 1; }
  local missing=() program
  for program in getent useradd runuser awk sed flock sha256sum; do
    command -v "$program" >/dev/null || missing+=("$program")
  done
  ((${#missing[@]} == 0)) || { log "error: missing programs: ${missing[*]}"; exit 1; }
}

start_server() {
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd -P)
  if [[ -s $dir/pids ]]; then log "a server from an earlier start is recorded in $dir: stopping it first"; fi
  stop_server
  rm -rf "${dir:?}"/{log,pids,env,queues}
  mkdir -p "$dir/log"
  : >"$dir/pids"
  local start=$SECONDS
  "$here/build.sh" || die "could not build or install OpenPBS (build.sh)"
  local others
  others=$(running_daemons | tr '\n' ' ')
  [[ -z $others ]] || die "PBS daemons not started by this script are running (pids $others): stop them first"

  local address
  address=$(first_address) || die "no non-loopback IPv4 address (pbs_server refuses loopback)"
  ensure_host_name "$address"
  ensure_user
  write_config

  local build_done=$SECONDS
  # The init script pbs_postinstall copies to /etc/init.d/pbs, from where it was installed (no systemd,
  # and a minimal system may have no /etc/init.d).
  "$pbs_exec/libexec/pbs_init.d" start >"$dir/log/init.out" 2>&1 || { record_pids; die "$pbs_exec/libexec/pbs_init.d start failed"; }
  record_pids
  wait_for "${EZPZ_PBS_START_TIMEOUT:-120}" "pbs_server to answer (qstat -B)" pbs qstat -B
  record_pids
  configure_server
  wait_for "${EZPZ_PBS_START_TIMEOUT:-120}" "node $host to be free (pbsnodes)" node_free
  record_pids
  local comm
  for comm in pbs_server.bin pbs_sched pbs_mom pbs_comm pbs_ds_monitor postgres; do
    grep -q "^$comm " "$dir/pids" || die "no running $comm found after the start"
  done
  env_lines >"$dir/env"
  log "server up in $((SECONDS - start))s ($((SECONDS - build_done))s after the install): $host ($address)," \
    "queues $(tr '\n' ' ' <"$dir/queues")user $user, directory $dir"
  cat "$dir/env"
}

# Sends SIGTERM to the recorded daemons named COMM, waits up to 20 s, then SIGKILL.
terminate() { # terminate COMM
  local comm pid started pids=()
  while read -r comm pid started; do
    if [[ $comm == "$1" ]] && is_ours "$pid" "$comm" "$started"; then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid:$started")
    fi
  done <"$dir/pids"
  local deadline=$((SECONDS + 20)) entry alive
  while :; do
    alive=()
    for entry in "${pids[@]}"; do
      is_ours "${entry%%:*}" "$1" "${entry#*:}" && alive+=("$entry")
    done
    ((${#alive[@]})) || return 0
    if ((SECONDS >= deadline)); then
      for entry in "${alive[@]}"; do
        log "$1 (pid ${entry%%:*}) ignored SIGTERM for 20s: SIGKILL"
        kill -KILL "${entry%%:*}" 2>/dev/null || true
      done
      sleep 0.2
      return 0
    fi
    sleep 0.1
  done
}

server_is_ours() {
  local comm pid started
  while read -r comm pid started; do
    if [[ $comm == pbs_server.bin ]] && is_ours "$pid" "$comm" "$started"; then return 0; fi
  done <"$dir/pids"
  return 1
}

stop_server() {
  [[ -d $dir ]] || return 0
  dir=$(cd "$dir" && pwd -P)
  [[ -s $dir/pids ]] || { rm -f "$dir/pids"; return 0; }
  if server_is_ours; then
    # Jobs first (every user's), so that no job process is left behind by MoM.
    local jobs=() deadline=$((SECONDS + 20))
    mapfile -t jobs < <(pbs qselect 2>/dev/null || true)
    if ((${#jobs[@]})); then
      pbs qdel -W force "${jobs[@]}" >/dev/null 2>&1 || true
      while [[ -n $(pbs qselect 2>/dev/null) ]] && ((SECONDS < deadline)); do sleep 0.5; done
    fi
  fi
  local comm
  for comm in "${daemons[@]}"; do terminate "$comm"; done
  rm -f "$dir/pids"
}

(($# == 2)) || usage
command=$1
dir=$2
case $command in
  build)
    check_prerequisites
    "$here/build.sh"
    ;;
  start)
    check_prerequisites
    trap 'on_start_exit $? "$BASH_COMMAND"' EXIT
    start_server
    ;;
  stop) stop_server ;;
  env)
    [[ -f $dir/env ]] || { log "error: no server started in $dir"; exit 1; }
    cat "$dir/env"
    ;;
  *) usage ;;
esac
