#!/usr/bin/env bash
# Every shipped PBS profile's rendered script is accepted by the strict fake qsub, through
# `ezpz render … | qsub` and `qsub FILE`, and qsub records what ezpz meant: 2 nodes, walltime 00:30:00,
# the filesystems, place=scatter, -k doe on Aurora, Sunspot and Sophia, the queue. Also: the job id pattern in
# schedulers/pbs.yaml parses real and fake PBS job ids. (ctest: fake_pbs.profiles; $1 is the ezpz binary)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# Debian's Python (scripts/install-deps.sh test), as the fake uses: a version manager's shim costs 0.1 s a call.
python=/usr/bin/python3
[[ -x $python ]] || python=python3
ezpz=$1
spec="$here/profile_job.yaml"

export PATH="$here:$PATH"
export FAKE_PBS_ALLOW_ROOT=1 # CI runs as root; the fake refuses root otherwise, like the real server
export FAKE_PBS_SUBMIT_HOST=uan-0001
unset FAKE_PBS_SERVER
server=fakepbs-0001.hostmgmt.cm.example

# The site-defined resources of each system's PBS server (ALCF user guides: Aurora/Sunspot/Sophia take
# -l filesystems=…, Polaris and Crux also select=…:system=NAME). A system not listed gets a generic OpenPBS
# server without site resources: a profile that emits one fails here with
# "qsub: Unknown resource Resource_List.NAME" until the resource is added below.
site_resources() {
  case $1 in
    aurora | sunspot | sophia) echo "filesystems job" ;;
    polaris | crux) printf 'filesystems job\nsystem host\n' ;;
    *) echo "# generic OpenPBS: no site-defined resources" ;;
  esac
}

json() { # json FILE PYTHON_EXPRESSION (d = the document): prints the value, '' when absent
  "$python" -c 'import json, sys
d = json.load(open(sys.argv[1]))
try:
    v = eval(sys.argv[2])
except (KeyError, IndexError, TypeError):
    v = ""
print(":".join(v) if isinstance(v, list) else v)' "$1" "$2"
}

# check_job DESCRIPTION JOB_ID SCRIPT RESOLVED_JSON SYSTEM QUEUE: what the fake recorded is what ezpz meant.
check_job() {
  local what=$1 job=$2 script=$3 resolved=$4 system=$5 queue=$6
  local attrs="$FAKE_PBS_DIR/jobs/$job/attributes.json"
  if [[ ! -f $attrs ]]; then
    fail "$what: no job recorded"
    return
  fi
  check "$what: the script qsub got is the rendered one" cmp -s "$script" "$FAKE_PBS_DIR/jobs/$job/script"
  expect "$what" "$attrs" 'd["Job_Name"]' fake-pbs-check
  expect "$what" "$attrs" 'd["Account_Name"]' MyProject
  expect "$what" "$attrs" 'd["queue"]' "$queue"
  expect "$what: 2 nodes" "$attrs" 'd["Resource_List"]["nodect"]' 2
  expect "$what: 2 nodes in select" "$attrs" 'sum(c["count"] for c in d["fake"]["select_chunks"])' 2
  expect "$what: walltime normalised" "$attrs" 'd["Resource_List"]["walltime"]' 00:30:00
  expect "$what: filesystems" "$attrs" 'd["Resource_List"]["filesystems"]' "$(json "$resolved" 'd["filesystems"]')"
  expect "$what: place" "$attrs" 'd["Resource_List"]["place"]' scatter
  case $system in
    aurora | sunspot | sophia | crux) expect "$what: -k doe" "$attrs" 'd["Keep_Files"]' doe ;;
  esac
  expect "$what: no directive after the first command" "$attrs" 'len(d["fake"]["ignored_directives"])' 0
  check "$what: schedulers/pbs.yaml's job_id_pattern takes the id" grep -Eqx -- "$job_id_pattern" <<<"$job"
}
expect() { # expect DESCRIPTION FILE EXPRESSION EXPECTED
  local got
  got=$(json "$2" "$3" 2>&1)
  check "$1: $3 = '$4' (got '$got')" test "$got" = "$4"
}

# submit DESCRIPTION MODE SCRIPT [ezpz render arguments…]: MODE file (qsub FILE) or pipe
# (ezpz render … | qsub); sets $job.
submit() {
  local what=$1 mode=$2 script=$3 rc
  shift 3
  if [[ $mode == file ]]; then
    qsub "$script" >"$workdir/out" 2>"$workdir/err"
  else
    "$ezpz" render "$spec" "$@" | qsub >"$workdir/out" 2>"$workdir/err"
  fi
  rc=$?
  job=$(cat "$workdir/out")
  check "$what: qsub accepts the script (exit $rc): $(cat "$workdir/err")" test "$rc" -eq 0
  check "$what: qsub printed a job id ($job)" grep -Eqx "[0-9]+\.$server" "$workdir/out"
}

job_id_pattern=$(sed -n "s/^job_id_pattern: '\(.*\)'$/\1/p" "$here/../../schedulers/pbs.yaml")
check "schedulers/pbs.yaml has a job_id_pattern" test -n "$job_id_pattern"

mapfile -t systems < <("$ezpz" systems list | awk 'NR > 1 && $2 == "pbs" { print $1 }')
check "there are PBS profiles" test "${#systems[@]}" -gt 0
for system in "${systems[@]}"; do
  export FAKE_PBS_DIR="$workdir/pbs-$system"
  mkdir -p "$FAKE_PBS_DIR"
  # The fake server's queues: the profile's, with generous limits (ezpz checks the profile's own).
  mapfile -t queues < <("$ezpz" systems show "$system" |
    awk '/^queues:/ { q = 1; next } q && /^  [^ ]/ { print $1; next } q { exit }')
  if ((${#queues[@]} == 0)); then queues=(workq); fi
  printf '%s 100000 2592000\n' "${queues[@]}" >"$FAKE_PBS_DIR/queues"
  site_resources "$system" >"$FAKE_PBS_DIR/resources"

  resolved="$workdir/$system.json"
  if ! "$ezpz" resolve "$spec" --system "$system" --json >"$resolved" 2>"$workdir/err"; then
    fail "$system: resolve failed: $(cat "$workdir/err")"
    continue
  fi
  queue=$(json "$resolved" 'd["queue"]')
  if [[ -n $queue ]]; then
    check "$system: the default queue '$queue' is one of the profile's (${queues[*]})" \
      grep -qx -- "$queue" <(printf '%s\n' "${queues[@]}")
  else
    queue=${queues[0]} # no -q: the server's default queue
  fi
  script="$workdir/$system.sh"
  if ! "$ezpz" render "$spec" --system "$system" -o "$script" 2>"$workdir/err"; then
    fail "$system: render failed: $(cat "$workdir/err")"
    continue
  fi
  submit "$system: qsub FILE" file "$script"
  check_job "$system: qsub FILE" "$job" "$script" "$resolved" "$system" "$queue"
  submit "$system: ezpz render | qsub" pipe "$script" --system "$system"
  check_job "$system: ezpz render | qsub" "$job" "$script" "$resolved" "$system" "$queue"
  expect "$system: piped, the name comes from -N, not STDIN" \
    "$FAKE_PBS_DIR/jobs/$job/attributes.json" 'd["Job_Name"]' fake-pbs-check

  # Every other queue of the profile that ezpz accepts for this job is accepted by qsub too.
  for other in "${queues[@]}"; do
    [[ $other == "$queue" ]] && continue
    if "$ezpz" render "$spec" --system "$system" --set "queue=$other" -o "$script" 2>/dev/null; then
      "$ezpz" resolve "$spec" --system "$system" --set "queue=$other" --json >"$resolved"
      submit "$system, queue $other: qsub FILE" file "$script"
      check_job "$system, queue $other" "$job" "$script" "$resolved" "$system" "$other"
    fi
  done
done

# Job ids: the pattern in schedulers/pbs.yaml takes real ones (Aurora's) and the fake's whole, and
# refuses what is not a job id; grep -E and Python's re agree.
for id in 8414055.aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov 123.polaris-pbs-01.hsn.cm.polaris.alcf.anl.gov \
  "1.$server" "42[].$server" "42[7].$server" 8414055; do
  check "job id '$id' matches the pattern (grep -E)" grep -Eqx -- "$job_id_pattern" <<<"$id"
  check "job id '$id' matches the pattern whole (python re)" "$python" -c 'import re, sys
m = re.fullmatch(sys.argv[1], sys.argv[2])
sys.exit(0 if m and m.group(1) == sys.argv[2] else 1)' "$job_id_pattern" "$id"
done
for not_id in "Submitted batch job 5" "qsub: Unknown queue" "" "8414055.aurora pbs" "abc.server" \
  "8414055.aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov extra"; do
  if grep -Eqx -- "$job_id_pattern" <<<"$not_id"; then fail "'$not_id' is taken for a job id"; fi
done

finish
