#!/usr/bin/env bash
#
# 23-cable — TESTING.md scenario 6: h1 streams messages to h2 for about half a minute; part-way
# h2's cable is pulled for 20 s. h1 lists h2 `offline` within the dead timeout (5 s here) plus a
# margin, keeps storing what `lanchat send` gives it, lists h2 `online` again once the cable is
# back, and every message reaches h2 exactly once, in order, delivered.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-delivery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-delivery.sh"

# A short dead timeout keeps the scenario quick; it is the same code path as the default 60 s.
readonly DEAD_TIMEOUT=5 MARGIN_MS=1500 OUTAGE_S=20 TOTAL=3000 PULL_AT=300
# shellcheck disable=SC2034 # read by every host command (netsim-hosts.sh)
NETSIM_ENV=("LANCHAT_DEAD_TIMEOUT=$DEAD_TIMEOUT")

net_up 2
host_daemon_start h1 --name h1 >/dev/null
host_daemon_start h2 --name h2 >/dev/null
wait_until 5000 "h1 sees h2 online" json_peer_is h1 h2 online >/dev/null

# 10 lines every 100 ms: about 30 s of stream, running before, during and after the outage.
started=$(now_ms)
delivery_stream_start h1 h2 stream 1 "$TOTAL" 10 0.1
wait_until 30000 "h2 received $PULL_AT messages" \
  delivery_newest_seq_at_least h2 h1 "$PULL_AT" >/dev/null

# ---- the cable is pulled: offline within the dead timeout ----------------------------------------
pulled=$(now_ms)
host_link h2 down
wait_until $((DEAD_TIMEOUT * 1000 + 10000)) "h1 sees h2 offline after the cable was pulled" \
  json_peer_is h1 h2 offline >/dev/null
offline_ms=$(($(now_ms) - pulled))
netsim_log "figure: h1 lists h2 offline $offline_ms ms after its cable was pulled" \
  "(dead timeout ${DEAD_TIMEOUT} s, margin $MARGIN_MS ms)"
((offline_ms <= DEAD_TIMEOUT * 1000 + MARGIN_MS)) ||
  fail "h1 saw h2 offline only $offline_ms ms after the cable was pulled" \
    "(dead timeout ${DEAD_TIMEOUT} s + $MARGIN_MS ms)"
stored_at_offline=$(delivery_newest_seq h1 h2)

# The point is an outage of OUTAGE_S seconds: let the time pass, then check h1 kept storing.
sleep $((OUTAGE_S - (($(now_ms) - pulled) / 1000)))
host_bg_pid h1 stream >/dev/null || fail "the stream ended during the outage; it should outlast it"
stored_at_plug=$(delivery_newest_seq h1 h2)
queued_at_plug=$(delivery_queued h1)
netsim_log "during the outage h1 stored $((stored_at_plug - stored_at_offline)) more messages;" \
  "$queued_at_plug wait for h2"
((stored_at_plug > stored_at_offline)) || fail "h1 stored nothing while h2 was unreachable"
((queued_at_plug > 0)) || fail "h1 shows nothing queued although h2 was unreachable"
json_peer_is h1 h2 offline ||
  fail "h1 lists h2 $(json_peer_presence h1 h2) while its cable is still out"

# ---- the cable is back: online again, everything delivered exactly once --------------------------
plugged=$(now_ms)
host_link h2 up
wait_until 30000 "h1 sees h2 online again" json_peer_is h1 h2 online >/dev/null
netsim_log "figure: h1 lists h2 online $(($(now_ms) - plugged)) ms after the cable was" \
  "plugged back (outage $(((plugged - pulled) / 1000)) s)"

status=$(host_bg_wait h1 stream 60000)
[[ $status == 0 ]] || fail "lanchat send --lines on h1 exited $status during the outage"
wait_until 30000 "all $TOTAL messages delivered" delivery_all_delivered h1 h2 "$TOTAL" >/dev/null
netsim_log "figure: $TOTAL messages across a ${OUTAGE_S} s outage all delivered" \
  "$(($(now_ms) - started)) ms after the stream started"
delivery_verify_stream h1 h2 "$TOTAL" || fail "the outage broke exactly-once, in-order delivery"
