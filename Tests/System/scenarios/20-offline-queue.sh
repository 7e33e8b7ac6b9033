#!/usr/bin/env bash
#
# 20-offline-queue — TESTING.md scenario 3 and the figure of PRODUCT.md §8: messages sent while
# the peer's daemon is stopped wait in the sender's outbox (`status` counts them) and reach the
# peer exactly once, in order, when it is back: 1 000 first, then 10 000, which must all be
# delivered within 1 s of the peer's daemon becoming ready (measured to h1's `queued` reaching 0
# and to h2 holding all of them; 1 s is the release-build target, a debug build gets 3 s).

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-delivery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-delivery.sh"

readonly FIRST_BATCH=1000 BIG_BATCH=10000 TARGET_MS=1000

net_up 2
host_daemon_start h1 --name h1 >/dev/null
host_daemon_start h2 --name h2 >/dev/null
wait_until 5000 "h1 sees h2 online" json_peer_is h1 h2 online >/dev/null

# queue_while_down FIRST LAST — stop h2's daemon, send messages FIRST…LAST from h1 in one
# `--lines` run, and check that both `status` forms count all of them as queued.
queue_while_down() {
  local first=$1 last=$2 count=$(($2 - $1 + 1)) status started
  host_daemon_stop h2 >/dev/null
  wait_until 3000 "h1 sees h2 offline" json_peer_is h1 h2 offline >/dev/null
  started=$(now_ms)
  delivery_stream_start h1 h2 send "$first" "$last"
  status=$(host_bg_wait h1 send 60000)
  [[ $status == 0 ]] ||
    fail "lanchat send --lines exited $status: $(tail -3 "$(host_log h1 send)")"
  netsim_log "figure: $count messages stored by lanchat send --lines" \
    "in $(($(now_ms) - started)) ms"
  (($(delivery_printed_ids h1 send | sort -u | wc -l) == count)) ||
    fail "lanchat send did not print $count distinct ids"
  [[ $(delivery_queued h1) == "$count" ]] ||
    fail "h1's status --json shows queued $(delivery_queued h1), expected $count"
  status=$(host_run h1 lanchat status)
  grep -Eq "^queued +$count\$" <<<"$status" ||
    fail "lanchat status does not show 'queued $count': $status"
  netsim_log "h2 down: h1 shows $count messages queued"
}

# ---- 1 000 messages while h2 is stopped: all delivered once, in order ---------------------------
queue_while_down 1 "$FIRST_BATCH"
ready=$(host_daemon_start h2 --name h2)
wait_until 30000 "all $FIRST_BATCH messages delivered" \
  delivery_all_delivered h1 h2 "$FIRST_BATCH" >/dev/null
netsim_log "figure: $FIRST_BATCH queued messages delivered" \
  "$(($(now_ms) - ready)) ms after h2 was ready"
delivery_verify_stream h1 h2 "$FIRST_BATCH" ||
  fail "the first $FIRST_BATCH messages were not delivered exactly once, in order"

# ---- the figure: 10 000 queued messages delivered within 1 s of h2's readiness ------------------
total=$((FIRST_BATCH + BIG_BATCH))
queue_while_down $((FIRST_BATCH + 1)) "$total"
ready=$(host_daemon_start h2 --name h2)
wait_until 60000 "all $BIG_BATCH messages delivered" \
  delivery_all_delivered h1 h2 "$total" >/dev/null
delivery_verify_stream h1 h2 "$total" ||
  fail "the $BIG_BATCH queued messages were not delivered exactly once, in order"
# The daemons' own stamps time both ends without polling delay: h1 recording the last ACK (its
# queued count reaching 0) and h2 storing the last message.
emptied_ms=$(($(delivery_last_ms h1 out deliveredAt) - ready))
received_ms=$(($(delivery_last_ms h2 in receivedAt) - ready))
bound=$(delivery_bound_ms "$TARGET_MS")
netsim_log "figure: $BIG_BATCH queued messages: h2 stored the last $received_ms ms and h1" \
  "had it delivered (queued 0) $emptied_ms ms after h2's READY (target ≤ $TARGET_MS ms in a" \
  "release build; this is a $(delivery_build) build, held to $bound ms)"
((emptied_ms <= bound)) ||
  fail "$BIG_BATCH queued messages took $emptied_ms ms after h2 was ready (bound $bound ms)"
