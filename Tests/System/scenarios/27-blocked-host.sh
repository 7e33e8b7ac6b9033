#!/usr/bin/env bash
#
# 27-blocked-host — TESTING.md scenario 13 (PRODUCT.md §4 `block`, PROTOCOL.md §3.8 row 2): h1
# blocks h2. From then on h2 is still discovered over mDNS (h1 lists it, `discovering`,
# `blocked`) across a restart of h1's daemon, but h1 never dials it (no SYN from h1 to h2 in a
# capture of h1's eth0), h2's own dials are refused at the handshake, and nothing h2 sends is
# stored on h1. `lanchat unblock` delivers what h2 queued meanwhile, exactly once and in order.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-discovery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-discovery.sh"

net_up 2
host_daemon_start h1 --name h1 --log-level debug >/dev/null
host_daemon_start h2 --name h2 >/dev/null
wait_until 5000 "h1 sees h2 online" json_peer_is h1 h2 online >/dev/null
wait_until 5000 "h2 sees h1 online" json_peer_is h2 h1 online >/dev/null

[[ $(host_run h1 lanchat block h2 --json | jq -r .peer.trust) == blocked ]] ||
  fail "lanchat block did not answer trust blocked"
wait_until 5000 "h2 sees its session closed" json_peer_is h2 h1 offline >/dev/null

# From here on a capture of h1's cable: h1 must never open a connection to h2, not after a
# restart of its daemon either, while h2's record is announced all along.
capture="$NETSIM_DIR/27-h1.pcap"
host_capture_start h1 "$capture"
host_daemon_stop h1 >/dev/null
host_daemon_start h1 --name h1 --log-level debug >/dev/null
wait_until 8000 "h1 lists h2 as discovered" json_peer_is h1 h2 discovering >/dev/null
[[ $(json_peer h1 h2 | jq -r .trust) == blocked ]] || fail "h2 is not blocked after h1's restart"

sent=()
for n in 1 2 3; do sent+=("$(host_run h2 lanchat send h1 "while blocked $n")"); done
refused() { grep -q "blocked key at .* refused" "$(host_log h1 lanchatd)"; }
wait_until 10000 "h1 refuses h2's dial at the handshake" refused >/dev/null
[[ $(json_history_count h1 h2) == 0 ]] || fail "h1 stored something from the blocked h2"
[[ $(json_history_count h2 h1 queued) == 3 ]] || fail "h2's messages are not all queued"
host_run h1 lanchat send h2 "to a blocked peer" >/dev/null 2>&1 && fail "sending to a blocked peer succeeded"
host_capture_stop h1
h1_addr=$(host_addr4 h1)
h2_addr=$(host_addr4 h2)
syns=$(tcpdump -nn -r "$capture" \
  "src host $h1_addr and dst host $h2_addr and tcp[tcpflags] & tcp-syn != 0 and tcp[tcpflags] & tcp-ack == 0" \
  2>/dev/null | wc -l)
[[ $syns == 0 ]] || fail "h1 dialled the blocked h2 $syns time(s)"
netsim_log "blocked: discovered, never dialled, refused, nothing stored"

host_run h1 lanchat unblock h2 >/dev/null || fail "lanchat unblock failed"
all_delivered() { [[ $(json_history_count h2 h1 delivered) == 3 ]]; }
wait_until 10000 "h2's queued messages delivered after unblock" all_delivered >/dev/null
received=$(json_history_all h1 h2 | jq -r '[.[] | select(.direction == "in")] | map(.id) | join(" ")')
[[ $received == "${sent[*]}" ]] || fail "h1 received '$received', expected '${sent[*]}' once each in order"
netsim_log "unblocked: 3 queued messages delivered once, in order (waited ${WAITED_MS} ms)"
