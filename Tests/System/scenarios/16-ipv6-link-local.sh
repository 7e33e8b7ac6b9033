#!/usr/bin/env bash
#
# 16-ipv6-link-local — a peer reached only by its IPv6 link-local address, which needs its
# interface scope (`[fe80::…%eth0]:PORT`, PROTOCOL.md §10): no mDNS, no IPv4 anywhere in the
# configuration. The session comes up, a message is delivered, and `who` shows the scoped
# address.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"

PORT=7400
net_up 2
host_daemon_start h2 --name h2 --no-mdns --port "$PORT" >/dev/null
v6=$(host_addr6 h2)
host_daemon_start h1 --name h1 --no-mdns --peer "[$v6%eth0]:$PORT" >/dev/null

wait_until 5000 "h1 lists h2 online over IPv6" json_peer_is h1 h2 online >/dev/null
netsim_log "h1 reached h2 at [$v6%eth0]:$PORT after $WAITED_MS ms"
address=$(json_peer h1 h2 | jq -r '.addresses[0]')
[[ $address == "[$v6%eth0]:$PORT" ]] || fail "h1 shows h2 at '$address'"

id=$(host_run h1 lanchat send h2 "over IPv6 link-local")
delivered() { [[ $(json_history_field h1 h2 status | tail -1) == delivered ]]; }
wait_until 3000 "delivered over IPv6" delivered >/dev/null
[[ $(json_history_field h2 h1 id | tail -1) == "$id" ]] || fail "h2 has not got the message"
