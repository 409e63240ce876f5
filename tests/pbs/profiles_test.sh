#!/usr/bin/env bash
# Every shipped PBS profile's renders go through the real OpenPBS qsub and come back from the real
# server exactly as rendered: for each profile, several variants (1 and 2 nodes, every queue of the
# profile with a node count it accepts, a stage: entry with env and mail, a job name with dots and
# dashes, a dependency) are submitted held (`qsub -h`) by the non-root user, and `qstat -f -F json`
# must show every #PBS line of the script: select (and nodect), walltime, filesystems, place, account,
# queue, job name, -k, -r, -m/-M, -W depend. Then the jobs are deleted.
#   profiles_test.sh SERVER_DIR EZPZ   (ctest: pbs.profiles)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
server=$1
enter_server "$server"
ezpz=$(user_copy "$2" ezpz)
# Debian's Python: a version manager's shim may not be readable by the test user and costs 0.1 s a call.
python=/usr/bin/python3
[[ -x $python ]] || python=python3

# The filesystems each ALCF profile's jobs name (Aurora and Polaris require them; Sunspot has a default).
filesystems_of() {
  case $1 in
    aurora) echo "filesystems: [home, flare]" ;;
    polaris | sophia | crux) echo "filesystems: [home, eagle]" ;;
  esac
}

# compare SCRIPT QSTAT_JSON: prints one line per #PBS directive of SCRIPT whose value the server does
# not show as written (nothing when all match), and the directives it cannot check.
compare() {
  "$python" - "$1" "$2" <<'PY'
import json, re, shlex, sys

script, qstat = sys.argv[1], sys.argv[2]
jobs = json.load(open(qstat)).get("Jobs", {})
if len(jobs) != 1:
    print(f"qstat -f -F json shows {len(jobs)} jobs, expected 1")
    sys.exit()
job = next(iter(jobs.values()))
resources = job.get("Resource_List", {})
directives = []
for line in open(script):
    line = line.rstrip("\n")
    if line.startswith("#PBS"):
        directives.append(shlex.split(line[4:]))
    elif line.strip() and not line.startswith("#"):
        break  # qsub reads no directive after the first command
if not directives:
    print("the script has no #PBS line")

def expect(what, got, want):
    if str(got) != str(want):
        print(f"{what}: rendered '{want}', server shows '{got}'")

boolean = {"y": "True", "n": "False"}
for words in directives:
    option, value = words[0], " ".join(words[1:])
    if option == "-l":
        for item in value.split(","):
            name, _, want = item.partition("=")
            expect(f"-l {name}", resources.get(name, "<absent>"), want)
            if name == "select":
                nodes = sum(int(chunk.split(":")[0]) if chunk.split(":")[0].isdigit() else 1
                            for chunk in want.split("+"))
                expect("Resource_List.nodect (from select)", resources.get("nodect", "<absent>"), nodes)
    elif option == "-N":
        expect("-N (Job_Name)", job.get("Job_Name"), value)
    elif option == "-A":
        expect("-A (Account_Name)", job.get("Account_Name"), value)
    elif option == "-q":
        expect("-q (queue)", job.get("queue"), value)
    elif option == "-k":
        expect("-k (Keep_Files)", job.get("Keep_Files"), value)
    elif option == "-r":
        expect("-r (Rerunable)", job.get("Rerunable"), boolean.get(value, value))
    elif option == "-m":
        expect("-m (Mail_Points)", job.get("Mail_Points"), value)
    elif option == "-M":
        expect("-M (Mail_Users)", job.get("Mail_Users"), value)
    elif option == "-W" and value.startswith("depend="):
        # The server names each parent with its server: afterok:12.host@host.
        got = re.sub(r"@[^:,]+", "", job.get("depend", "<absent>"))
        expect("-W depend (@server dropped)", got, value[len("depend="):])
    elif option in ("-o", "-e"):
        attribute = {"-o": "Output_Path", "-e": "Error_Path"}[option]
        got = job.get(attribute, "")
        expect(f"{option} ({attribute}, host: stripped)", got.split(":", 1)[-1], value)
    else:
        print(f"the test does not know how to check '#PBS {' '.join(words)}': add it to compare()")
if job.get("job_state") != "H":
    print(f"job_state is '{job.get('job_state')}', expected H (held)")
PY
}

submitted=()
# variant SYSTEM LABEL [ezpz render arguments…]: renders $spec (the current variant's spec) for SYSTEM,
# submits it held as the test user and compares what the server shows with the #PBS lines.
variant() {
  local system=$1 label=$2
  shift 2
  local what="$system $label" script="$userdir/$system-$label.sh"
  if ! "$ezpz" render "$spec" --system "$system" "$@" -o "$script" 2>"$workdir/err"; then
    fail "$what: ezpz render failed: $(cat "$workdir/err")"
    return
  fi
  chown "$EZPZ_PBS_USER:" "$script"
  local job rc
  job=$(as_user qsub -h "$script" 2>"$workdir/err")
  rc=$?
  if ((rc != 0)); then
    fail "$what: qsub refused the script (exit $rc): $(cat "$workdir/err")"
    return
  fi
  submitted+=("$job")
  check "$what: qsub printed a job id ($job)" grep -Eqx -- "$job_id_pattern" <<<"$job"
  if ! as_user qstat -f -F json "$job" >"$workdir/qstat.json" 2>"$workdir/err" </dev/null; then
    fail "$what: qstat -f -F json $job failed: $(cat "$workdir/err")"
    return
  fi
  local problems
  problems=$(compare "$script" "$workdir/qstat.json" 2>&1)
  check "$what ($job): the server shows every #PBS line as rendered${problems:+:$'\n'  $problems}" test -z "$problems"
  ((++variants))
}

job_id_pattern=$(sed -n "s/^job_id_pattern: '\(.*\)'$/\1/p" "$here/../../schedulers/pbs.yaml")
check "schedulers/pbs.yaml has a job_id_pattern" test -n "$job_id_pattern"
check "qsub is OpenPBS's, from /opt/pbs" test "$(command -v qsub)" = /opt/pbs/bin/qsub

mapfile -t systems < <("$ezpz" systems list | awk 'NR > 1 && $2 == "pbs" { print $1 }')
check "the PBS profiles are aurora, crux, polaris, sophia, sunspot and pbs (got ${systems[*]})" \
  test "$(printf '%s\n' "${systems[@]}" | sort | tr '\n' ' ')" = "aurora crux pbs polaris sophia sunspot "
variants=0
for system in "${systems[@]}"; do
  spec=$userdir/$system.yaml
  cat >"$spec" <<YAML
name: ezpz-pbs-check
account: MyProject
nodes: 1
walltime: 30m
$(filesystems_of "$system")
env: {HF_HOME: /tmp/hf}
run: [python3, train.py, --lr, "3e-4"]
YAML
  variant "$system" one-node
  variant "$system" two-nodes --set nodes=2
  variant "$system" name-with-dots --set name=llama-3.1-8b.ft-v2_run.7
  variant "$system" walltime-normalised --set walltime=5:60

  # Every queue of the profile, with the first node count it accepts there.
  mapfile -t queues < <("$ezpz" systems show "$system" |
    awk '/^queues:/ { q = 1; next } q && /^  [^ ]/ { print $1; next } q { exit }')
  for queue in "${queues[@]}"; do
    queue=${queue%:}
    found=0
    for nodes in 1 2 10 256; do
      if "$ezpz" render "$spec" --system "$system" --set "queue=$queue" --set "nodes=$nodes" >/dev/null 2>&1; then
        variant "$system" "queue-$queue-$nodes-nodes" --set "queue=$queue" --set "nodes=$nodes"
        found=1
        break
      fi
    done
    ((found)) || fail "$system: ezpz renders no job for queue $queue with 1, 2, 10 or 256 nodes"
  done

  # A stage: entry, more environment, mail, and the tier0 group placement Aurora documents.
  spec=$userdir/$system-stage.yaml
  cat >"$spec" <<YAML
name: stage.check-1
account: MyProject
nodes: 2
walltime: 1h
$(filesystems_of "$system")
env: {HF_HOME: /tmp/hf, ODD: "a b \$(c) 'd'"}
stage:
  - {src: /tmp/venv.tar.gz, dest: /tmp/venv, unpack: true, venv: true}
setup: source /tmp/venv/bin/activate
run: [python3, -m, train]
mail: {user: me@example.org, events: [begin, end, fail]}
YAML
  variant "$system" stage-env-mail
  variant "$system" tier0-group --set 'scheduler_args=["-l place=scatter:group=tier0"]'
  if ((${#submitted[@]})); then
    variant "$system" after --set "after=${submitted[-1]}"
  fi
done
echo "$variants renders checked on the server"
check "variants were submitted and checked ($variants)" test "$variants" -ge 20

# ezpz doctor counts these held jobs against Polaris' caps (doctor/cap_checks.cpp) as the server lists
# them: the test user's in each queue with a per-user cap, project MyProject's in those with a
# per-project cap. The expected counts are read here from the server's own qstat, not from ezpz.
as_user "$ezpz" doctor --system polaris --json >"$workdir/doctor.json" 2>"$workdir/err" </dev/null
as_user qstat -f -F json -t >"$workdir/all.json" 2>"$workdir/err" </dev/null
caps_problems=$("$python" - "$workdir/doctor.json" "$workdir/all.json" "$EZPZ_PBS_USER" <<'PY'
import json, sys

report, listed, user = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
jobs = [j for j in listed.get("Jobs", {}).values() if j.get("job_state") in ("Q", "H", "R", "W", "T", "E", "B", "S")]
findings = [f for f in report["findings"] if f["check"] == "caps"]
text = "\n".join(f"{f['status']}: {f['finding']}" for f in findings)
problems = []
def mine(queue):
    return sum(1 for j in jobs if j["Job_Owner"].split("@")[0] == user and j["queue"] == queue)
def project(queue, states):
    return sum(1 for j in jobs if j.get("Account_Name") == "MyProject" and j["queue"] == queue
               and j["job_state"] in states)
def expect(words):
    if words not in text:
        problems.append(f"expected '{words}'")
if not findings:
    problems.append("no caps finding")
# Per user: debug-scaling 1 job (any state); capacity 2 queued or running.
n = mine("debug-scaling")
expect(f"{n} job(s) of user {user} counted in debug-scaling, against its cap of at most 1 job(s) per user"
       if n >= 1 else f"debug-scaling: {n} of at most 1 job(s) per user")
n = mine("capacity")
expect(f"{n} job(s) of user {user} counted in capacity, against its cap of at most 2 job(s) queued or running per user"
       if n >= 2 else f"capacity: {n} of at most 2 job(s) queued or running per user ({user})")
# Per project: prod's queued jobs (here prod is no routing queue, so the held jobs wait in it), and
# preemptable's 20 in any state.
n = project("prod", ("Q", "H", "W", "T"))
expect(f"prod: {n} of at most 100 job(s) queued (not accruing) per project (MyProject)")
expect("prod: 0 of at most 10 job(s) running or accruing per project (MyProject)")
n = project("preemptable", ("Q", "H", "W", "T", "R", "E", "B"))
expect(f"preemptable: {n} of at most 20 job(s) per project (running, accruing or queued) (MyProject)")
if problems:
    print("; ".join(problems) + "\n  caps findings:\n  " + text.replace("\n", "\n  "))
PY
)
check "ezpz doctor counts the held jobs against Polaris' caps as qstat lists them${caps_problems:+: $caps_problems}" \
  test -z "$caps_problems"

if ((${#submitted[@]})); then
  as_user qdel "${submitted[@]}" </dev/null 2>"$workdir/err"
  rc=$?
  check "qdel deletes the held jobs (exit $rc): $(cat "$workdir/err")" test "$rc" -eq 0
  left=$(as_user qselect -u "$EZPZ_PBS_USER" </dev/null | grep -Fxf <(printf '%s\n' "${submitted[@]}"))
  check "no test job is left queued ($left)" test -z "$left"
fi
finish
