#!/usr/bin/env bash
# ezpz::torch::init() errors, through ezpz-torch-test run by hand: a missing or invalid variable, a
# device or backend this LibTorch lacks, a rendezvous nobody completes, a port in use. Each exits
# non-zero, prints nothing on stdout, and says on stderr what to fix (naming the variable and value).
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
program=$1
port=$(free_port)

# expect_error NAME STATUS "VAR=VALUE ..." ARGS... -- PATTERN...: runs one process with exactly these
# variables (plus PATH and HOME), checks its exit status, an empty stdout and every pattern on stderr.
expect_error() {
  local name=$1 status=$2 vars=$3 args=() patterns=() pattern
  shift 3
  while (($#)) && [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  patterns=("$@")
  # shellcheck disable=SC2086  # vars is a list of NAME=VALUE words on purpose
  env -i PATH="$PATH" HOME="${HOME:-/tmp}" $vars timeout -k 5 60 "$program" "${args[@]}" \
    >"$workdir/$name.out" 2>"$workdir/$name.err"
  local actual=$?
  echo "--- $name: exit $actual"
  sed 's/^/    err: /' "$workdir/$name.err"
  check "$name: exits $status" test "$actual" -eq "$status"
  check "$name: nothing on stdout" test ! -s "$workdir/$name.out"
  for pattern in "${patterns[@]}"; do
    check "$name: stderr says '$pattern'" grep -qF -- "$pattern" "$workdir/$name.err"
  done
}

ranks="RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 LOCAL_WORLD_SIZE=1"

expect_error missing_master_addr 1 "$ranks MASTER_PORT=$port" -- \
  "MASTER_ADDR is not set; expected the host name or address where rank 0 runs" \
  "hint: start the ranks with \`ezpz launch -n N -- PROGRAM\`"

expect_error nothing_set 1 "" -- \
  "RANK is not set" "WORLD_SIZE is not set" "LOCAL_RANK is not set" "LOCAL_WORLD_SIZE is not set" \
  "MASTER_ADDR is not set" "MASTER_PORT is not set"

expect_error bad_numbers 1 \
  "RANK=2 WORLD_SIZE=2 LOCAL_RANK=x LOCAL_WORLD_SIZE=4 MASTER_ADDR=127.0.0.1 MASTER_PORT=70000" -- \
  "RANK=2 is out of range; expected 0 ... WORLD_SIZE-1 = 1" \
  "LOCAL_RANK='x' is not a whole number" \
  "LOCAL_WORLD_SIZE=4 is larger than WORLD_SIZE=2" \
  "MASTER_PORT='70000' is out of range; expected a TCP port, 1 ... 65535"

expect_error unknown_backend 1 "$ranks MASTER_ADDR=127.0.0.1 MASTER_PORT=$port TORCH_BACKEND=ucc" -- \
  "TORCH_BACKEND='ucc' is not a backend ezpz knows; expected 'nccl', 'xccl', 'gloo' or 'mpi'"

for backend in nccl xccl mpi; do
  expect_error "backend_$backend" 1 "$ranks MASTER_ADDR=127.0.0.1 MASTER_PORT=$port TORCH_BACKEND=$backend" -- \
    "TORCH_BACKEND='$backend': this LibTorch build (LibTorch 1.13" "has no $backend process group; expected gloo"
done

expect_error cuda_device 1 "$ranks MASTER_ADDR=127.0.0.1 MASTER_PORT=$port TORCH_DEVICE=cuda:0" -- \
  "TORCH_DEVICE='cuda:0': this LibTorch build (LibTorch 1.13" "has no cuda support" \
  "TORCH_BACKEND is not set, and the default for TORCH_DEVICE='cuda:0' is 'nccl'"

expect_error bad_device 1 "$ranks MASTER_ADDR=127.0.0.1 MASTER_PORT=$port TORCH_DEVICE=banana:0" -- \
  "TORCH_DEVICE='banana:0' is not a device LibTorch knows"

expect_error bad_usage 2 "$ranks MASTER_ADDR=127.0.0.1 MASTER_PORT=$port" --iterations 0 -- "--iterations"

# A job across nodes whose MASTER_ADDR is loopback: fails at once rather than timing out.
start=$SECONDS
expect_error loopback_multi_node 1 \
  "RANK=0 WORLD_SIZE=4 LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port" --timeout 30 -- \
  "MASTER_ADDR=127.0.0.1 leads to the loopback address 127.0.0.1 here, but the job spans several nodes (WORLD_SIZE=4, LOCAL_WORLD_SIZE=2)" \
  "hint: set MASTER_ADDR to a name or address of rank 0's node"
check "loopback_multi_node: fails without waiting for the 30 s timeout" test $((SECONDS - start)) -lt 15

# Rank 0 of 2 alone: it hosts the store, nobody joins, it gives up after --timeout.
expect_error rank0_alone 1 "RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port" \
  --timeout 2 -- \
  "rank 0 on $(hostname): rendezvous at MASTER_ADDR=127.0.0.1 MASTER_PORT=$port: waited 2 s for all 2 ranks to join, 1 joined; missing: rank 1"

# Rank 1 of 2 alone: nobody hosts the store.
expect_error rank1_alone 1 "RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port" \
  --timeout 2 -- \
  "rank 1 on $(hostname): joining the rendezvous store (MASTER_ADDR=127.0.0.1 MASTER_PORT=$port): nothing accepted connections there within 2 s" \
  "hint: is rank 0 running on MASTER_ADDR"

# Ranks 0 and 2 of 3 without rank 1: both give up, and rank 0 names the missing rank.
run_ranks_without() {  # run_ranks_without MISSING N NAME ARGS...: like run_ranks, minus one rank
  local missing=$1 n=$2 name=$3 r
  shift 3
  rank_pids=()
  for ((r = 0; r < n; r++)); do
    ((r == missing)) && continue
    env -i PATH="$PATH" HOME="${HOME:-/tmp}" RANK=$r WORLD_SIZE="$n" LOCAL_RANK=$r LOCAL_WORLD_SIZE="$n" \
      MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" timeout -k 5 60 "$program" "$@" \
      >"$workdir/$name.$r.out" 2>"$workdir/$name.$r.err" &
    rank_pids+=($!)
  done
  for pid in "${rank_pids[@]}"; do wait "$pid"; echo $?; done >"$workdir/$name.rcs"
  rank_pids=()
}
run_ranks_without 1 3 missing --timeout 3
echo "--- missing: exit statuses $(tr '\n' ' ' <"$workdir/missing.rcs")"
sed 's/^/    rank 0 err: /' "$workdir/missing.0.err"
check "missing: ranks 0 and 2 exit 1" test "$(tr '\n' ' ' <"$workdir/missing.rcs")" = "1 1 "
check "missing: rank 0 names rank 1" grep -qF "waited 3 s for all 3 ranks to join, 2 joined; missing: rank 1" \
  "$workdir/missing.0.err"

# Two processes with RANK=1 (and none with RANK=0 but rank 0 itself): the second one is refused.
# The first two wait up to 10 s for the missing rank 2; the duplicate starts 2 s after them, time
# enough for the first RANK=1 to load LibTorch and join even on a loaded machine (with 0.5 s, a full
# parallel ctest run sometimes let the duplicate join first).
port=$(free_port)
for r in 0 1; do
  env -i PATH="$PATH" RANK=$r WORLD_SIZE=3 LOCAL_RANK=$r LOCAL_WORLD_SIZE=3 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
    timeout -k 5 60 "$program" --timeout 10 >/dev/null 2>"$workdir/dup.$r.err" &
  rank_pids+=($!)
done
sleep 2
expect_error duplicate_rank 1 "RANK=1 WORLD_SIZE=3 LOCAL_RANK=1 LOCAL_WORLD_SIZE=3 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port" \
  --timeout 3 -- "rendezvous at MASTER_ADDR=127.0.0.1 MASTER_PORT=$port: another process already joined as RANK=1"
for pid in "${rank_pids[@]}"; do wait "$pid"; done
rank_pids=()

# MASTER_PORT already taken by another program.
port=$(free_port)
/usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET6); s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::", int(sys.argv[1]))); s.listen(); print("listening", flush=True); time.sleep(60)' "$port" \
  >"$workdir/listener.out" &
rank_pids+=($!)
for _ in $(seq 50); do grep -qs listening "$workdir/listener.out" && break; sleep 0.1; done
check "port_in_use: a listener holds port $port" grep -q listening "$workdir/listener.out"
expect_error port_in_use 1 "$ranks MASTER_ADDR=127.0.0.1 MASTER_PORT=$port" --timeout 5 -- \
  "hosting the rendezvous store (MASTER_ADDR=127.0.0.1 MASTER_PORT=$port)" "is MASTER_PORT already in use"
finish
