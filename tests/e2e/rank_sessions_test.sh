#!/usr/bin/env bash
# Local ranks each in a session of their own: with the kernel's autogroup scheduling a session is one
# scheduling group, so ranks kept in the caller's session shared one process's CPU time on a busy
# machine (bench/launch-load). Checked: every rank leads its own session, which its children and
# grandchildren stay in, with an autogroup of its own that keeps the launch's nice value; and nothing
# of that is lost: SIGINT to `ezpz launch` and Ctrl-C in its terminal reach every rank, child and
# grandchild (exit 130), and after a SIGKILL of the launch its guardian ends every one of them, a
# grandchild that ignores SIGTERM included (tests/e2e/session_rank.py is the ranks' program).
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1
rank_program=$here/session_rank.py
[[ -x /usr/bin/python3 ]] || cannot_run "/usr/bin/python3 is missing (Debian package python3)"
command -v script >/dev/null || cannot_run "script is missing (Debian package bsdutils)"

marker="ezpz-rank-sessions-test-$$"
left() { pgrep -f "[e]${marker#e}"; }  # the bracket keeps pgrep from finding itself
field() { cut -d' ' -f"$2" <"$1"; }
session_of() { local stat; stat=$(cat "/proc/$1/stat") && stat=${stat##*) } && cut -d' ' -f4 <<<"$stat"; }
# wait_up DIR: until both ranks, their children and grandchildren have written their line (6 lines).
wait_up() {
  for _ in $(seq 200); do
    [[ $(cat "$1"/up* 2>/dev/null | wc -l) -ge 6 ]] && return 0
    sleep 0.05
  done
  return 1
}
wait_gone() {
  for _ in $(seq "$1"); do
    [[ -z $(left) ]] && return 0
    sleep 0.1
  done
  return 1
}
# every_int DIR: SIGINT reached every rank, child and grandchild.
every_int() {
  local rank
  for rank in 0 1; do
    [[ $(sort "$1/int$rank" 2>/dev/null | tr '\n' ' ') == "child grandchild rank " ]] || return 1
  done
}
show() { tail -c 300 "$1" 2>/dev/null | tr '\n' ' '; }

# 1. Sessions and autogroups, then SIGINT to the launch (as `kill -INT` or a job's signal sends it).
mkdir "$workdir/int"
nice -n 3 "$ezpz" launch --system local -n 2 -- /usr/bin/python3 "$rank_program" rank "$workdir/int" "$marker" \
  >"$workdir/out" 2>"$workdir/err" &
launch=$!
check "the ranks, their children and grandchildren start ($(cat "$workdir"/int/up* 2>/dev/null | tr '\n' ' '))" \
  wait_up "$workdir/int"
own_session=$(session_of $$)
for rank in 0 1; do
  up=$workdir/int/up$rank
  pid=$(grep '^rank ' "$up" | cut -d' ' -f2)
  check "rank $rank leads a session of its own ($(tr '\n' ' ' <"$up"))" \
    test "$(grep '^rank ' "$up" | cut -d' ' -f3)" = "$pid"
  check "... not the launch's ($own_session)" test "$pid" != "$own_session"
  check "... its child and grandchild stay in it" test "$(field "$up" 3 | sort -u)" = "$pid"
done
if [[ -r /proc/self/autogroup && $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null) == 1 ]]; then
  groups=$(cat "$workdir"/int/up0 "$workdir"/int/up1 | cut -d' ' -f4 | sort -u | tr '\n' ' ')
  mine=$(cut -d' ' -f1 /proc/self/autogroup)
  check "each rank has an autogroup of its own, not the caller's $mine ($groups)" \
    bash -c "[[ \$(wc -w <<<'$groups') -eq 2 && ' $groups' != *' $mine '* ]]"
  rank0=$(grep '^rank ' "$workdir/int/up0" | cut -d' ' -f2)
  expected=$(($(nice) + 3 > 19 ? 19 : $(nice) + 3))
  check "... with the launch's nice value $expected ($(cat "/proc/$rank0/autogroup"))" \
    grep -q " nice $expected\$" "/proc/$rank0/autogroup"
fi
kill -INT "$launch"
wait "$launch"
code=$?
check "SIGINT: the launch exits 130 ($code; $(show "$workdir/err"))" test "$code" -eq 130
check "... after SIGINT reached every rank, child and grandchild ($(cat "$workdir"/int/int* 2>/dev/null | tr '\n' ' '))" \
  every_int "$workdir/int"
check "... and nothing is left ($(left | tr '\n' ' '))" wait_gone 20

# 2. Ctrl-C in the launch's terminal: the terminal signals its foreground group (the launch), which
#    passes the signal on to the ranks' sessions.
if mkfifo "$workdir/keys" && exec 3<>"$workdir/keys"; then
  mkdir "$workdir/tty"
  command=$(printf '%q ' "$ezpz" launch --system local -n 2 -- /usr/bin/python3 "$rank_program" rank "$workdir/tty" "$marker")
  script -qefc "$command" /dev/null <&3 >"$workdir/tty-out" 2>&1 &
  terminal=$!
  check "in a terminal: the ranks start ($(show "$workdir/tty-out"))" wait_up "$workdir/tty"
  printf '\003' >&3
  wait "$terminal"
  code=$?
  exec 3>&-
  check "Ctrl-C: the launch exits 130 ($code; $(show "$workdir/tty-out"))" test "$code" -eq 130
  check "... after SIGINT reached every rank, child and grandchild ($(cat "$workdir"/tty/int* 2>/dev/null | tr '\n' ' '))" \
    every_int "$workdir/tty"
  check "... and nothing is left ($(left | tr '\n' ' '))" wait_gone 20
else
  fail "cannot make a fifo for the terminal's input in $workdir"
fi

# 3. SIGKILL of the launch: its guardian stops the ranks' groups (TERM, then KILL after 5 s), which holds
#    the grandchildren that ignore TERM.
mkdir "$workdir/kill"
"$ezpz" launch --system local -n 2 -- /usr/bin/python3 "$rank_program" rank "$workdir/kill" "$marker" \
  >"$workdir/out" 2>"$workdir/err" &
launch=$!
check "the ranks start again ($(show "$workdir/err"))" wait_up "$workdir/kill"
kill -KILL "$launch"
wait "$launch" 2>/dev/null
check "SIGKILL: nothing is left 15 s later (grace 5 s; left: $(left | tr '\n' ' '))" wait_gone 150
finish
