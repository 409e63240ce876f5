#!/usr/bin/env bash
# Prints again, at the end of a long run, what ctest printed for each test that did not pass: CI keeps
# only the last part of a run's output, and a failure of the first stage would be out of it.
#   failed-tests.sh LOG...   (LOG: what `ctest --output-on-failure` printed)
# Each failed test's result line and the last 60 lines of its output; nothing when all passed.
for log in "$@"; do
  [[ -f $log ]] || continue
  awk -v file="$log" '
    function flush() { if (name != "") { print "==== " name " (" file ")"; s = n > 60 ? n - 60 : 0; for (i = s + 1; i <= n; i++) print buf[i] } name = ""; n = 0 }
    /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / || /^ *Start +[0-9]+: / || /tests passed, / { flush() }
    /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: .*\*\*\*(Failed|Timeout|Exception)|^ *[0-9]+\/[0-9]+ Test +#[0-9]+: .* Failed / { name = $0; gsub(/ \.\.\.+/, " ...", name); next }
    name != "" { buf[++n] = $0 }
    END { flush() }
  ' "$log"
done
