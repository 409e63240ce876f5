# shellcheck shell=bash
# Shared helpers for the LibTorch tests (sourced): checks, and N local ranks started the way a launcher
# would start them, with the environment contract of ezpz::torch::init() set by hand.
# Checks, failure counting and $workdir come from the end-to-end tests' helpers.
# shellcheck source=../e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

rank_pids=()
cleanup() {
  local pid
  for pid in "${rank_pids[@]}"; do kill "$pid" 2>/dev/null; done  # timeout passes it on to the rank
  rm -rf "$workdir"
}
trap cleanup EXIT

# A TCP port nobody listens on now (the kernel picks it), else a random one that ss shows as free.
free_port() {
  local python port
  for python in /usr/bin/python3 python3; do
    if port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' \
      2>/dev/null); then
      echo "$port"
      return
    fi
  done
  while :; do
    port=$((20000 + RANDOM % 40000))
    if ! ss -Htln "sport = :$port" | grep -q .; then
      echo "$port"
      return
    fi
  done
}

# run_ranks N NAME PROGRAM [ARGS...]: runs N ranks of PROGRAM on 127.0.0.1 and waits for all of them
# (each at most $rank_timeout seconds). Rank r writes $workdir/NAME.r.out, .err and its exit status
# to .rc. TORCH_DEVICE, TORCH_BACKEND, NODE_RANK, GLOO_SOCKET_IFNAME and the node-name variables are
# removed from the caller's environment (cpu and gloo, the defaults, are what is tested here). With
# ranks_per_node=P the ranks pretend to be on nodes of P ranks each (LOCAL_RANK, LOCAL_WORLD_SIZE,
# NODE_RANK, EZPZ_NODE_NAME=sim-nodeK), all still on 127.0.0.1. Extra variables for every rank can be given in the array rank_env=(NAME=VALUE ...).
rank_timeout=${EZPZ_TEST_RANK_TIMEOUT:-120}
rank_env=()
ranks_per_node=
run_ranks() {
  local n=$1 name=$2 port r
  shift 2
  for _ in 1 2 3; do  # attempts
    port=$(free_port)
    rank_pids=()
    for ((r = 0; r < n; r++)); do
      local node_env=("LOCAL_RANK=$r" "LOCAL_WORLD_SIZE=$n")
      if [ -n "$ranks_per_node" ]; then
        node_env=("LOCAL_RANK=$((r % ranks_per_node))" "LOCAL_WORLD_SIZE=$ranks_per_node"
          "NODE_RANK=$((r / ranks_per_node))" "EZPZ_NODE_NAME=sim-node$((r / ranks_per_node))")
      fi
      env -u TORCH_DEVICE -u TORCH_BACKEND -u NODE_RANK -u GLOO_SOCKET_IFNAME -u SLURMD_NODENAME -u EZPZ_NODE_NAME \
        RANK=$r WORLD_SIZE="$n" "${node_env[@]}" MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
        "${rank_env[@]}" timeout -k 5 "$rank_timeout" "$@" >"$workdir/$name.$r.out" 2>"$workdir/$name.$r.err" &
      rank_pids+=($!)
    done
    for ((r = 0; r < n; r++)); do
      wait "${rank_pids[$r]}"
      echo $? >"$workdir/$name.$r.rc"
    done
    rank_pids=()
    # Another process took the port between free_port and rank 0's bind: try again with a new one.
    grep -qi 'address already in use' "$workdir/$name.0.err" || return 0
    echo "port $port was taken, retrying" >&2
  done
}

# rank_status NAME R: the exit status of rank R of the last run_ranks NAME.
rank_status() { cat "$workdir/$1.$2.rc"; }

# show_ranks N NAME: every rank's exit status and output, for the test log.
show_ranks() {
  local r
  for ((r = 0; r < $1; r++)); do
    echo "--- $2 rank $r: exit $(rank_status "$2" "$r")"
    sed 's/^/    out: /' "$workdir/$2.$r.out"
    sed 's/^/    err: /' "$workdir/$2.$r.err"
  done
}
