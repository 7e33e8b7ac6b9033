#!/usr/bin/env bash
#
# 22-sender-crash — TESTING.md scenario 5: h1 streams 10 000 messages to h2 through
# `lanchat send --lines`; part-way, while it is still sending, h1's daemon is killed with
# SIGKILL and started again (h2 is frozen around the kill, so that committed messages are in
# flight, unacknowledged, when it happens). What h1 committed is what its history shows after
# the restart: it must hold every id `lanchat send` printed, be an unbroken prefix of the
# input (nothing half-written, nothing skipped), and reach h2 exactly once, in order,
# delivered. `lanchat send` waits for the daemon and sends the rest, whether the kill falls
# between two of its calls or during one (that batch is looked for before it is sent again):
# the history is the whole input, each line once, and every line's id is printed once.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-delivery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-delivery.sh"

readonly TOTAL=10000 FREEZE_AT=2000 KILL_AT=3000

net_up 2
host_daemon_start h1 --name h1 >/dev/null
host_daemon_start h2 --name h2 >/dev/null
wait_until 5000 "h1 sees h2 online" json_peer_is h1 h2 online >/dev/null

# 200 lines every 20 ms: the stream lasts a few seconds. Left alone, h2 keeps up with it and
# nothing would be in flight at the kill, so h2's daemon is frozen (SIGSTOP) for the moment of
# the kill: h1 then holds committed messages that h2 has not acknowledged, some of them written
# to the session and waiting in h2's socket buffer.
started=$(now_ms)
delivery_stream_start h1 h2 stream 1 "$TOTAL" 200 0.02
wait_until 30000 "h1 stored $FREEZE_AT messages" \
  delivery_newest_seq_at_least h1 h2 "$FREEZE_AT" >/dev/null
h2_pid=$(host_daemon_pid h2)
kill -STOP "$h2_pid"
netsim_log "h2's lanchatd frozen (SIGSTOP)"
wait_until 30000 "h1 stored $KILL_AT messages" \
  delivery_newest_seq_at_least h1 h2 "$KILL_AT" >/dev/null
unacked=$(delivery_queued h1)
host_bg_pid h1 stream >/dev/null ||
  fail "the stream ended before h1 was killed: nothing was being sent"
killed=$(host_daemon_kill h1)
netsim_log "h1's lanchatd killed (SIGKILL) $((killed - started)) ms into the stream," \
  "with $unacked messages not yet acknowledged"
((unacked > 0)) || fail "h1 had no unacknowledged message at the kill: the crash tested nothing"
kill -CONT "$h2_pid"
# h2 stores what reached its socket before the kill; then its session ends and its store
# stays as it is until h1 is back.
wait_until 15000 "h2 sees h1 offline" json_peer_is h2 h1 offline >/dev/null
before_restart=$(delivery_newest_seq h2 h1)

# `lanchat send` loses its daemon. Killed between two calls (the next one finds nothing
# listening, so nothing of it was stored), or during a call (that batch is stored whole or not
# at all, and is looked for once the daemon is back before it is sent again), it says so and
# waits for the daemon, as after a restart, and sends the rest once it is back, each line once.
stream_log=$(host_log h1 stream)
stream_said() {
  ! host_bg_pid h1 stream >/dev/null ||
    grep -qE 'lanchatd is not running|lanchatd went away' "$stream_log"
}
wait_until 10000 "lanchat send --lines said what happened" stream_said >/dev/null
if host_bg_pid h1 stream >/dev/null; then
  netsim_log "lanchat send --lines waits for its daemon:" \
    "$(grep -E 'lanchatd is not running|lanchatd went away' "$stream_log" | tail -1)"
  ready=$(host_daemon_start h1 --name h1)
  netsim_log "h1 ready again $((ready - killed)) ms after the kill"
  status=$(host_bg_wait h1 stream 60000) || fail "lanchat send --lines did not finish the stream"
  ((status == 0)) || fail "lanchat send --lines exited $status after its daemon came back"
  grep -q 'lanchatd is back' "$stream_log" || fail "lanchat send --lines did not say it went on"
  expected=$TOTAL
else
  status=$(host_bg_wait h1 stream 1000)
  said=$(grep -Ev '^([0-9a-f]{8}-|===)' "$stream_log" | tail -1)
  fail "lanchat send --lines ended (exit $status) instead of waiting for its daemon: $said"
fi
delivery_printed_ids h1 stream | sort >"$NETSIM_DIR/printed-ids"
printed=$(wc -l <"$NETSIM_DIR/printed-ids")
netsim_log "lanchat send printed $printed ids"

# Whatever h1 committed goes out now; wait until its outbox is empty and h2 has caught up.
wait_until 60000 "h1's outbox empty" delivery_queued_is h1 0 >/dev/null
committed=$(delivery_newest_seq h1 h2)
wait_until 30000 "h2 has all $committed committed messages" \
  delivery_newest_seq_at_least h2 h1 "$committed" >/dev/null
netsim_log "figure: h1 committed $committed of $TOTAL messages, h2 had $before_restart of them" \
  "before the restart; the other $((committed - before_restart)) were delivered" \
  "$(($(now_ms) - ready)) ms after h1's restart"
# Every line once, the ones that waited for the daemon (or were on their way) included.
((committed == expected)) || fail "h1 committed $committed of the $expected lines"

# delivery_verify_stream also proves h1's history an unbroken prefix of the input.
delivery_verify_stream h1 h2 "$committed" || fail "h1's crash broke exactly-once, in-order delivery"
jq -r '.[] | select(.direction == "out") | .id' "$NETSIM_DIR/h1-out.json" |
  sort >"$NETSIM_DIR/committed-ids"
lost=$(comm -23 "$NETSIM_DIR/printed-ids" "$NETSIM_DIR/committed-ids" | wc -l)
((lost == 0)) || fail "$lost ids printed by lanchat send are not in h1's history"
# And every line's id printed once: a batch cut off by the kill is found, not sent twice.
((committed == printed)) ||
  fail "h1 committed $committed messages but send printed $printed ids"
netsim_log "all $printed printed ids are in h1's history, one per line"
