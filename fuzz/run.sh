#!/usr/bin/env bash
# One time-boxed fuzz run: run.sh FUZZER SECONDS ARTIFACT_DIR SEED_DIR...
# Fuzzes from the seeds (read only: new inputs go to a temporary corpus) for SECONDS. libFuzzer's
# progress lines go to ARTIFACT_DIR/last-run.log, not to the test's output: a minute of them is more than
# ctest keeps of a failed test's output (300 KB), and the report at their end was lost that way. What is
# printed is the run's final statistics, or on a finding libFuzzer's report (from its first "==" or
# "ERROR" line), the input's first bytes and the run's last lines. The input is kept in ARTIFACT_DIR;
# replay it: FUZZER ARTIFACT_DIR/crash-<sha1>.
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
log=$artifacts/last-run.log
before=$(find "$artifacts" -type f ! -name last-run.log | wc -l)
status=0
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$work" "${seeds[@]}" >"$log" 2>&1 || status=$?
if ((status == 0)); then
  grep -E '^(INFO: seed corpus|#[0-9]+[[:space:]]+DONE|stat::)' "$log" || true
  exit 0
fi
echo "--- libFuzzer's report (the whole run is in $log):"
report=$(grep -n -m1 -E '^(==[0-9]+==|ERROR|ALARM|ezpz fuzz:|.*runtime error:)' "$log" | cut -d: -f1 || true)
sed -n "${report:-1},\$p" "$log" | head -150
for input in $(find "$artifacts" -type f ! -name last-run.log -newer "$work" | head -3); do
  echo "--- $input (first 512 bytes):"
  head -c 512 "$input" | od -A d -c | head -40
done
echo "--- the run's last lines:"
tail -n 15 "$log"
echo "run.sh: $(basename "$fuzzer") found a problem (exit $status); $before earlier artifacts in $artifacts" >&2
exit "$status"
