#!/usr/bin/env bash
#
# 31-unprivileged-user — lanchatd as an ordinary user, as its systemd user service runs it.
# The other scenarios run everything as root, which hid a setsockopt only root may make
# (SO_DEBUG for TCP_NODELAY): as any other user every dial failed and the first accepted
# connection ended the daemon. Here both hosts' daemons and CLIs run as nobody: they find
# each other over mDNS and exchange messages both ways; `lanchat doctor`, whose port probe
# connects and closes, runs three times and leaves the daemon up, its session with the peer
# up and its own addresses not refused; and root's CLI is refused by the daemon's socket
# (another uid, exit 77). Last, a store of mode 0400 is refused with its fix, and the daemon
# starts once it is mended.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"

USER_ID=65534
net_up 2
# The scenario's directory is root's (0700): nobody may only pass through it, to its own.
chmod o+x "$NETSIM_DIR"

# user_dir H — nobody's home on host H: the binaries (the build directory may be root's
# alone), the data, the runtime directory with the control socket.
user_dir() { echo "$NETSIM_DIR/user-$1"; }

for host in h1 h2; do
  home=$(user_dir "$host")
  install -d -m 0755 "$home" "$home/bin"
  install -m 0755 "$LANCHAT_BIN_DIR/lanchatd" "$LANCHAT_BIN_DIR/lanchat" "$home/bin/"
  install -d -m 0700 -o "$USER_ID" -g "$USER_ID" "$home/run" "$home/data" "$home/config"
done

# as_user H CMD… — CMD on host H as nobody, with its own HOME and XDG directories.
as_user() {
  local host=$1 home
  shift
  home=$(user_dir "$host")
  host_run "$host" setpriv --reuid="$USER_ID" --regid="$USER_ID" --clear-groups \
    env HOME="$home" XDG_RUNTIME_DIR="$home/run" XDG_DATA_HOME="$home/data" \
    XDG_CONFIG_HOME="$home/config" PATH="$home/bin:/usr/bin:/bin" "$@"
}

user_status_ok() { as_user "$1" lanchat status >/dev/null 2>&1; }
user_sees_online() {
  [[ $(as_user "$1" lanchat who --json | jq -r --arg n "$2" \
    '.peers[] | select(.name == $n) | .presence') == online ]]
}

for host in h1 h2; do
  home=$(user_dir "$host")
  host_bg "$host" lanchatd setpriv --reuid="$USER_ID" --regid="$USER_ID" --clear-groups \
    env HOME="$home" XDG_RUNTIME_DIR="$home/run" XDG_DATA_HOME="$home/data" \
    XDG_CONFIG_HOME="$home/config" "$home/bin/lanchatd" --name "$host"
  wait_until 15000 "$host: lanchatd as nobody answers status" user_status_ok "$host" >/dev/null
done
[[ $(stat -c %u "$(user_dir h1)/data/lanchat/identity.key") == "$USER_ID" ]] ||
  fail "h1's identity key is not nobody's"

wait_until 5000 "h1 sees h2 online" user_sees_online h1 h2 >/dev/null
wait_until 5000 "h2 sees h1 online" user_sees_online h2 h1 >/dev/null
as_user h1 lanchat send h2 --wait --timeout 10 "from nobody on h1" >/dev/null ||
  fail "h1 → h2 was not delivered"
as_user h2 lanchat send h1 --wait --timeout 10 "from nobody on h2" >/dev/null ||
  fail "h2 → h1 was not delivered"
[[ $(as_user h2 lanchat history h1 --json | jq -r '[.messages[].text] | join("|")') == \
  "from nobody on h1|from nobody on h2" ]] || fail "h2's history is not both messages"
netsim_log "two daemons as nobody: sessions up, messages delivered both ways"

# doctor probes every listening address (connect, close at once): three runs, and the daemon
# is still there, its session too, and neither of its addresses is refused.
for run in 1 2 3; do
  as_user h1 lanchat doctor >/dev/null 2>&1 || true
  host_daemon_pid h1 >/dev/null || fail "h1's lanchatd ended after doctor run $run"
done
as_user h1 lanchat doctor --json | jq -e '.checks[] | select(.name == "port") | .ok' >/dev/null ||
  fail "doctor's port check fails after three doctor runs"
log=$(host_log h1 lanchatd)
grep -q "refusing connections" "$log" && fail "h1 refused connections after doctor's probes"
as_user h2 lanchat send h1 --wait --timeout 10 "after doctor" >/dev/null ||
  fail "h2 → h1 after doctor was not delivered"
netsim_log "three doctor runs: daemon, session and its addresses unharmed"

# The socket answers only its own uid: root is another user here.
socket="$(user_dir h1)/run/lanchat/lanchatd.sock"
status=0
host_run h1 lanchat --socket "$socket" status >/dev/null 2>&1 || status=$?
((status == 77)) || fail "root's lanchat status on nobody's socket exited $status, not 77"

for host in h1 h2; do
  [[ $(host_bg_stop "$host" lanchatd TERM 3000) == 0 ]] || fail "$host: lanchatd did not stop cleanly"
done
netsim_log "stopped cleanly"

# A store its user cannot write is refused before SQLite opens it, naming the file, its mode
# and the fix, and leaving nothing that refuses the next start once it is mended (found by QA:
# "read-only or not accessible", and a -shm of mode 0400 left behind). Root passes access(2):
# only an ordinary user can see this.
store="$(user_dir h2)/data/lanchat/lanchat.sqlite3"
chmod 0400 "$store"
# shellcheck disable=SC2012 # names, modes and sizes of a few files we made, for a comparison
files_before=$(ls -l --time-style=+ "$store"*)
status=0
output=$(as_user h2 "$(user_dir h2)/bin/lanchatd" --name h2 2>&1) || status=$?
((status == 73)) || fail "a store of mode 0400 exited $status, not 73"
[[ $output == *"$store cannot be read and written by this user (mode 400"*"chmod 600 $store"* ]] ||
  fail "the refusal does not name the store, its mode and the fix: $output"
# shellcheck disable=SC2012
[[ $(ls -l --time-style=+ "$store"*) == "$files_before" ]] ||
  fail "the refused start changed the files beside the store: $(ls -l "$store"* | tr '\n' ';')"
chmod 0600 "$store"
home=$(user_dir h2)
host_bg h2 mended setpriv --reuid="$USER_ID" --regid="$USER_ID" --clear-groups \
  env HOME="$home" XDG_RUNTIME_DIR="$home/run" XDG_DATA_HOME="$home/data" \
  XDG_CONFIG_HOME="$home/config" "$home/bin/lanchatd" --name h2
wait_until 15000 "h2 starts once its store is mended" user_status_ok h2 >/dev/null
[[ $(host_bg_stop h2 mended TERM 3000) == 0 ]] || fail "h2: lanchatd did not stop cleanly"
netsim_log "a store of mode 0400 refused with its fix; started once mended"

# A home this user may not enter (a system account's /nonexistent, root's own): there is no
# configuration file for it, as when it is missing; the data and socket given elsewhere are
# used (found by QA: refused with 78, "cannot read: Permission denied", even so).
closed="$NETSIM_DIR/closed-home"
install -d -m 0700 "$closed"
host_bg h2 closed setpriv --reuid="$USER_ID" --regid="$USER_ID" --clear-groups \
  env -u XDG_CONFIG_HOME HOME="$closed" XDG_RUNTIME_DIR="$home/run" XDG_DATA_HOME="$home/data" \
  "$home/bin/lanchatd" --name h2
wait_until 15000 "h2 starts with a home it may not enter" user_status_ok h2 >/dev/null
[[ $(host_bg_stop h2 closed TERM 3000) == 0 ]] || fail "h2: lanchatd did not stop cleanly"
netsim_log "a home the user may not enter: no configuration file, started"
