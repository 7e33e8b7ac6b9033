#!/usr/bin/env bash
#
# 15-systemd — TESTING.md scenario 10, without socket activation (not implemented yet): the
# unit from systemd/ in a host's real systemd user manager. `systemctl --user start` returns
# once lanchatd reported READY=1, `lanchat status` answers, the unit is active with the
# daemon's STATUS, and `systemctl --user stop` is clean (the unit ends inactive, not failed).

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
net_up 1
home=$(host_dir h1)/home
install -D -m 0755 "$LANCHAT_BIN_DIR/lanchatd" "$home/.local/bin/lanchatd"
install -D -m 0644 "$repo/systemd/lanchatd.service" "$home/.config/systemd/user/lanchatd.service"
host_user_manager_start h1
host_systemctl h1 daemon-reload

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

host_systemctl h1 stop lanchatd
state=$(host_systemctl h1 show -p ActiveState --value lanchatd)
result=$(host_systemctl h1 show -p Result --value lanchatd)
[[ $state == inactive && $result == success ]] || fail "after stop: $state, result $result"
host_run h1 lanchat status >/dev/null 2>&1 && fail "lanchat status still answers after stop"
netsim_log "stopped cleanly: $state, result $result"
