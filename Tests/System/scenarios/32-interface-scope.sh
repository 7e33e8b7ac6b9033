#!/usr/bin/env bash
#
# 32-interface-scope — `--interface` scopes the TCP listener as well as mDNS (lanchatd(8)): a
# connection made to an address of an interface outside the list is closed before its
# handshake, one made to loopback is always taken, and a reload (SIGHUP) that allows the
# interface takes the next connection. No mDNS here: h1 knows h2 only as a static peer, so
# nothing but the listener's scope stands between them.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-discovery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-discovery.sh"

PORT=7410
net_up 2
config=$(host_dir h2)/home/.config/lanchat/lanchatd.conf
mkdir -p "$(dirname "$config")"
printf 'interface = ["lcnone0"]\n' >"$config"
host_daemon_start h2 --name h2 --no-mdns --port "$PORT" >/dev/null
h2_addr=$(host_addr4 h2)

# ---- h2's only allowed interface does not exist: h1's dial to its eth0 address is closed ----
mark=$(log_mark h2 lanchatd)
host_daemon_start h1 --name h1 --no-mdns --peer "$h2_addr:$PORT" >/dev/null
refused() { log_has_since h2 lanchatd "$mark" "refusing a connection to $h2_addr on eth0"; }
wait_until 5000 "h2 refuses the connection made to its eth0 address" refused >/dev/null
netsim_log "h2 refused h1's connection to $h2_addr (eth0 not in interface = lcnone0)"
# status lists what takes connections: loopback only, not the wildcard the socket is bound to.
listening=$(host_run h2 lanchat status --json | jq -c .listening)
[[ $listening == "[\"127.0.0.1:$PORT\"]" || $listening == "[\"127.0.0.1:$PORT\",\"[::1]:$PORT\"]" ]] ||
  fail "h2's status lists $listening with only lcnone0 allowed"
[[ $(json_peer_presence h2 h1) == absent ]] || fail "h2 knows h1 although it refused the connection"
[[ $(json_peer_presence h1 h2) != online ]] || fail "h1 has a session with h2"

# ---- loopback is always taken: a second daemon inside h2 dials 127.0.0.1 -------------------
local_dir=$(host_dir h2)/local
mkdir -p "$local_dir"
: >"$local_dir/lanchatd.conf"
host_bg h2 local lanchatd --name h2-local --no-mdns --config "$local_dir/lanchatd.conf" \
  --data-dir "$local_dir/data" \
  --socket "$local_dir/lanchatd.sock" --port 0 --peer "127.0.0.1:$PORT"
local_online() {
  host_run h2 lanchat --socket "$local_dir/lanchatd.sock" who --json |
    jq -e '.peers[] | select(.name == "h2" and .presence == "online")' >/dev/null
}
wait_until 10000 "h2-local has a session with h2 over loopback" local_online >/dev/null
netsim_log "a connection to 127.0.0.1 was taken although lo is not listed"

# ---- a reload allows eth0: the next connection is taken, a message goes through ------------
mark=$(log_mark h2 lanchatd)
printf 'interface = ["eth0"]\n' >"$config"
kill -HUP "$(host_daemon_pid h2)"
reloaded() { log_has_since h2 lanchatd "$mark" "reload: interface: lcnone0 → eth0; new connections judged by it"; }
wait_until 5000 "h2 applies the new interface list" reloaded >/dev/null
# h1 dials again at once when it starts (its backoff after the refusals is not what is tested).
host_daemon_stop h1 >/dev/null
host_daemon_start h1 --name h1 --no-mdns --peer "$h2_addr:$PORT" >/dev/null
wait_until 10000 "h1 has a session with h2 over eth0" json_peer_is h1 h2 online >/dev/null
id=$(host_run h1 lanchat send h2 "over eth0, now in scope")
delivered() { [[ $(json_history_field h1 h2 status | tail -1) == delivered ]]; }
wait_until 5000 "h1's message is delivered" delivered >/dev/null
[[ $(json_history_field h2 h1 id | tail -1) == "$id" ]] || fail "h2 has not got h1's message"
! log_has_since h2 lanchatd "$mark" "refusing a connection" || fail "h2 refused a connection after allowing eth0"
netsim_log "after the reload h1's connection to eth0 was taken and its message delivered"
listening=$(host_run h2 lanchat status --json | jq -r '.listening[]')
grep -qx "$h2_addr:$PORT" <<<"$listening" || fail "h2's status does not list $h2_addr:$PORT: $listening"
netsim_log "h2's status lists $(tr '\n' ' ' <<<"$listening")"
host_bg_stop h2 local >/dev/null
