#!/usr/bin/env bash
# Profiles and schedulers on a machine shared with another user (uids 64101 = A and 64102 = B, issue 27):
# for an ezpz binary in /tmp/<dir>/, the search path's <binary>/../share/ezpz/systems is /tmp/share/…,
# which B can create; B's scheduler file there must not run its status command as A or as root. A
# search path entry or ~/.config/ezpz/systems that others can write is skipped too, with a warning in
# `ezpz systems list` and `ezpz doctor`; A's own profiles still load.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
# shellcheck source-path=SCRIPTDIR source=users.sh
source "$here/users.sh"
ezpz=$1
root=$(cd "$here/../.." && pwd)
unset EZPZ_SYSTEM EZPZ_SYSTEMS_PATH SLURM_JOB_ID PBS_JOBID

# A's copy of ezpz in a directory of its own under the shared /tmp.
as "$user_a" mkdir "$shared_tmp/x"
install -m 755 -o "$user_a" "$ezpz" "$shared_tmp/x/ezpz"
bin=$shared_tmp/x/ezpz

# B plants a scheduler whose status command leaves a mark (who ran it), and a system profile.
planted=$shared_tmp/share/ezpz/systems
marker=$shared_tmp/marker
as "$user_b" mkdir -p "$planted/schedulers"
sed "s|^status: .*|status: [sh, -c, 'id -u >>$marker']|" "$root/schedulers/slurm.yaml" |
  as "$user_b" sh -c "cat >'$planted/schedulers/slurm.yaml'"
as "$user_b" sh -c "printf 'extends: local\ndescription: planted by B\n' >'$planted/planted.yaml'"
check "(B's scheduler file is there)" grep -q "id -u" "$planted/schedulers/slurm.yaml"

as "$user_a" "$bin" status --system slurm 123 >"$workdir/out" 2>"$workdir/err"
check "A's ezpz status does not run B's status command (marker: $(cat "$marker" 2>/dev/null))" test ! -e "$marker"
HOME=$workdir/home-root "$bin" status --system slurm 123 >"$workdir/out" 2>"$workdir/err"
check "root's ezpz status does not run B's status command (marker: $(cat "$marker" 2>/dev/null))" test ! -e "$marker"

as "$user_a" "$bin" systems list >"$workdir/out" 2>"$workdir/err"
check "systems list does not list B's profile" test -z "$(grep planted "$workdir/out")"
check "systems list warns about B's directory ($(head -c 300 "$workdir/err"))" \
  grep -qF "warning: skipped '$shared_tmp/x/../share/ezpz/systems': '$shared_tmp/share' is owned by uid $user_b" \
  "$workdir/err"
as "$user_a" "$bin" doctor --system local >"$workdir/out" 2>"$workdir/err"
check "doctor warns about B's directory ($(grep profiles "$workdir/out"))" \
  grep -qE "warn +profiles: skipped '$shared_tmp/x/../share/ezpz/systems': '$shared_tmp/share' is owned by uid $user_b" \
  "$workdir/out"

# A's own profile directories: kept when only A can write them, skipped when its group or anyone can.
home_a=$workdir/home-$user_a
as "$user_a" mkdir -p "$home_a/mine" "$home_a/group" "$home_a/.config/ezpz/systems"
a_profile() { as "$user_a" sh -c "printf 'extends: local\ndescription: A in $1\n' >'$home_a/$1/$2.yaml'"; }
a_profile mine a-mine
a_profile group a-group
a_profile .config/ezpz/systems a-config
as "$user_a" chmod 755 "$home_a/mine"
as "$user_a" chmod 775 "$home_a/group"
as "$user_a" chmod 777 "$home_a/.config/ezpz/systems"
as "$user_a" env EZPZ_SYSTEMS_PATH="$home_a/mine:$home_a/group" "$bin" systems list >"$workdir/out" 2>"$workdir/err"
check "A's own profile is listed ($(cat "$workdir/err"))" grep -q "^a-mine " "$workdir/out"
check "a group-writable EZPZ_SYSTEMS_PATH entry is skipped" test -z "$(grep a-group "$workdir/out")"
check "and said so" grep -qF "warning: skipped '$home_a/group': '$home_a/group' is writable by its group (mode 0775)" \
  "$workdir/err"
check "a world-writable ~/.config/ezpz/systems is skipped" test -z "$(grep a-config "$workdir/out")"
check "and said so" \
  grep -qF "'$home_a/.config/ezpz/systems' is writable by others (mode 0777)" "$workdir/err"
as "$user_a" env EZPZ_SYSTEMS_PATH="$home_a/group" "$bin" render --system a-group -N 1 -t 1h -- true \
  >"$workdir/out" 2>"$workdir/err"
check "asking for a skipped profile says why it is unknown ($(cat "$workdir/err"))" \
  grep -qF "'$home_a/group' is writable by its group" "$workdir/err"
finish
