#!/usr/bin/env bash
# `ezpz doctor` in simulated sites, each check made to report each status it can, with real components
# where a real one can produce the case: MPICH's and Open MPI's mpiexec and libraries (a program built
# with each), small tmpfs mounts (full, read-only), a venv without torch and Debian's python3 with it,
# a module function without MODULEPATH. Stand-ins only for a scheduler that hangs or refuses.
# --json is checked against docs/doctor.schema.json.
#   doctor_test.sh EZPZ
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
ezpz=$1
root=$(cd "$here/../.." && pwd)
python=/usr/bin/python3
cd "$workdir" || exit 1
for tool in mpicc.mpich mpicc.openmpi mpiexec.mpich mpiexec.openmpi; do
  command -v "$tool" >/dev/null || cannot_run "$tool is missing (scripts/install-deps.sh test installs it)"
done
"$python" -c 'import torch' 2>/dev/null || cannot_run "Debian's python3-torch is missing"
unset EZPZ_SYSTEM PBS_JOBID PBS_NODEFILE SLURM_JOB_ID SLURM_JOB_NODELIST MASTER_ADDR MASTER_PORT MODULEPATH BASH_ENV
# Every program a check runs gets a minute: python3 importing torch takes seconds on a loaded 2-core CI
# machine (3 s was too short under the sanitizers). The hanging server below gets 3 s.
export EZPZ_SYSTEMS_PATH=$workdir/systems EZPZ_SCHEDULER_TIMEOUT=60
mkdir -p systems bin

# doctor ARGS…: runs ezpz doctor --json into $workdir/report.json (its exit code in $code).
# Every run also checks the exit code's rule: 1 when a finding is an error, else 0 (warnings too).
doctor() {
  "$ezpz" doctor --json "$@" >report.json 2>doctor.err
  code=$?
  local worst
  worst=$("$python" -c 'import json
s = {f["status"] for f in json.load(open("report.json"))["findings"]}
print("error" if "error" in s else "warn" if "warn" in s else "ok")' 2>/dev/null) || return 0
  local want=0
  [[ $worst == error ]] && want=1
  check "doctor $*: worst finding $worst, exit $code (expected $want)" test "$code" -eq "$want"
  [[ $worst == warn ]] && warn_runs=$((warn_runs + 1))
  return 0
}
warn_runs=0
# field CHECK KEY: status, finding or remedy of the first finding of CHECK in report.json.
field() {
  "$python" -c 'import json, sys
for f in json.load(open("report.json"))["findings"]:
    if f["check"] == sys.argv[1]:
        print(f[sys.argv[2]]); break' "$1" "$2" 2>/dev/null
}
# expect CHECK STATUS TEXT DESCRIPTION: the check reports STATUS and its finding contains TEXT.
expect() {
  local status finding
  status=$(field "$1" status)
  finding=$(field "$1" finding)
  check "$4: $1 is $2 (got $status: $finding; $(head -c 200 doctor.err))" test "$status" = "$2"
  check "$4: $1 finding says '$3' (got: $finding)" grep -qF -- "$3" <<<"$finding"
  if [[ $2 != ok ]]; then check "$4: $1 has a remedy" test -n "$(field "$1" remedy)"; fi
}
# profile NAME YAML…: a system profile of the test's own.
profile() {
  local name=$1
  shift
  printf '%s\n' "$@" >"systems/$name.yaml"
}
validate_schema() {
  "$python" - "$root/docs/doctor.schema.json" report.json <<'PY'
import json, sys
schema, doc = (json.load(open(p)) for p in sys.argv[1:3])
types = {"object": dict, "array": list, "string": str, "integer": int, "null": type(None)}
def resolve(s):
    while "$ref" in s:
        target = schema
        for part in s["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        s = target
    return s
def check(value, s, where):
    s = resolve(s)
    allowed = s.get("type")
    if allowed is not None:
        allowed = allowed if isinstance(allowed, list) else [allowed]
        assert any(isinstance(value, types[t]) and not (t == "integer" and isinstance(value, bool)) for t in allowed), f"{where}: {value!r} is not {allowed}"
    if "enum" in s: assert value in s["enum"], f"{where}: {value!r} not in {s['enum']}"
    if "const" in s: assert value == s["const"], f"{where}: {value!r} is not {s['const']}"
    if isinstance(value, dict):
        for key in s.get("required", []): assert key in value, f"{where}: missing {key}"
        if s.get("additionalProperties") is False:
            extra = set(value) - set(s.get("properties", {}))
            assert not extra, f"{where}: unexpected {extra}"
        for key, sub in s.get("properties", {}).items():
            if key in value: check(value[key], sub, f"{where}.{key}")
    if isinstance(value, list) and "items" in s:
        for i, item in enumerate(value): check(item, s["items"], f"{where}[{i}]")
check(doc, schema, "report")
PY
}

# --- the plain machine: the local profile, JSON against the schema ---
PATH=/usr/bin:/bin doctor --system local
check "local: exit 0 when nothing is an error (got $code)" test "$code" -eq 0
check "local: the report matches docs/doctor.schema.json ($(validate_schema 2>&1 | tail -n 1))" validate_schema
expect system ok "local (by --system)" "local"
PATH=/usr/bin:/bin "$ezpz" doctor --system local >text.out 2>&1
check "text report: a line per check and a summary ($(tail -n 1 text.out))" grep -qE '^[0-9]+ ok, 0 warning\(s\), 0 error\(s\)$' text.out

# --- system: a named system that does not match, a job of another scheduler ---
PBS_JOBID=1.aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov EZPZ_NODE_NAME=x1 doctor --system polaris
expect system warn "this machine looks like aurora" "system mismatch"
SLURM_JOB_ID=7 doctor --system polaris
expect system error "but polaris submits with pbs" "job of another scheduler"
check "an error makes exit 1 (got $code)" test "$code" -eq 1

# --- scheduler: not on PATH, refusing, hanging (stand-ins), answering ---
profile drpbs "extends: pbs" "node: {node_local: ''}"
PATH=$workdir/bin:/usr/bin:/bin doctor --system drpbs
expect scheduler error "qstat is not on PATH" "no scheduler commands"
printf '#!/bin/sh\necho "qstat: cannot connect to server ezpz-pbs (errno=15010)" >&2\nexit 1\n' >bin/qstat
chmod +x bin/qstat
PATH=$workdir/bin:$PATH doctor --system drpbs
expect scheduler error "cannot connect to server" "a refusing server"
printf '#!/bin/sh\nsleep 30\n' >bin/qstat
EZPZ_SCHEDULER_TIMEOUT=3 PATH=$workdir/bin:$PATH doctor --system drpbs
expect scheduler error "did not answer in time" "a hanging server"
printf '#!/bin/sh\necho "Server  Max  Tot"\n' >bin/qstat
PATH=$workdir/bin:$PATH doctor --system drpbs
expect scheduler ok "qstat -B answered in" "an answering server"
rm -f bin/qstat

# --- launcher and MPI library: MPICH's and Open MPI's real mpiexec and libraries ---
profile drhydra "extends: local" "launcher: {family: hydra, kind: mpiexec, args: ['mpiexec -n {total_ranks}'], rank_wrapper: true}"
printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n' >hello.c
mpicc.mpich hello.c -o hello-mpich && mpicc.openmpi hello.c -o hello-openmpi
check "both MPI programs built" test -x hello-mpich -a -x hello-openmpi
ln -sf "$(command -v mpiexec.mpich)" bin/mpiexec
PATH=$workdir/bin:$PATH doctor --system drhydra --binary hello-mpich
expect launcher ok "mpiexec is MPICH Hydra" "MPICH's mpiexec for a hydra profile"
expect mpi ok "links mpich" "an MPICH program under Hydra"
PATH=$workdir/bin:$PATH doctor --system drhydra --binary hello-openmpi
expect mpi error "which MPICH Hydra cannot start: every rank would be rank 0 of 1" "an Open MPI program under Hydra"
ln -sf "$(command -v mpiexec.openmpi)" bin/mpiexec
PATH=$workdir/bin:$PATH doctor --system drhydra --binary /bin/true
expect launcher error "mpiexec on PATH is Open MPI, but drhydra launches with MPICH Hydra" "Open MPI's mpiexec for a hydra profile"
expect mpi ok "links no MPI library" "a program without MPI"
profile drnofamily "extends: local" "launcher: {family: null, kind: mpiexec, args: ['mpiexec -n {total_ranks}']}"
PATH=$workdir/bin:$PATH doctor --system drnofamily --binary hello-mpich
expect launcher warn "does not name its family" "a profile without launcher.family"
expect mpi warn "links mpich" "an MPI program where the profile names no launcher family"
PATH=$workdir/bin:$PATH doctor --system drhydra --binary "$workdir/no-such-program"
expect mpi error "ldd $workdir/no-such-program failed" "a program that does not exist"
# A program whose MPI library the loader cannot find: ldd says "not found" (the review found it was ok).
printf 'int f(void) { return 0; }\n' >stub.c
printf 'int f(void);\nint main(void) { return f(); }\n' >needs.c
gcc -shared -fPIC -o libmpi.so.12 -Wl,-soname,libmpi.so.12 stub.c && gcc needs.c -L. -l:libmpi.so.12 -o needs-mpi
rm -f libmpi.so.12
PATH=$workdir/bin:$PATH doctor --system drhydra --binary needs-mpi
expect mpi error "the loader cannot find its MPI library" "an MPI library that is not found"
rm -f bin/mpiexec  # a link to a real mpiexec: writing through it would replace that
printf '#!/bin/sh\necho "mpiexec 1.0"\n' >bin/mpiexec && chmod +x bin/mpiexec
PATH=$workdir/bin:$PATH doctor --system drhydra
expect launcher warn "cannot tell which launcher mpiexec is" "an unknown mpiexec"
rm -f bin/mpiexec
PATH=$workdir/bin:/usr/sbin:/sbin doctor --system drhydra
expect launcher error "is not on PATH" "no mpiexec"

# --- devices: from the vendor's visibility variable (no device nodes here) ---
profile drgpu "extends: local" "node: {devices: {kind: cuda, count: 4, visibility: CUDA_VISIBLE_DEVICES}}"
doctor --system drgpu
expect devices ok "expected on a login node" "a login node without GPUs"
PBS_JOBID=9.x PBS_NODEFILE=/dev/null doctor --system drgpu
expect devices error "sees no accelerator" "a compute node without GPUs"
PBS_JOBID=9.x CUDA_VISIBLE_DEVICES=0,1 doctor --system drgpu
expect devices warn "sees 2 x cuda" "a compute node with 2 of 4 GPUs"
PBS_JOBID=9.x CUDA_VISIBLE_DEVICES=0,1,2,3 doctor --system drgpu
expect devices ok "sees 4 x cuda" "a compute node with its 4 GPUs"
PBS_JOBID=9.x ROCR_VISIBLE_DEVICES=0,1,2,3 doctor --system drgpu
expect devices error "another kind of device" "AMD GPUs where NVIDIA's were expected"

# --- node-local storage: real tmpfs mounts, writable, full and read-only ---
mkdir -p nl-ok nl-full nl-ro
if mount -t tmpfs -o size=4m tmpfs nl-ok 2>/dev/null; then
  mount -t tmpfs -o size=1m tmpfs nl-full && mount -t tmpfs -o size=1m,ro tmpfs nl-ro
  trap 'umount "$workdir"/nl-* 2>/dev/null; rm -rf "$workdir"' EXIT
  dd if=/dev/zero of=nl-full/fill bs=64k 2>/dev/null
  for state in ok full ro; do profile "drnl$state" "extends: local" "node: {node_local: $workdir/nl-$state}"; done
  doctor --system drnlok
  expect node-local ok "is writable, 0.0 GiB free" "a writable tmpfs"
  head -c 3000000 /dev/zero >big.bin
  printf 'system: drnlok\nrun: [x]\nstage: [{src: %s, dest: %s/big.bin}]\n' "$workdir/big.bin" "$workdir/nl-ok" >stage.yaml
  doctor stage.yaml
  expect node-local ok "enough for stage:" "a stage that fits"
  head -c 5000000 /dev/zero >big.bin
  doctor stage.yaml
  expect node-local error "but stage: copies" "a stage larger than the free space"
  doctor --system drnlfull
  expect node-local error "it is full" "a full tmpfs"
  doctor --system drnlro
  expect node-local error "is not writable: Read-only file system" "a read-only tmpfs"
  # A profile may name it by the user's variable (Frontier: /mnt/bb/$USER).
  mkdir -p nl-ok/doctor-user
  # shellcheck disable=SC2016 # the profile holds $USER, the doctor expands it
  profile drnluser "extends: local" 'node: {node_local: '"$workdir"'/nl-ok/$USER}'
  USER=doctor-user doctor --system drnluser
  expect node-local ok "nl-ok/doctor-user is writable" "a node-local path with \$USER"
  profile drnlmissing "extends: local" "node: {node_local: $workdir/nl-missing}"
  doctor --system drnlmissing
  expect node-local warn "does not exist here (a login node)" "a missing directory on a login node"
  PBS_JOBID=9.x doctor --system drnlmissing
  expect node-local error "does not exist here" "a missing directory in a job"
else
  cannot_run "cannot mount a tmpfs (needs root): the node-local checks are not run"
fi

# --- modules: no module command, one without MODULEPATH, missing and found modules ---
mkdir -p modulefiles/torchmod
: >modulefiles/torchmod/2.1.lua
# A module function that answers as Lmod's does: load succeeds for a NAME or NAME.lua under MODULEPATH
# and fails with Lmod's message otherwise.
cat >module-init.sh <<'LMOD'
module() {
  [ "$1" = load ] || return 0
  local dir
  for dir in ${MODULEPATH//:/ }; do
    if [ -e "$dir/$2" ] || [ -e "$dir/$2.lua" ]; then return 0; fi
  done
  echo "Lmod has detected the following error: The following module(s) are unknown: \"$2\"" >&2
  return 1
}
LMOD
profile drmod "extends: local" "shell: /bin/bash"
printf 'system: drmod\nrun: [x]\nmodules: [torchmod/2.1]\n' >mod.yaml
printf 'system: drmod\nrun: [x]\nmodules: [torchmod/9.9]\n' >mod-missing.yaml
doctor --system drmod
expect modules ok "no module command in /bin/bash, and the job loads no modules" "no modules needed"
doctor mod.yaml
expect modules error "has no module command" "modules without a module command"
BASH_ENV=$workdir/module-init.sh doctor mod.yaml
expect modules error "MODULEPATH is not set" "a module command without MODULEPATH (non-login shell)"
BASH_ENV=$workdir/module-init.sh doctor --system drmod
expect modules warn "MODULEPATH is not set" "a module command without MODULEPATH, no modules needed"
BASH_ENV=$workdir/module-init.sh MODULEPATH=$workdir/modulefiles doctor mod-missing.yaml
expect modules error "module load torchmod/9.9 fails: Lmod has detected the following error" "a module that does not exist"
BASH_ENV=$workdir/module-init.sh MODULEPATH=$workdir/modulefiles doctor mod.yaml
expect modules ok "loaded torchmod/2.1" "a module that exists"

# --- python: Debian's python3 with torch, a venv without it, a failing setup, an activation that did nothing ---
"$python" -m venv notorch
# shellcheck disable=SC2016 # $PATH is the job's
printf 'system: local\nrun: [x]\nsetup: export PATH=/usr/bin:$PATH\n' >py-ok.yaml
printf 'system: local\nrun: [x]\nsetup: source %s/notorch/bin/activate\n' "$workdir" >py-venv.yaml
printf 'system: local\nrun: [x]\nsetup: source %s/missing/bin/activate\n' "$workdir" >py-fail.yaml
# shellcheck disable=SC2016 # $PATH is the job's
printf 'system: local\nrun: [x]\nsetup: |\n  export PATH=/usr/bin:$PATH\n  activate() { :; }\n  activate myenv\n' >py-noop.yaml
PATH=/usr/bin:/bin doctor py-ok.yaml
expect python ok "/usr/bin/python3 has torch" "Debian's python3-torch"
doctor py-venv.yaml
expect python error "notorch/bin/python3 (after the job's setup) cannot import torch: ModuleNotFoundError" "a venv without torch"
doctor py-fail.yaml
expect python error "the job's setup failed (exit code 1): " "a setup that fails"
expect python error "missing/bin/activate: No such file or directory" "a setup that fails, with its message"
PATH=/usr/bin:/bin doctor py-noop.yaml
expect python warn "setup: activates an environment and python3 is still /usr/bin/python3" "an activation that did nothing"
PBS_JOBID=9.x PBS_NODEFILE=/dev/null PATH=/usr/bin:/bin doctor --system drgpu --set setup=true
expect python error "which sees no cuda device on this compute node" "torch without the GPUs the profile has"

# --- allocation: a PBS job's host file against the spec ---
printf 'n1\nn1\nn2\nn2\n' >nodefile
for nodes in four:4 two:2 one:1; do printf 'system: drpbs\nrun: [x]\nnodes: %s\n' "${nodes#*:}" >"${nodes%:*}.yaml"; done
PBS_JOBID=9.x PBS_NODEFILE=$workdir/nodefile doctor four.yaml
expect allocation error "but the spec asks for 4 node(s)" "a spec over the allocation"
PBS_JOBID=9.x PBS_NODEFILE=$workdir/nodefile doctor one.yaml
expect allocation warn "the rest stay idle" "a spec under the allocation"
PBS_JOBID=9.x PBS_NODEFILE=$workdir/nodefile doctor two.yaml
expect allocation ok "2 node(s) from PBS_NODEFILE" "a spec that fits"
PBS_JOBID=9.x PBS_NODEFILE=$workdir/missing doctor two.yaml
expect allocation error "cannot read the allocation" "an unreadable host file"
doctor two.yaml
expect allocation ok "not inside a job" "a login node"

# --- rendezvous: a host that does not resolve, a port in use ---
MASTER_ADDR=no-such-host.invalid doctor --system local
expect rendezvous error "does not resolve here" "an unresolvable MASTER_ADDR"
"$python" -c 'import socket, time; s = socket.socket(); s.bind(("", 29533)); s.listen(); time.sleep(30)' &
holder=$!
sleep 0.5
MASTER_PORT=29533 doctor --system local
expect rendezvous warn "127.0.0.1:29533 (all ranks on this node): the port cannot be bound here" "a port another process holds"
kill "$holder"
wait "$holder" 2>/dev/null
MASTER_PORT=99999 doctor --system local
expect rendezvous error "MASTER_PORT='99999' is not a TCP port" "a port number out of range"
MASTER_PORT=29533 doctor --system local
expect rendezvous ok "the host resolves and the port is free" "a free port"
check "some runs had warnings and no error, and exited 0 ($warn_runs)" test "$warn_runs" -gt 0
finish
