#!/usr/bin/env bash
# ezpz::torch::init() under torchrun (Debian's python3-torch), which exports the same variables: with
# its default static rendezvous (the agent hosts the store: TORCHELASTIC_USE_AGENT_STORE=True) and
# with --standalone (rank 0 hosts it). Without /usr/bin/torchrun: skipped, or failed under CI=true.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
program=$1
torchrun=${EZPZ_TORCHRUN:-/usr/bin/torchrun}
[ -x "$torchrun" ] || cannot_run "$torchrun not found (Debian python3-torch: scripts/install-deps.sh test)"


for mode in static standalone; do
  args=(--nproc_per_node 2 --master_port "$(free_port)")
  # What --standalone does (a c10d rendezvous hosted by torchrun's agent), but on a free port: the
  # fixed 29400 of --standalone collides with any other torchrun on the machine.
  [ "$mode" = standalone ] && args=(--rdzv_backend c10d --rdzv_endpoint "127.0.0.1:$(free_port)" --rdzv_id "ezpz-$$"
                                    --nnodes 1 --nproc_per_node 2)
  # --redirects/--tee: Debian's torchrun on Python 3.11 crashes without them; 9:1 = nobody's output redirected.
  # TMPDIR: torchrun's agent leaves a torchelastic_* directory there.
  env -u TORCH_DEVICE -u TORCH_BACKEND -u GLOO_SOCKET_IFNAME "TMPDIR=$workdir" \
    timeout -k 5 120 "$torchrun" "${args[@]}" --no_python --redirects 9:1 --tee 9:1 --monitor_interval 0.1 \
    "$program" --quick --timeout 60 >"$workdir/$mode.out" 2>"$workdir/$mode.err"
  status=$?
  echo "--- torchrun ($mode): exit $status"
  sed 's/^/    out: /' "$workdir/$mode.out"
  grep -v '^\*\*\*\|OMP_NUM_THREADS\|^WARNING:torch.distributed.run:$' "$workdir/$mode.err" | sed 's/^/    err: /'
  check "torchrun ($mode): exits 0" test "$status" -eq 0
  check "torchrun ($mode): rank 0 prints the OK line" grep -qx "ezpz test: 2 ranks on 1 node(s): all-reduce OK" "$workdir/$mode.out"
done
finish
