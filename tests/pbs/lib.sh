# shellcheck shell=bash
# Shared by the PBS tests (sourced after tests/e2e/lib.sh): whether the real OpenPBS server can run
# here, and entering it.

# The directory of the OpenPBS source tarball and its SHA256SUMS (a test tool outside the repository).
openpbs_dir() {
  echo "${EZPZ_OPENPBS_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/../shared/third_party/openpbs}"
}

# Exits the test unless the OpenPBS tarball is there and we are root (cannot_run in tests/e2e/lib.sh:
# skipped on a developer's clone without shared/, failed under CI=true, where shared/ is always beside
# the clone). With the tarball there, anything else that goes wrong (build, start) is a failure, never
# a skip.
require_openpbs() {
  local source why=
  source=$(openpbs_dir)
  if ! compgen -G "$source/openpbs-*.tar.gz" >/dev/null || [[ ! -f $source/SHA256SUMS ]]; then
    why="the OpenPBS source tarball is absent: expected openpbs-*.tar.gz and SHA256SUMS in $source (shared/third_party/openpbs beside the clone, or set EZPZ_OPENPBS_DIR)"
  elif ((EUID != 0)); then
    why="the test PBS server needs root (its daemons, /etc/hosts, /etc/pbs.conf and a test user)"
  fi
  [[ -n $why ]] || return 0
  cannot_run "$why"
}

# Enters the server for a test: requires OpenPBS (above), takes the server's environment (PATH with
# /opt/pbs/bin, PBS_SERVER, EZPZ_PBS_USER), and prepares $workdir (tests/e2e/lib.sh) for the
# non-root submitting user: $userdir, owned by that user, where the test works and keeps job records.
enter_server() { # enter_server SERVER_DIR
  require_openpbs
  local env_lines
  env_lines=$("$(dirname "${BASH_SOURCE[0]}")/server.sh" env "$1") || exit 1
  eval "$env_lines"
  # shellcheck disable=SC2154 # workdir comes from tests/e2e/lib.sh, which every caller sources first
  chmod 0755 "$workdir"
  userdir=$workdir/user
  mkdir -p "$userdir"
  chown "$EZPZ_PBS_USER:" "$userdir"
  export EZPZ_POLL_SECONDS=0.5 EZPZ_RECORDS_DIR="$userdir/records"
  unset EZPZ_SYSTEM
  cd "$userdir" || exit 1
}

# Runs COMMAND as the submitting user (PBS refuses jobs from root), with this environment (PATH,
# PBS_SERVER, EZPZ_*), in the current directory.
as_user() { # as_user COMMAND...
  runuser -u "$EZPZ_PBS_USER" -- "$@"
}

# Copies PROGRAM into $userdir/bin (the user and the job may not be able to reach the build tree) and
# prints the copy's path.
user_copy() { # user_copy PROGRAM [NAME]
  mkdir -p "$userdir/bin"
  local copy=$userdir/bin/${2:-$(basename "$1")}
  cp "$1" "$copy"
  chmod 0755 "$copy"
  chown -R "$EZPZ_PBS_USER:" "$userdir/bin"
  echo "$copy"
}

# On exit: the test user's jobs deleted and gone (MoM would still write their output into $userdir),
# then $workdir removed. For `trap cleanup_user_jobs EXIT` after enter_server.
cleanup_user_jobs() {
  local jobs=() deadline=$((SECONDS + 30))
  mapfile -t jobs < <(as_user qselect -u "$EZPZ_PBS_USER" </dev/null 2>/dev/null)
  if ((${#jobs[@]})); then
    as_user qdel -W force "${jobs[@]}" </dev/null >/dev/null 2>&1
    while [[ -n $(as_user qselect -u "$EZPZ_PBS_USER" </dev/null 2>/dev/null) ]] && ((SECONDS < deadline)); do sleep 0.5; done
  fi
  rm -rf "$workdir"
}
