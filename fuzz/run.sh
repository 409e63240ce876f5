#!/usr/bin/env bash
# One time-boxed fuzz run: run.sh FUZZER SECONDS ARTIFACT_DIR SEED_DIR...
# Fuzzes from the seeds (read only: new inputs go to a temporary corpus) for SECONDS. On a finding,
# libFuzzer's report names the input it saved in ARTIFACT_DIR; it is also shown here as bytes, and the
# run fails. Replay one input: FUZZER ARTIFACT_DIR/crash-<sha1>.
set -euo pipefail
fuzzer=$1 seconds=$2 artifacts=$3
shift 3
mkdir -p "$artifacts"
work=$(mktemp -d "${TMPDIR:-/tmp}/ezpz-fuzz-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT
seeds=()
for dir in "$@"; do
  [[ -d $dir ]] && seeds+=("$dir")
done
((${#seeds[@]} > 0)) || { echo "run.sh: no seed directory among: $*" >&2; exit 2; }
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
before=$(find "$artifacts" -type f | wc -l)
status=0
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$work" "${seeds[@]}" || status=$?
if ((status != 0)); then
  for input in $(find "$artifacts" -type f -newer "$work" | head -3); do
    echo "--- $input (first 512 bytes):"
    head -c 512 "$input" | od -A d -c | head -40
  done
  echo "run.sh: $(basename "$fuzzer") found a problem (exit $status); $((before)) earlier artifacts in $artifacts" >&2
fi
exit "$status"
