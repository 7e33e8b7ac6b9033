#!/usr/bin/env bash
#
# 21-receiver-crash — TESTING.md scenario 4: h1 streams 10 000 messages to h2 through
# `lanchat send --lines`; part-way, h2's daemon is killed with SIGKILL and started again while
# h1 keeps sending. Both histories then agree: every message h1 stored is on h2 once, with the
# same id, seq and text, in order, and delivered. A receiver that acknowledged a message before
# it was on disk would lose it here (h1 never sends a delivered message again).

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-delivery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-delivery.sh"

readonly TOTAL=10000 KILL_AT=3000

net_up 2
host_daemon_start h1 --name h1 >/dev/null
host_daemon_start h2 --name h2 >/dev/null
wait_until 5000 "h1 sees h2 online" json_peer_is h1 h2 online >/dev/null

# 200 lines every 20 ms: the stream lasts a few seconds and h2 is busy storing batches all
# along, so the crash hits it in full flow.
started=$(now_ms)
delivery_stream_start h1 h2 stream 1 "$TOTAL" 200 0.02
wait_until 30000 "h2 received $KILL_AT messages" \
  delivery_newest_seq_at_least h2 h1 "$KILL_AT" >/dev/null
host_bg_pid h1 stream >/dev/null ||
  fail "the stream ended before h2 was killed: nothing was in flight"
killed=$(host_daemon_kill h2)
netsim_log "h2's lanchatd killed (SIGKILL) $((killed - started)) ms into the stream"

# The store h2 restarts from is whatever was on disk at the kill.
ready=$(host_daemon_start h2 --name h2)
netsim_log "h2 ready again $((ready - killed)) ms after the kill"
at_restart=$(delivery_newest_seq h2 h1)
netsim_log "h2 restarted holding messages up to seq $at_restart of $TOTAL"
((at_restart < TOTAL)) ||
  fail "h2 already had all $TOTAL messages when it was killed: the crash missed the stream"

status=$(host_bg_wait h1 stream 60000)
[[ $status == 0 ]] ||
  fail "lanchat send --lines on h1 exited $status while h2 crashed (it only talks to h1's daemon)"
printed=$(delivery_printed_ids h1 stream | sort -u | wc -l)
((printed == TOTAL)) || fail "lanchat send printed $printed distinct ids, expected $TOTAL"
wait_until 60000 "all $TOTAL messages delivered" delivery_all_delivered h1 h2 "$TOTAL" >/dev/null
netsim_log "figure: $TOTAL messages with a receiver crash delivered" \
  "$(($(now_ms) - started)) ms after the stream started"

delivery_verify_stream h1 h2 "$TOTAL" || fail "h2's crash broke exactly-once, in-order delivery"
