#!/usr/bin/env bash
#
# 24-loss — TESTING.md scenario 7: with 20 % of h2's packets dropped at random both ways, h1
# sends 2 000 messages; every one reaches h2 exactly once, in order, and is delivered. Prints
# how long that took.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-delivery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-delivery.sh"

readonly LOSS=20 TOTAL=2000

# retransmits H — TCP segments H's kernel has sent again (its network namespace's counter).
retransmits() {
  host_run "$1" nstat -asz TcpRetransSegs | awk '$1 == "TcpRetransSegs" { print $2 }'
}

net_up 2
host_daemon_start h1 --name h1 >/dev/null
host_daemon_start h2 --name h2 >/dev/null
wait_until 5000 "h1 sees h2 online" json_peer_is h1 h2 online >/dev/null

before=$(($(retransmits h1) + $(retransmits h2)))
host_loss h2 "$LOSS"
# 20 lines every 20 ms: a hundred send calls, so MSG and ACK frames cross the lossy link in
# hundreds of packets rather than a few large ones.
started=$(now_ms)
delivery_stream_start h1 h2 stream 1 "$TOTAL" 20 0.02
status=$(host_bg_wait h1 stream 30000)
[[ $status == 0 ]] || fail "lanchat send --lines exited $status"
netsim_log "$TOTAL messages stored on h1 $(($(now_ms) - started)) ms after the stream started"
wait_until 90000 "all $TOTAL messages delivered through ${LOSS}% loss" \
  delivery_all_delivered h1 h2 "$TOTAL" >/dev/null
delivered=$(now_ms)
host_loss_clear h2
netsim_log "figure: $TOTAL messages delivered through ${LOSS}% packet loss" \
  "in $((delivered - started)) ms"

resent=$(($(retransmits h1) + $(retransmits h2) - before))
sessions=$(grep -c 'session up' "$(host_log h1 lanchatd)")
netsim_log "figure: TCP sent $resent segments again; h1 opened $sessions session(s) with h2"
((resent > 0)) || fail "no TCP segment was retransmitted: the loss did not hit the stream"
delivery_verify_stream h1 h2 "$TOTAL" || fail "packet loss broke exactly-once, in-order delivery"
