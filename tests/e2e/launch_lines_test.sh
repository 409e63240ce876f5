#!/usr/bin/env bash
# `ezpz launch` on this machine forwards its ranks' output as whole lines: 4 ranks each write many
# lines to stdout and stderr in several partial write()s with short sleeps between the pieces, and
# every line that comes out is one whole line of one rank, in that rank's order. Bytes pass through
# unchanged (invalid UTF-8, NUL), a line far longer than the launcher's 64 KiB chunks arrives whole
# in content, a last line without '\n' arrives, a failing rank's unfinished line does not swallow
# the launcher's own message, and a rank that writes without a pause cannot outlast the grace period.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1
python=/usr/bin/python3
[[ -x $python ]] || python=python3
export LC_ALL=C  # the output is bytes, not text
lines=60
long=200000

# Each line goes out in 4 pieces (os.write), 0.5 ms apart; every 4th line also goes to stderr.
cat >"$workdir/writer.py" <<'PY'
import os, sys, time
r = os.environ["RANK"]
def pieces(fd, data, cuts):
    last = 0
    for cut in cuts + [len(data)]:
        os.write(fd, data[last:cut])
        last = cut
        time.sleep(0.0005)
for i in range(int(sys.argv[1])):
    line = ("rank %s line %03d %s end %s\n" % (r, i, "x" * 40, r)).encode()
    pieces(1, line, [3, 11, 30])
    if i % 4 == 0:
        pieces(2, ("rank %s err %03d end %s\n" % (r, i, r)).encode(), [5, 12])
pieces(1, b"rank " + r.encode() + b" bytes \xff\xfe\x00\xc3( end " + r.encode() + b"\n", [14, 16])
if r == "0":
    pieces(1, b"y" * int(sys.argv[2]) + b"\n", [70000])
pieces(1, b"rank " + r.encode() + b" tail without newline", [9])
PY
"$ezpz" launch --system local -n 4 -- "$python" "$workdir/writer.py" "$lines" "$long" >"$workdir/out" 2>"$workdir/err"
status=$?
check "4 writing ranks exit 0 ($(tail -n 3 "$workdir/err"))" test "$status" -eq 0

show() { cat -v "$@" | cut -c 1-160 | head -n 5; }  # a few lines of bytes, shortened, for a message
shape='^(rank ([0-3]) line [0-9]{3} x{40} end \2|rank ([0-3]) bytes .* end \3|rank [0-3] tail without newline|y+)$'
bad=$(grep -avE "$shape" "$workdir/out" | show)
check "every stdout line is one whole line of one rank (first bad lines: $bad)" test -z "$bad"
err_shape='^(rank ([0-3]) err [0-9]{3} end \2|ezpz launch: .*)$'
bad=$(grep -avE "$err_shape" "$workdir/err" | show)
check "every stderr line is one whole line of one rank or of the launcher (first bad lines: $bad)" test -z "$bad"

expected_lines=$(seq -f '%03g' 0 $((lines - 1)) | tr '\n' ' ')
expected_err=$(seq -f '%03g' 0 4 $((lines - 1)) | tr '\n' ' ')
for r in 0 1 2 3; do
  got=$(grep -aE "^rank $r line " "$workdir/out" | cut -d' ' -f4 | tr '\n' ' ')
  check "rank $r: all $lines stdout lines, whole and in order" test "$got" = "$expected_lines"
  got=$(grep -aE "^rank $r err " "$workdir/err" | cut -d' ' -f4 | tr '\n' ' ')
  check "rank $r: its stderr lines, whole and in order" test "$got" = "$expected_err"
  printf 'rank %s bytes \xff\xfe\x00\xc3( end %s\n' "$r" "$r" >"$workdir/bytes.expected"
  grep -a "^rank $r bytes " "$workdir/out" >"$workdir/bytes.got"
  check "rank $r: invalid UTF-8 and NUL bytes pass through unchanged ($(show "$workdir/bytes.got"))" \
    cmp -s "$workdir/bytes.expected" "$workdir/bytes.got"
  check "rank $r: the last line without a newline arrives whole" \
    test "$(grep -acx "rank $r tail without newline" "$workdir/out")" -eq 1
done
got=$(grep -aE '^y+$' "$workdir/out" | tr -cd y | wc -c)
check "the $long-byte line arrives complete (got $got bytes of it)" test "$got" -eq "$long"

# A failing rank that leaves an unfinished line on stderr: its text and the launcher's report are
# separate whole lines, and the rank's exit code is returned.
# shellcheck disable=SC2016 # $RANK is expanded by the ranks
"$ezpz" launch --system local -n 2 -- sh -c 'if [ "$RANK" = 1 ]; then printf "rank 1 partial" >&2; exit 3; fi; exec sleep 30' \
  2>"$workdir/fail.err"
status=$?
check "the failing rank's exit code 3 is returned" test "$status" -eq 3
check "the failing rank's unfinished line arrives on its own ($(show "$workdir/fail.err"))" grep -qx "rank 1 partial" "$workdir/fail.err"
check "the launcher's report is a whole line" grep -q "^ezpz launch: rank 1 failed with exit code 3" "$workdir/fail.err"
# A rank that ignores SIGTERM and writes without a pause (its pipe always has data, so poll never
# times out) is still killed when the grace period after another rank's failure is over.
start=$SECONDS
# shellcheck disable=SC2016 # $RANK is expanded by the ranks
timeout -k 5 60 "$ezpz" launch --system local -n 2 -- \
  sh -c 'if [ "$RANK" = 1 ]; then sleep 0.3; exit 5; fi; trap "" TERM; exec yes' >/dev/null 2>&1
status=$?
check "a rank that ignores SIGTERM and keeps writing: exit code 5 of the failing rank (got $status)" test "$status" -eq 5
check "... and it is killed after the 5 s grace period (took $((SECONDS - start)) s)" test $((SECONDS - start)) -lt 15

# A Python rank writes into a pipe: without PYTHONUNBUFFERED its line would wait in Python's buffer
# until exit. The line must be out while the rank still sleeps; a user's own setting is kept.
"$ezpz" launch --system local -n 1 -- /usr/bin/python3 -c 'import time; print("early line"); time.sleep(4)' \
  >"$workdir/early.out" 2>/dev/null &
launcher=$!
sleep 2.5
check "a Python rank's print arrives before it exits ($(show "$workdir/early.out"))" grep -qx "early line" "$workdir/early.out"
wait "$launcher"
# shellcheck disable=SC2016 # expanded by the rank
check "a user's PYTHONUNBUFFERED is kept" \
  test "$(PYTHONUNBUFFERED=0 "$ezpz" launch --system local -n 1 -- sh -c 'echo "$PYTHONUNBUFFERED"' 2>/dev/null)" = 0
finish
