#!/usr/bin/env bash
# The fake qsub/qstat/qdel are strict: every rule in tests/fake_pbs/README.md has a case the fake must
# refuse with the exact text and exit code of a real OpenPBS 23.06 server, and valid scripts are accepted
# and recorded. (ctest: fake_pbs.strict)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# Debian's Python (scripts/install-deps.sh test), as the fake uses: a version manager's shim costs 0.1 s a call.
python=/usr/bin/python3
[[ -x $python ]] || python=python3

export PATH="$here:$PATH"
export FAKE_PBS_DIR="$workdir/pbs"
export FAKE_PBS_ALLOW_ROOT=1 # CI runs as root; the root rule is tested on its own below
export FAKE_PBS_SUBMIT_HOST=uan-0001
unset FAKE_PBS_SERVER
server=fakepbs-0001.hostmgmt.cm.example
mkdir -p "$FAKE_PBS_DIR"
cat >"$FAKE_PBS_DIR/queues" <<'EOF'
# name max_nodes max_walltime_seconds [min_nodes]; the first is the default queue
workq 64 86400
debug 2 3600
prod 10624 86400 256
EOF
cat >"$FAKE_PBS_DIR/resources" <<'EOF'
filesystems job
system host
EOF

usage=$(
  cat <<'EOF'
usage: qsub [-a date_time] [-A account_string] [-c interval]
	[-C directive_prefix] [-e path] [-f ] [-h ] [-I [-X]] [-j oe|eo] [-J X-Y[:Z]]
	[-k keep] [-l resource_list] [-m mail_options] [-M user_list]
	[-N jobname] [-o path] [-p priority] [-P project] [-q queue] [-r y|n]
	[-R o|e|oe] [-S path] [-u user_list] [-W otherattributes=value...]
	[-v variable_list] [-V ] [-z] [script | -- command [arg1 ...]]
       qsub --version
EOF
)

jobs_count() { find "$FAKE_PBS_DIR/jobs" -mindepth 1 -maxdepth 1 | wc -l; }
qsub_stdin() { # qsub_stdin SCRIPT QSUB_ARGS...: the script on stdin
  local script=$1
  shift
  qsub "$@" <"$script"
}
# script NAME LINE...: writes $workdir/NAME.sh with one line per argument (no CR unless given).
script() {
  local name=$1
  shift
  printf '%s\n' "$@" >"$workdir/$name.sh"
}

# reject DESCRIPTION EXIT EXPECTED_STDERR COMMAND...: refused with exactly that stderr and code,
# nothing on stdout and no job recorded.
reject() {
  local what=$1 code=$2 expected=$3
  shift 3
  local before rc
  before=$(jobs_count)
  "$@" >"$workdir/out" 2>"$workdir/err"
  rc=$?
  check "$what: exit code $code (got $rc)" test "$rc" -eq "$code"
  check "$what: exact stderr" diff <(printf '%s\n' "$expected") "$workdir/err"
  check "$what: nothing on stdout" test ! -s "$workdir/out"
  check "$what: no job recorded" test "$(jobs_count)" -eq "$before"
}

# accept DESCRIPTION COMMAND...: exit 0, the job id alone on stdout, nothing on stderr; sets $job.
accept() {
  local what=$1 rc
  shift
  "$@" >"$workdir/out" 2>"$workdir/err"
  rc=$?
  job=$(cat "$workdir/out")
  check "$what: accepted (exit $rc: $(cat "$workdir/err"))" test "$rc" -eq 0
  check "$what: the job id alone on stdout ($job)" grep -Eqx "[0-9]+\.$server" "$workdir/out"
  check "$what: nothing on stderr" test ! -s "$workdir/err"
  check "$what: job recorded" test -f "$FAKE_PBS_DIR/jobs/$job/attributes.json"
}

# attr JOB PYTHON_EXPRESSION: a value from the recorded attributes (a = the JSON object).
attr() {
  "$python" -c 'import json, sys
a = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(json.dumps(v) if isinstance(v, (dict, list)) else v)' "$FAKE_PBS_DIR/jobs/$1/attributes.json" "$2" 2>&1
}
expect_attr() { # expect_attr DESCRIPTION JOB EXPRESSION EXPECTED
  local got
  got=$(attr "$2" "$3")
  check "$1: $3 = '$4' (got '$got')" test "$got" = "$4"
}

# qstat_json FIELD ID [qstat options...]: one field of the job in `qstat -f -F json` output.
qstat_field() {
  local field=$1 id=$2
  shift 2
  qstat "$@" -f -F json "$id" | "$python" -c 'import json, sys
jobs = json.load(sys.stdin)["Jobs"]
job = jobs[sys.argv[2]]
print(job.get(sys.argv[1], "<absent>"))' "$field" "$id" 2>&1
}

# --- A valid script is accepted and recorded ---------------------------------------------------------
script valid '#!/bin/bash -l' \
  '# shellcheck disable=SC1091 # comments before and between directives are fine' \
  '#PBS -N valid' \
  '#PBS -A MyProject' \
  '#PBS -q debug' \
  '#PBS -l select=2:system=polaris' \
  '' \
  '#PBS -l walltime=30:00' \
  '#PBS -l filesystems=home:eagle' \
  '#PBS -l place=scatter' \
  '#PBS -k doe' \
  'set -e' \
  '#PBS -N ignored-after-the-first-command' \
  'echo hello'
accept "file argument" qsub "$workdir/valid.sh"
check "first job id is 1" test "$job" = "1.$server"
check "the script is recorded byte for byte" cmp -s "$workdir/valid.sh" "$FAKE_PBS_DIR/jobs/$job/script"
check "argv is recorded" grep -q valid.sh "$FAKE_PBS_DIR/jobs/$job/argv.json"
check "the job is queued" test "$(cat "$FAKE_PBS_DIR/jobs/$job/state")" = Q
expect_attr "file argument" "$job" 'a["Job_Name"]' valid
expect_attr "file argument" "$job" 'a["Account_Name"]' MyProject
expect_attr "file argument" "$job" 'a["queue"]' debug
expect_attr "file argument" "$job" 'a["Resource_List"]["select"]' 2:system=polaris
expect_attr "file argument" "$job" 'a["Resource_List"]["nodect"]' 2
expect_attr "file argument" "$job" 'a["fake"]["select_chunks"]' '[{"count": 2, "resources": {"system": "polaris"}}]'
expect_attr "walltime MM:SS is normalised" "$job" 'a["Resource_List"]["walltime"]' 00:30:00
expect_attr "file argument" "$job" 'a["Resource_List"]["filesystems"]' home:eagle
expect_attr "file argument" "$job" 'a["Resource_List"]["place"]' scatter
expect_attr "file argument" "$job" 'a["Keep_Files"]' doe
expect_attr "directives after the first command are ignored" "$job" 'a["fake"]["ignored_directives"][0]["line"]' 13
expect_attr "default output path" "$job" 'a["Output_Path"]' "uan-0001:$PWD/valid.o1"

accept "script on stdin" qsub_stdin "$workdir/valid.sh"
check "job ids count up" test "$job" = "2.$server"
expect_attr "script on stdin, -N in the script" "$job" 'a["Job_Name"]' valid

script plain '#!/bin/bash' 'echo plain'
accept "stdin without -N" qsub_stdin "$workdir/plain.sh"
expect_attr "stdin without -N is named STDIN" "$job" 'a["Job_Name"]' STDIN
expect_attr "without -q the first configured queue is the default" "$job" 'a["queue"]' workq
expect_attr "without select: one node" "$job" 'a["Resource_List"]["nodect"]' 1
accept "file without -N" qsub "$workdir/plain.sh"
expect_attr "a file without -N is named after the file" "$job" 'a["Job_Name"]' plain.sh
accept "'-' reads stdin" qsub_stdin "$workdir/plain.sh" -
expect_attr "'-' reads stdin" "$job" 'a["Job_Name"]' STDIN

script indented '#!/bin/bash' '   #PBS -N indented' '	#PBS -l walltime=90' 'true'
accept "indented directives" qsub "$workdir/indented.sh"
expect_attr "an indented #PBS counts" "$job" 'a["Job_Name"]' indented
expect_attr "walltime SS is normalised" "$job" 'a["Resource_List"]["walltime"]' 00:01:30

script colon '#!/bin/bash' ': a line starting with a colon is not a command' '#PBS -N after-colon' 'true'
accept "a ':' line" qsub "$workdir/colon.sh"
expect_attr "a line starting with ':' does not end the directives" "$job" 'a["Job_Name"]' after-colon

script lower '#!/bin/bash' '#pbs -N lower' '#Pbs -l walltime=bad' 'true'
accept "lower-case #pbs" qsub_stdin "$workdir/lower.sh"
expect_attr "#pbs in lower case is a comment" "$job" 'a["Job_Name"]' STDIN

script norm '#!/bin/bash' '#PBS -l walltime=5:60' 'true'
accept "walltime 5:60" qsub "$workdir/norm.sh"
expect_attr "5:60 is normalised to 6 minutes" "$job" 'a["Resource_List"]["walltime"]' 00:06:00
script norm3 '#!/bin/bash' '#PBS -l walltime=1:2:3' 'true'
accept "walltime H:M:S" qsub "$workdir/norm3.sh"
expect_attr "1:2:3 is normalised" "$job" 'a["Resource_List"]["walltime"]' 01:02:03

accept "command line overrides and adds" qsub -N cli -l walltime=10:00 -q workq -A Other "$workdir/valid.sh"
expect_attr "-N on the command line wins" "$job" 'a["Job_Name"]' cli
expect_attr "-l walltime on the command line wins" "$job" 'a["Resource_List"]["walltime"]' 00:10:00
expect_attr "-q on the command line wins" "$job" 'a["queue"]' workq
expect_attr "-A on the command line wins" "$job" 'a["Account_Name"]' Other
expect_attr "directive resources the command line did not set stay" "$job" 'a["Resource_List"]["select"]' 2:system=polaris

accept "several resources in one -l" qsub -l select=1:ncpus=1,walltime=00:10:00 "$workdir/plain.sh"
expect_attr "several resources in one -l" "$job" 'a["Resource_List"]["walltime"]' 00:10:00
expect_attr "several resources in one -l" "$job" 'a["Resource_List"]["select"]' 1:ncpus=1

script many '#!/bin/bash' '#PBS -l select=1:ncpus=4:mpiprocs=4+2:ncpus=8' '#PBS -l place=scatter:exclhost' 'true'
accept "select with several chunks" qsub "$workdir/many.sh"
expect_attr "select with several chunks" "$job" 'a["Resource_List"]["nodect"]' 3
expect_attr "select with several chunks" "$job" 'a["Resource_List"]["ncpus"]' 20
expect_attr "place with sharing" "$job" 'a["Resource_List"]["place"]' scatter:exclhost

script cont '#!/bin/bash' "#PBS -N continued \\" '  -l walltime=20' 'true'
accept "a directive continued with a backslash" qsub "$workdir/cont.sh"
expect_attr "continued directive" "$job" 'a["Resource_List"]["walltime"]' 00:00:20

accept "-h holds the job" qsub -h "$workdir/plain.sh"
held=$job
check "a held job's state is H" test "$(cat "$FAKE_PBS_DIR/jobs/$held/state")" = H
expect_attr "-h" "$held" 'a["Hold_Types"]' u
accept "other options" qsub -j oe -m abe -M me@example.com -r n -V -o out.log -e /tmp/err.log \
  -W depend=afterok:1.$server "$workdir/plain.sh"
expect_attr "-j" "$job" 'a["Join_Path"]' oe
expect_attr "-m" "$job" 'a["Mail_Points"]' abe
expect_attr "-M" "$job" 'a["Mail_Users"]' me@example.com
expect_attr "-r n" "$job" 'a["Rerunable"]' False
expect_attr "-V" "$job" 'a["fake"]["V"]' True
expect_attr "-o relative" "$job" 'a["Output_Path"]' "uan-0001:$PWD/out.log"
expect_attr "-e absolute" "$job" 'a["Error_Path"]' uan-0001:/tmp/err.log
expect_attr "-W depend" "$job" 'a["depend"]' "afterok:1.$server"

long_name=$(printf 'n%.0s' {1..230})
accept "a 230-character name" qsub -N "$long_name" "$workdir/plain.sh"

# --- Script rules ---------------------------------------------------------------------------------------
printf '#!/bin/bash\r\n#PBS -N crlf\r\ntrue\r\n' >"$workdir/crlf.sh"
reject "CRLF line endings" 1 "qsub: script contains cr, lf" qsub "$workdir/crlf.sh"
printf '#!/bin/bash\n#PBS -N crlf\ntrue\r\n' >"$workdir/crlf2.sh"
reject "one CRLF line after the directives" 1 "qsub: script contains cr, lf" qsub_stdin "$workdir/crlf2.sh"

script comment '#!/bin/bash' '#PBS -l walltime=00:10:00 # ten minutes' 'true'
reject "trailing comment on a directive" 1 "qsub: directive error: -l walltime=00:10:00 # ten minutes " \
  qsub "$workdir/comment.sh"
reject "trailing comment on a directive (stdin)" 1 "qsub: directive error: -l walltime=00:10:00 # ten minutes " \
  qsub_stdin "$workdir/comment.sh"
script comment2 '#!/bin/bash' '  #PBS -N job #name' 'true'
reject "trailing comment on an indented directive" 1 "qsub: directive error: -N job #name " qsub "$workdir/comment2.sh"

script spacename '#!/bin/bash' '#PBS -N my job' 'true'
reject "a job name with a space (directive)" 1 "qsub: directive error: -N my job " qsub "$workdir/spacename.sh"
reject "a job name with a space (command line)" 2 "qsub: illegal -N value
$usage" qsub -N "my job" "$workdir/plain.sh"
reject "a name over 230 characters (command line)" 2 "qsub: Job name is too long" \
  qsub -N "${long_name}x" "$workdir/plain.sh"
script longname '#!/bin/bash' "#PBS -N ${long_name}x" 'true'
reject "a name over 230 characters (directive)" 2 "qsub: Job name is too long" qsub "$workdir/longname.sh"

script badr '#!/bin/bash' '#PBS -r x' 'true'
reject "bad -r in a directive" 1 "qsub: illegal -r value
qsub: directive error: -r x " qsub "$workdir/badr.sh"
script unmatched '#!/bin/bash' '#PBS -N "open' 'true'
reject "unmatched quote in a directive" 1 'qsub: unmatched "' qsub "$workdir/unmatched.sh"
reject "missing script file" 1 "qsub: script file:: No such file or directory" qsub "$workdir/nope.sh"

# --- Resources -------------------------------------------------------------------------------------------
for bad in 1:00:00:00 abc -5 1h 10.5 ''; do
  reject "walltime '$bad'" 166 "qsub: Illegal attribute or resource value Resource_List.walltime" \
    qsub -l "walltime=$bad" "$workdir/plain.sh"
done
script badwall '#!/bin/bash' '#PBS -l walltime=25:00:00:00' 'true'
reject "bad walltime in a directive" 166 "qsub: Illegal attribute or resource value Resource_List.walltime" \
  qsub "$workdir/badwall.sh"
reject "unknown job-wide resource" 187 "qsub: Unknown resource Resource_List.foo" \
  qsub -l foo=1 "$workdir/plain.sh"
reject "unknown chunk resource" 187 "qsub: Unknown resource Resource_List.gpus" \
  qsub -l select=1:gpus=4 "$workdir/plain.sh"
reject "job-wide resource inside a chunk" 4 'qsub: Resource invalid in "select" specification walltime' \
  qsub -l select=1:walltime=10 "$workdir/plain.sh"
reject "select=0" 166 "qsub: Illegal attribute or resource value Resource_List.select" \
  qsub -l select=0 "$workdir/plain.sh"
reject "bad chunk value" 166 "qsub: Illegal attribute or resource value Resource_List.select" \
  qsub -l select=1:ncpus=many "$workdir/plain.sh"
reject "bad place" 166 "qsub: Illegal attribute or resource value Resource_List.place" \
  qsub -l select=1 -l place=spread "$workdir/plain.sh"
reject "place with two arrangements" 166 "qsub: Illegal attribute or resource value Resource_List.place" \
  qsub -l select=1,place=pack:scatter "$workdir/plain.sh"
reject "-l nodes with select" 5 'qsub: "-lresource=" cannot be used with "select" or "place", resource is: nodes' \
  qsub -l nodes=2 "$workdir/valid.sh"
reject "-l ncpus with select" 5 'qsub: "-lresource=" cannot be used with "select" or "place", resource is: ncpus' \
  qsub -l select=2,ncpus=4 "$workdir/plain.sh"
reject "-l ncpus with place" 5 'qsub: "-lresource=" cannot be used with "select" or "place", resource is: ncpus' \
  qsub -l ncpus=4 -l place=scatter "$workdir/plain.sh"
accept "-l nodes alone (legacy)" qsub -l nodes=3:ppn=4 "$workdir/plain.sh"
expect_attr "-l nodes alone" "$job" 'a["Resource_List"]["nodect"]' 3
reject "-l without a value" 2 "qsub: illegal -l value
$usage" qsub -l walltime "$workdir/plain.sh"

mv "$FAKE_PBS_DIR/resources" "$FAKE_PBS_DIR/resources.saved"
printf 'filesystems job\n' >"$FAKE_PBS_DIR/resources"
reject "a site resource this server does not define" 187 "qsub: Unknown resource Resource_List.system" \
  qsub "$workdir/valid.sh"
printf '# a generic OpenPBS server: no site resources\n' >"$FAKE_PBS_DIR/resources"
reject "filesystems on a server without it" 187 "qsub: Unknown resource Resource_List.filesystems" \
  qsub -l filesystems=home "$workdir/plain.sh"
mv "$FAKE_PBS_DIR/resources.saved" "$FAKE_PBS_DIR/resources"

# --- Queues ------------------------------------------------------------------------------------------------
reject "unknown queue" 170 "qsub: Unknown queue" qsub -q nope "$workdir/plain.sh"
reject "over the queue's nodes" 188 "qsub: Job violates queue and/or server resource limits" \
  qsub -l select=3 "$workdir/valid.sh"
reject "over the queue's walltime" 188 "qsub: Job violates queue and/or server resource limits" \
  qsub -l walltime=01:00:01 "$workdir/valid.sh"
reject "under the queue's minimum nodes" 188 "qsub: Job violates queue and/or server resource limits" \
  qsub -q prod "$workdir/valid.sh"
accept "at the queue's limits" qsub -l walltime=01:00:00 "$workdir/valid.sh"
accept "queue@server" qsub -q "debug@$server" "$workdir/valid.sh"
reject "queue at another server" 162 "qsub: cannot connect to server other.example (errno=15010)" \
  qsub -q debug@other.example "$workdir/valid.sh"
mv "$FAKE_PBS_DIR/queues" "$FAKE_PBS_DIR/queues.saved"
accept "no queues file: workq" qsub "$workdir/plain.sh"
expect_attr "no queues file: workq" "$job" 'a["queue"]' workq
reject "no queues file: workq allows 64 nodes" 188 "qsub: Job violates queue and/or server resource limits" \
  qsub -l select=65 "$workdir/plain.sh"
reject "no queues file: workq allows 24 hours" 188 "qsub: Job violates queue and/or server resource limits" \
  qsub -l walltime=24:00:01 "$workdir/plain.sh"
mv "$FAKE_PBS_DIR/queues.saved" "$FAKE_PBS_DIR/queues"

# --- Options ------------------------------------------------------------------------------------------------
for opt in "-j x" "-j o" "-k x" "-k oo" "-m z" "-m an"; do
  read -r flag value <<<"$opt"
  reject "bad $flag value '$value'" 2 "qsub: illegal $flag value
$usage" qsub "$flag" "$value" "$workdir/plain.sh"
done
script badj '#!/bin/bash' '#PBS -j x' 'true'
reject "bad -j in a directive" 2 "qsub: illegal -j value
$usage" qsub "$workdir/badj.sh"
reject "bad -W depend" 2 "qsub: illegal -W value
$usage" qsub -W depend=afterwards:1 "$workdir/plain.sh"
reject "bad -r" 2 "qsub: illegal -r value
$usage" qsub -r maybe "$workdir/plain.sh"
reject "unknown option" 2 "qsub: invalid option -- 'Z'
$usage" qsub -Z "$workdir/plain.sh"
script longopt '#!/bin/bash' '#PBS --time=10' 'true'
reject "a long (Slurm) option in a directive" 1 "qsub: unrecognized option '--time=10'
qsub: directive error: --time=10 " qsub "$workdir/longopt.sh"
reject "an option the fake does not model" 2 "qsub: option -J is not modelled by the fake PBS (tests/fake_pbs/README.md)
$usage" qsub -J 1-4 "$workdir/plain.sh"
reject "two scripts" 2 "$usage" qsub "$workdir/plain.sh" "$workdir/plain.sh"
reject "an option after the script" 2 "$usage" qsub "$workdir/plain.sh" -N late

# --- Server ---------------------------------------------------------------------------------------------------
touch "$FAKE_PBS_DIR/down"
reject "server down" 162 "qsub: cannot connect to server $server (errno=15010)" qsub "$workdir/plain.sh"
rm "$FAKE_PBS_DIR/down"
if ((EUID == 0)); then
  reject "root is refused" 175 "qsub: Bad UID for job execution" env -u FAKE_PBS_ALLOW_ROOT qsub "$workdir/plain.sh"
fi
env -u FAKE_PBS_DIR qsub "$workdir/plain.sh" >/dev/null 2>"$workdir/err"
check "FAKE_PBS_DIR unset: exit 99" test $? -eq 99
check "FAKE_PBS_DIR unset: says so" grep -q 'FAKE_PBS_DIR is not set' "$workdir/err"
check "every call is recorded" test "$(grep -c '"cmd": "qsub"' "$FAKE_PBS_DIR/calls.jsonl")" -gt 50

# --- qstat ---------------------------------------------------------------------------------------------------------
first=1.$server
check "qstat: queued" test "$(qstat_field job_state "$first")" = Q
check "qstat: name" test "$(qstat_field Job_Name "$first")" = valid
check "qstat: queue" test "$(qstat_field queue "$first")" = debug
check "qstat: output path" test "$(qstat_field Output_Path "$first")" = "uan-0001:$PWD/valid.o1"
check "qstat: no exit status while queued" test "$(qstat_field Exit_status "$first")" = "<absent>"
check "qstat: held" test "$(qstat_field job_state "$held")" = H
check "qstat -x shows queued jobs too" test "$(qstat_field job_state "$first" -x)" = Q
check "qstat: a short id resolves" test "$(qstat -f -F json 1 | "$python" -c 'import json,sys; print(*json.load(sys.stdin)["Jobs"])')" = "$first"
echo R >"$FAKE_PBS_DIR/jobs/$first/state"
check "qstat: running (driven by the state file)" test "$(qstat_field job_state "$first")" = R
echo F >"$FAKE_PBS_DIR/jobs/$first/state"
echo 3 >"$FAKE_PBS_DIR/jobs/$first/exit_status"
reject "qstat without -x: finished" 35 \
  "qstat: $first Job has finished, use -x or -H to obtain historical job information" qstat -f -F json "$first"
check "qstat -x: finished" test "$(qstat_field job_state "$first" -x)" = F
check "qstat -x: exit status" test "$(qstat_field Exit_status "$first" -x)" = 3
check "qstat -xf combined flags" bash -c "qstat -xf -F json '$first' | grep -q '\"Exit_status\": 3'"
touch "$FAKE_PBS_DIR/no_history"
reject "qstat -x without job history" 153 "qstat: Unknown Job Id $first" qstat -x -f -F json "$first"
rm "$FAKE_PBS_DIR/no_history"
reject "qstat: unknown job" 153 "qstat: Unknown Job Id 999.$server" qstat -f -F json "999.$server"
reject "qstat: malformed id" 1 "qstat: illegally formed job identifier: abc" qstat -f -F json abc
touch "$FAKE_PBS_DIR/down"
reject "qstat: server down" 162 "qstat: cannot connect to server $server (errno=15010)" qstat -f -F json "$first"
rm "$FAKE_PBS_DIR/down"
echo Z >"$FAKE_PBS_DIR/jobs/2.$server/state"
qstat -f -F json "2.$server" >/dev/null 2>"$workdir/err"
check "qstat: a bad state file is a loud fake error" test $? -eq 99
echo Q >"$FAKE_PBS_DIR/jobs/2.$server/state"

# --- qdel -----------------------------------------------------------------------------------------------------------
queued=2.$server
check "qdel a queued job" qdel "$queued"
check "qdel: a deleted queued job is finished" test "$(qstat_field job_state "$queued" -x)" = F
check "qdel: a job that never ran has no exit status" test "$(qstat_field Exit_status "$queued" -x)" = "<absent>"
check "qdel: substate 91 (deleted)" test "$(qstat_field substate "$queued" -x)" = 91
running=3.$server
echo R >"$FAKE_PBS_DIR/jobs/$running/state"
check "qdel a running job" qdel "$running"
check "qdel: a deleted running job has Exit_status 271 (256 + SIGTERM, as OpenPBS 23.06 showed)" \
  test "$(qstat_field Exit_status "$running" -x)" = 271
check "qdel: a deleted running job has substate 91" test "$(qstat_field substate "$running" -x)" = 91
reject "qdel: finished job" 35 "qdel: Job has finished $first" qdel "$first"
reject "qdel: unknown job" 153 "qdel: Unknown Job Id 999.$server" qdel "999.$server"
reject "qdel: no job id" 2 "usage:
	qdel [-W force|suppress_email=X] [-x] job_identifier...
	qdel --version" qdel
touch "$FAKE_PBS_DIR/down"
reject "qdel: server down" 162 "Couldn't connect to cluster: $server" qdel "$held"
rm "$FAKE_PBS_DIR/down"

# --- a closed standard input (OpenPBS 23.06: the server socket gets fd 0, "cannot connect", exit 0) --------------
qstat -x -f -F json "$first" <&- >"$workdir/out" 2>"$workdir/err"
check "qstat with fd 0 closed exits 0" test $? -eq 0
check "qstat with fd 0 closed prints no job" test ! -s "$workdir/out"
check "qstat with fd 0 closed says it cannot connect" grep -qx "qstat: cannot connect to server $server (errno=0)" "$workdir/err"
qdel "$held" <&- 2>"$workdir/err"
check "qdel with fd 0 closed exits 0" test $? -eq 0
check "qdel with fd 0 closed says it cannot connect" grep -qx "Couldn't connect to cluster: $server" "$workdir/err"
check "qdel with fd 0 closed deletes nothing" test "$(qstat_field job_state "$held")" = H
check "qstat with /dev/null as stdin answers" test "$(qstat_field job_state "$held" </dev/null)" = H

finish
