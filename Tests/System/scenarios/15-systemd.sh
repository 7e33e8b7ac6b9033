#!/usr/bin/env bash
#
# 15-systemd — TESTING.md scenario 10: the units from systemd/ in a host's real systemd user
# manager. Both pass `systemd-analyze verify`. `systemctl --user start` returns once lanchatd
# reported READY=1, `lanchat status` answers, the unit is active with the daemon's STATUS,
# `systemctl --user reload` re-reads the configuration file (SIGHUP), and `systemctl --user
# stop` is clean (the unit ends inactive, not failed). Then socket activation: with
# lanchatd.socket enabled and the daemon not running, the first `lanchat status` starts it
# and is answered; stopped again, the next call starts it again.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
net_up 1
home=$(host_dir h1)/home
install -D -m 0755 "$LANCHAT_BIN_DIR/lanchatd" "$home/.local/bin/lanchatd"
units=$home/.config/systemd/user
install -D -m 0644 "$repo/systemd/lanchatd.service" "$units/lanchatd.service"
install -D -m 0644 "$repo/systemd/lanchatd.socket" "$units/lanchatd.socket"
install -D -m 0644 /dev/stdin "$home/.config/lanchat/lanchatd.conf" <<<'name = "h1-from-file"'
host_user_manager_start h1
host_systemctl h1 daemon-reload

# Both units as systemd reads them: no unknown keys, the binary where ExecStart says, and the
# Documentation= man pages installed where `make install` puts them (when man is installed).
install -D -m 0644 "$repo/man/lanchatd.8" "$home/.local/share/man/man8/lanchatd.8"
install -D -m 0644 "$repo/man/lanchat.1" "$home/.local/share/man/man1/lanchat.1"
check_man=yes
command -v man >/dev/null || check_man=no
if verified=$(host_run h1 env MANPATH="$home/.local/share/man:" systemd-analyze --user verify \
  --man="$check_man" "$units/lanchatd.service" "$units/lanchatd.socket" 2>&1); then
  netsim_log "systemd-analyze verify: both units pass"
else
  fail "systemd-analyze verify: $verified"
fi

started=$(now_ms)
host_systemctl h1 start lanchatd
netsim_log "systemctl --user start returned after $(($(now_ms) - started)) ms (Type=notify: READY=1)"
[[ $(host_systemctl h1 is-active lanchatd) == active ]] || fail "the unit is not active"
# Right after start returned, the daemon answers: READY came after the socket was up.
host_run h1 lanchat status >/dev/null || fail "lanchat status failed right after start"
# STATUS= tells peers online and messages queued (PRODUCT.md §3).
status_is() { [[ $(host_systemctl h1 show -p StatusText --value lanchatd) == "$1" ]]; }
wait_until 5000 "STATUS= with the counts" status_is "0 peers online, 0 messages queued" >/dev/null
netsim_log "unit status text: $(host_systemctl h1 show -p StatusText --value lanchatd)"

# ---- reload: ExecReload sends SIGHUP, the file is read again ---------------------------------
name_is() { [[ $(host_run h1 lanchat status --json | jq -r .name) == "$1" ]]; }
name_is h1-from-file || fail "the configuration file's name is not in use"
echo 'name = "h1-reloaded"' >"$home/.config/lanchat/lanchatd.conf"
host_systemctl h1 reload lanchatd
wait_until 3000 "status shows the reloaded name" name_is h1-reloaded >/dev/null
netsim_log "systemctl --user reload: name h1-from-file → h1-reloaded"

host_systemctl h1 stop lanchatd
state=$(host_systemctl h1 show -p ActiveState --value lanchatd)
result=$(host_systemctl h1 show -p Result --value lanchatd)
[[ $state == inactive && $result == success ]] || fail "after stop: $state, result $result"
host_run h1 lanchat status >/dev/null 2>&1 && fail "lanchat status still answers after stop"
netsim_log "stopped cleanly: $state, result $result"

# ---- socket activation ------------------------------------------------------------------------
host_systemctl h1 enable --now lanchatd.socket
[[ $(host_systemctl h1 is-active lanchatd.service) != active ]] ||
  fail "the daemon runs before anything used the socket"
for round in 1 2; do
  asked=$(now_ms)
  host_run h1 lanchat status >/dev/null || fail "round $round: lanchat status through the socket unit failed"
  netsim_log "round $round: the first lanchat status started lanchatd and was answered in $(($(now_ms) - asked)) ms"
  [[ $(host_systemctl h1 is-active lanchatd.service) == active ]] ||
    fail "round $round: the service is not active after the first call"
  host_systemctl h1 stop lanchatd.service
  result=$(host_systemctl h1 show -p Result --value lanchatd.service)
  [[ $result == success ]] || fail "round $round: stop ended with result $result"
  [[ $(host_systemctl h1 is-active lanchatd.socket) == active ]] ||
    fail "round $round: the socket unit is no longer listening"
done
netsim_log "socket activation: started on demand twice, stopped cleanly, socket kept"
