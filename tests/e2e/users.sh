# shellcheck shell=bash disable=SC2154 # workdir: lib.sh
# Two unprivileged users for the multi-user tests (sourced after lib.sh): user A (uid 64101) and user B
# (uid 64102), numeric uids without a passwd entry, each with a HOME of its own under $workdir. The
# tests run as root (in CI too): they need it to become these users.
user_a=64101
user_b=64102
[[ $(id -u) == 0 ]] || cannot_run "the multi-user tests become uids $user_a and $user_b, which needs root"
command -v setpriv >/dev/null || cannot_run "setpriv (util-linux) is missing"
chmod 755 "$workdir"
for uid in "$user_a" "$user_b"; do
  mkdir -p "$workdir/home-$uid"
  chown "$uid:$uid" "$workdir/home-$uid"
done
# as UID COMMAND...: runs COMMAND as UID (group UID, no other groups) with HOME of its own and the
# test's environment otherwise.
as() {
  local uid=$1
  shift
  (cd "$workdir/home-$uid" && setpriv --reuid="$uid" --regid="$uid" --clear-groups -- \
    env HOME="$workdir/home-$uid" "$@")
}
# A directory like /tmp: root's, writable by everyone, sticky.
shared_tmp=$workdir/tmp
mkdir -m 1777 "$shared_tmp"
chmod 1777 "$shared_tmp"
