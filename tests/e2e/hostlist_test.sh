#!/usr/bin/env bash
# `ezpz hostlist` as scripts use it: expand/compress/nodefile/first, stdin, exit codes 0/1/2, error texts
# with a caret, and a 10,000-node round trip (expand → compress → expand is the sorted unique list).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
ezpz=$1

# expect_out DESCRIPTION EXPECTED COMMAND...: stdout equals EXPECTED and the exit status is 0.
expect_out() {
  local what=$1 expected=$2
  shift 2
  local out
  if ! out=$("$@" 2>"$workdir/err"); then
    fail "$what: exit $?: $(cat "$workdir/err")"
  elif [[ $out != "$expected" ]]; then
    fail "$what: got '$out', expected '$expected'"
  fi
}

# expect_error DESCRIPTION STATUS STDERR_FILE_CONTENT COMMAND...: exit STATUS, nothing on stdout, stderr exact.
expect_error() {
  local what=$1 status=$2 expected=$3
  shift 3
  "$@" >"$workdir/out" 2>"$workdir/err"
  local got=$?
  if ((got != status)); then fail "$what: exit $got, expected $status"; fi
  if [[ -s $workdir/out ]]; then fail "$what: stdout is not empty: $(cat "$workdir/out")"; fi
  if [[ $(cat "$workdir/err") != "$expected" ]]; then
    fail "$what: stderr differs:"$'\n'"$(diff <(printf '%s\n' "$expected") "$workdir/err")"
  fi
}

# --- expand ---
expect_out "expand: padding and a comma list" $'nid001\nnid002\nnid003\nnid010' \
  "$ezpz" hostlist expand 'nid[001-003,010]'
expect_out "expand: several groups, leftmost slowest" $'x1000c0s0b0n0\nx1000c0s1b0n0\nx1000c1s0b0n0\nx1000c1s1b0n0' \
  "$ezpz" hostlist expand 'x1000c[0-1]s[0-1]b0n0'
expect_out "expand: lower bound's width" "nid08 nid09 nid10 nid8 nid9 nid10 nid098 nid099 nid100 nid101" \
  "$ezpz" hostlist expand -s ' ' 'nid[08-10]' 'nid[8-10]' 'nid[098-101]'
expect_out "expand: suffixes" "a1b3c,a1b4c,a2b3c,a2b4c" "$ezpz" hostlist expand -s, 'a[1-2]b[3-4]c'
expect_out "expand: --separator long form" "a1::a2" "$ezpz" hostlist expand --separator :: 'a[1-2]'
expect_out "expand: order and duplicates kept" "b a1 a2 b" "$ezpz" hostlist expand -s ' ' 'b,a[1-2]' b
expect_out "expand: stdin, words on lines and spaces" $'n1\nn2\nm\nx\ny' \
  bash -c "printf 'n[1-2]  m\r\n\n x,y\n' | '$ezpz' hostlist expand -"
expect_out "expand: stdin between arguments" "a b c" bash -c "echo b | '$ezpz' hostlist expand -s ' ' a - c"

# --- compress ---
expect_out "compress: names as arguments" "nid[001-003,010]" "$ezpz" hostlist compress nid003 nid001 nid010 nid002 nid001
expect_out "compress: a Cray grid" "x1000c[0-1]s[0-1]b0n0" \
  "$ezpz" hostlist compress x1000c1s1b0n0 x1000c0s0b0n0 x1000c1s0b0n0 x1000c0s1b0n0
expect_out "compress: widths kept" "nid[08-10]" "$ezpz" hostlist compress nid08 nid09 nid10
expect_out "compress: stdin, one per line or whitespace-separated" "login[1-2],nid[1-3]" \
  bash -c "printf 'nid3\nnid1 nid2\r\nlogin2\tlogin1\nnid1\n' | '$ezpz' hostlist compress -"
expect_out "compress: lists are merged too" "nid[1-5]" "$ezpz" hostlist compress 'nid[1-3]' 'nid[3-5]'

# --- nodefile ---
printf 'x1000c0s0b0n0\nx1000c0s0b0n0\nx1000c0s1b0n0\r\n\nx1000c0s1b0n0\nx1000c0s0b0n0\n' >"$workdir/nodefile"
expect_out "nodefile: unique hosts in order" $'x1000c0s0b0n0\nx1000c0s1b0n0' "$ezpz" hostlist nodefile "$workdir/nodefile"
expect_out "nodefile --compress" "x1000c0s[0-1]b0n0" "$ezpz" hostlist nodefile --compress "$workdir/nodefile"
expect_out "nodefile from stdin" $'b\na' bash -c "printf 'b\na\nb\n' | '$ezpz' hostlist nodefile -"

# --- first ---
expect_out "first: first expanded name" "x1000c3s5b0n0" "$ezpz" hostlist first 'x1000c[3-4]s[5,1]b0n0,a'
expect_out "first: instant for a huge list" "nid000000000000" "$ezpz" hostlist first 'nid[000000000000-999999999999]'
expect_out "first: stdin" "nid1" bash -c "echo 'nid[1-2]' | '$ezpz' hostlist first -"

# --- errors: exit 1 with the list and a caret; usage errors exit 2 ---
expect_error "unclosed bracket" 1 "ezpz: host list nid[1-: error: malformed host list: '[' is never closed
  nid[1-
     ^
  hint: add the missing ']'" "$ezpz" hostlist expand 'nid[1-'
expect_error "reversed range" 1 "ezpz: host list nid[3-1]: error: malformed host list: range '3-1' goes down
  nid[3-1]
      ^~~
  hint: write the lower bound first: '1-3'" "$ezpz" hostlist expand 'nid[3-1]'
expect_error "empty name" 1 "ezpz: host list a,,b: error: malformed host list: empty name
  a,,b
    ^
  hint: remove the extra ','" "$ezpz" hostlist compress 'a,,b'
expect_error "not a number, from stdin" 1 "ezpz: <stdin> nid[a-b]: error: malformed host list: expected a number in brackets, found 'a'
  nid[a-b]
      ^" bash -c "echo 'ok nid[a-b]' | '$ezpz' hostlist expand -"
expect_error "first checks the whole list" 1 "ezpz: host list a,: error: malformed host list: trailing ','
  a,
   ^
  hint: remove the last comma" "$ezpz" hostlist first 'a,'
expect_error "too many names" 1 "ezpz: host list nid[0-99999999]: error: host list expands to more than 1000000 names
  nid[0-99999999]
  ^~~~~~~~~~~~~~~" "$ezpz" hostlist expand 'nid[0-99999999]'
expect_error "empty argument" 1 "ezpz: error: empty host list argument
  hint: is the variable set? SLURM_JOB_NODELIST exists only inside a job" "$ezpz" hostlist expand ''
expect_error "empty stdin" 1 "ezpz: error: no host list on stdin" bash -c "'$ezpz' hostlist expand - </dev/null"
expect_error "missing nodefile" 1 "ezpz: error: cannot read nodefile '$workdir/none': No such file or directory
  hint: inside a PBS job the nodefile is \$PBS_NODEFILE; use '-' to read stdin" "$ezpz" hostlist nodefile "$workdir/none"
: >"$workdir/empty"
expect_error "empty nodefile" 1 "ezpz: error: nodefile '$workdir/empty' names no hosts
  hint: a PBS nodefile has one host per line" "$ezpz" hostlist nodefile "$workdir/empty"
expect_error "compress refuses a name with a space" 1 "ezpz: error: cannot compress host name 'a b': it contains ' '
  hint: host names in a list cannot contain ',', '[', ']' or whitespace" bash -c "printf 'a b\n' | '$ezpz' hostlist nodefile --compress -"

"$ezpz" hostlist expand >/dev/null 2>"$workdir/err"
check "expand without LIST exits 2" test $? -eq 2
check "the usage error names LIST" grep -q "LIST is required" "$workdir/err"
"$ezpz" hostlist >/dev/null 2>&1
check "hostlist without a subcommand exits 2" test $? -eq 2
"$ezpz" hostlist expand -s >/dev/null 2>&1
check "-s without SEP exits 2" test $? -eq 2
"$ezpz" hostlist nodefile --bogus "$workdir/nodefile" >/dev/null 2>&1
check "unknown option exits 2" test $? -eq 2
check "hostlist --help explains the syntax" bash -c "'$ezpz' hostlist --help | grep -q 'leftmost group varies slowest'"
check "compress --help explains grids" bash -c "'$ezpz' hostlist compress --help | grep -q 'x1000c\[0-1\]s\[0-7\]b0n0'"
check "ezpz --help lists hostlist" bash -c "'$ezpz' --help | grep -q '^  hostlist '"

# --- 10,000 nodes: expand → compress → expand is the sorted unique list ---
# A Cray-like machine (two bracket groups, 5,120 names) and a comma-heavy padded list with holes (80
# ranges, 4,880 names), shuffled, with every name twice.
"$ezpz" hostlist expand 'x[1000-1039]c[0-7]s[0-7]b0n[0-1]' >"$workdir/cray"
ranges=""
for ((i = 0; i < 80; ++i)); do
  printf -v range '%06d-%06d' $((i * 100 + 1)) $((i * 100 + 61))
  ranges+=${ranges:+,}$range
done
"$ezpz" hostlist expand "nid[$ranges]" >"$workdir/comma"
cat "$workdir/cray" "$workdir/comma" >"$workdir/all"
check "10,000 names in all" test "$(wc -l <"$workdir/all")" -eq 10000
cat "$workdir/all" "$workdir/all" | shuf >"$workdir/shuffled"
check "compress reads 20,000 names from stdin" "$ezpz" hostlist compress - <"$workdir/shuffled" >"$workdir/compact"
check "the compact form is the ranges and one grid" \
  test "$(cat "$workdir/compact")" = "nid[$ranges],x[1000-1039]c[0-7]s[0-7]b0n[0-1]"
check "expand reads the compact form" "$ezpz" hostlist expand - <"$workdir/compact" >"$workdir/again"
# Every number has a fixed width within its kind of name, so byte order is ezpz's order here.
LC_ALL=C sort -u "$workdir/all" >"$workdir/expected"
check "expand(compress(names)) is the sorted unique list" cmp -s "$workdir/again" "$workdir/expected"
check "and nothing was lost" test "$(wc -l <"$workdir/again")" -eq 10000

# An argument that is all brackets reaches the parser as written (CLI11 took '[1-3]' for its own list
# syntax and handed on '1-3').
check "expand '[1-3]' gives 1 2 3" test "$("$ezpz" hostlist expand '[1-3]' | tr '\n' ' ')" = "1 2 3 "
check "compress '[1-3]' keeps the brackets" test "$("$ezpz" hostlist compress '[1-3]')" = "[1-3]"
"$ezpz" hostlist expand --no-such-option 'n1' >/dev/null 2>&1
check "an unknown option is a usage error (2), not a host list" test $? -eq 2

finish
