#!/usr/bin/env bash
# `ezpz launch` whose set-up the operating system refuses (here: the pipes for the ranks' output, under
# a low limit of open files) exits 3, as `ezpz exec`'s does (util/exit_codes.hpp), with one message and
# no rank started; an ezpz error in the launch (a bad count) stays 1, bad usage 2.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ezpz=$1
marker="ezpz-launch-setup-test-$$"

# 64 ranks need 256 descriptors for their pipes; 64 are allowed, more than ezpz needs before them.
(ulimit -n 64 && exec "$ezpz" launch --system local -n 64 -- sh -c "exec sleep 60 # $marker") >/dev/null 2>"$workdir/err"
code=$?  # before the message: its $(…) would set $? first
check "refused pipes exit 3, like ezpz exec's set-up (got $code: $(cat "$workdir/err"))" test "$code" -eq 3
check "it says what was refused" grep -q "^ezpz: error: cannot make the pipes for the output of 64 processes" "$workdir/err"
check "with the hint" grep -q "hint: raise the limit of open files" "$workdir/err"
check "it is not reported as a bug" bash -c "! grep -q 'bug' '$workdir/err'"
sleep 0.2
check "no rank was started" test -z "$(pgrep -f "$marker")"

"$ezpz" launch --system local -n 3 --nodes 2 -- true >/dev/null 2>&1
check "an ezpz error stays exit 1" test $? -eq 1
"$ezpz" launch --system local -n 0 -- true >/dev/null 2>&1
check "bad usage stays exit 2" test $? -eq 2
finish
