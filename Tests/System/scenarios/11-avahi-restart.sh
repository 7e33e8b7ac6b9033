#!/usr/bin/env bash
#
# 11-avahi-restart — TESTING.md scenario 8 and PRODUCT.md §3 ("starts even when avahi-daemon is
# absent or restarts"): avahi-daemon of h1 is stopped cleanly and started again, then killed (a
# crash) and started again. h1's lanchatd never exits, reports Avahi `connecting` while the
# daemon is gone and `running` after, keeps its live session, warns once per outage, and is
# published again within 5 s of each restart; h3, a host that joins after the restart, finds h1
# through mDNS and delivers a message to it. h4's lanchatd starts while its avahi-daemon is
# stopped: it serves the CLI, warns exactly once, and publishes when avahi-daemon appears.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-discovery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-discovery.sh"

# How long after an avahi-daemon (re)start its lanchatd must be listed again by the others.
REPUBLISH_TARGET_MS=5000

net_up 4

# h3 joins later and h4 starts without Avahi: their avahi-daemons go now, before anything was
# published, so h3's cache will be empty when it starts and all it resolves comes from the LAN.
host_avahi_stop h3
host_avahi_stop h4

# avahi_warnings H MARK — lines of H's lanchatd log after MARK at warning level or above that
# mention avahi-daemon.
avahi_warnings() {
  log_since "$1" lanchatd "$2" | grep -E ' (warning|error|critical) ' | grep -c 'avahi' || true
}

# ---- h4: a daemon that starts while avahi-daemon is stopped -----------------------------------
h4_log_start=$(log_mark h4 lanchatd)
host_daemon_start h4 --name h4 >/dev/null
status_field_is h4 avahi connecting ||
  fail "h4's status does not report avahi connecting: $(json_status h4 | jq -c '{avahi}')"
netsim_log "h4's lanchatd serves 'lanchat status' without avahi-daemon (avahi: connecting)"

# ---- h1 and h2 online to each other -----------------------------------------------------------
host_daemon_start h1 --name h1 >/dev/null
host_daemon_start h2 --name h2 >/dev/null
wait_until 5000 "h1 sees h2 online" json_peer_is h1 h2 online >/dev/null
wait_until 5000 "h2 sees h1 online" json_peer_is h2 h1 online >/dev/null
h1_pid=$(host_daemon_pid h1)
h1_id=$(json_status h1 | jq -r .id)
h2_id=$(json_status h2 | jq -r .id)
wait_until 5000 "h2 resolves h1's record" mdns_has_id h2 "$h1_id" >/dev/null
h1_escaped=$(mdns_rows_for_id h2 "$h1_id" | sed -n 1p | cut -d ';' -f 4)
netsim_log "h1 is published as '$(mdns_unescape "$h1_escaped")'"
mdns_watch_start h2
wait_until 5000 "h2's browser resolves h1" mdns_watch_resolved_since h2 0 "$h1_id" >/dev/null

# h1_still_fine — h1's lanchatd runs with the same PID and its session with h2 is up.
h1_still_fine() {
  [[ $(host_daemon_pid h1) == "$h1_pid" ]] || fail "h1's lanchatd exited"
  json_peer_is h1 h2 online || fail "h1 lost its session with h2"
}

# ---- clean restart: goodbye, then published again ---------------------------------------------
mark=$(mdns_watch_mark h2)
h1_log=$(log_mark h1 lanchatd)
host_avahi_stop h1
wait_until 5000 "h1 reports avahi connecting" status_field_is h1 avahi connecting >/dev/null
wait_until 5000 "h2 sees h1's record withdrawn (goodbye)" \
  mdns_watch_removed_since h2 "$mark" "$h1_escaped" >/dev/null
h1_still_fine
restarted=$(now_ms)
host_avahi_start h1
wait_until 15000 "h2 resolves h1's record again" \
  mdns_watch_resolved_since h2 "$mark" "$h1_id" >/dev/null
elapsed=$(($(now_ms) - restarted))
netsim_log "figure: clean avahi-daemon restart on h1 -> h1 resolved again on h2 after $elapsed ms"
((elapsed <= REPUBLISH_TARGET_MS)) ||
  fail "h1 was listed again on h2 only $elapsed ms after avahi-daemon restarted"
mdns_has_id h2 "$h1_id" || fail "a one-shot avahi-browse -rtp on h2 does not resolve h1"
wait_until 5000 "h1 reports avahi running" status_field_is h1 avahi running >/dev/null
h1_still_fine
warnings=$(avahi_warnings h1 "$h1_log")
netsim_log "h1 logged $warnings warning(s) about avahi-daemon during the outage"
((warnings == 1)) || fail "h1 logged $warnings warnings about avahi-daemon for one outage"

# ---- crash: no goodbye, then published again --------------------------------------------------
h1_log=$(log_mark h1 lanchatd)
host_avahi_kill h1
wait_until 5000 "h1 reports avahi connecting" status_field_is h1 avahi connecting >/dev/null
# h2 keeps the records of a crashed host in its cache, so h2 cannot tell a republished record
# from the old one; h3's avahi-daemon, started now, has an empty cache and gets only what a live
# responder announces.
host_avahi_start h3
mdns_watch_start h3
wait_until 5000 "h3's browser resolves h2" mdns_watch_resolved_since h3 0 "$h2_id" >/dev/null
! mdns_has_id h3 "$h1_id" || fail "h3 resolves h1 while h1's avahi-daemon is dead"
h1_still_fine
mark=$(mdns_watch_mark h3)
restarted=$(now_ms)
host_avahi_start h1
wait_until 15000 "h3 resolves h1's record" mdns_watch_resolved_since h3 "$mark" "$h1_id" >/dev/null
elapsed=$(($(now_ms) - restarted))
netsim_log "figure: avahi-daemon crash and start on h1 -> h1 resolved on a fresh h3" \
  "after $elapsed ms"
((elapsed <= REPUBLISH_TARGET_MS)) ||
  fail "h1 was published again only $elapsed ms after avahi-daemon started after the crash"
mdns_has_id h2 "$h1_id" || fail "h2 does not resolve h1 after h1's avahi-daemon crash"
wait_until 5000 "h1 reports avahi running" status_field_is h1 avahi running >/dev/null
h1_still_fine
warnings=$(avahi_warnings h1 "$h1_log")
netsim_log "h1 logged $warnings warning(s) about avahi-daemon during the crash"
((warnings == 1)) || fail "h1 logged $warnings warnings about avahi-daemon for one crash"

# ---- h3 joins after the restart and finds h1 through mDNS --------------------------------------
joined=$(host_daemon_start h3 --name h3)
wait_until 5000 "h3 lists h1 online" json_peer_is h3 h1 online >/dev/null
netsim_log "figure: h3 lists h1 online $(($(now_ms) - joined)) ms after h3 was ready"
address=$(json_peer h3 h1 | jq -r '.addresses[0] // empty')
[[ $address == "$(host_addr4 h1):"* || $address == "[fe80:"* ]] ||
  fail "h3 does not know h1 at h1's announced address: '$address'"
h3_id=$(json_status h3 | jq -r .id)
id=$(host_run h3 lanchat send h1 "found you after the restart")
wait_until 5000 "h1 has h3's message" conversation_has_id h1 "$h3_id" "$id" >/dev/null
wait_until 5000 "h3 sees its message delivered" \
  conversation_sent_all_delivered h3 "$h1_id" >/dev/null
expect_same_conversation h3 h1 "$h3_id" "$h1_id" "$id"
netsim_log "h3 -> h1 delivered once: $(conversation_part h1 "$h3_id" in)"

# ---- h4 warned once, and publishes as soon as avahi-daemon appears ----------------------------
# h4's lanchatd has run without avahi-daemon for the whole scenario so far.
status_field_is h4 avahi connecting || fail "h4 no longer reports avahi connecting"
warnings=$(avahi_warnings h4 "$h4_log_start")
netsim_log "h4 ran $(($(now_ms) - $(host_daemon_ready_ms h4))) ms without avahi-daemon and" \
  "logged $warnings warning(s) about it:" \
  "$(log_since h4 lanchatd "$h4_log_start" | grep 'avahi' | sed -n 1p || true)"
((warnings == 1)) || fail "h4 logged $warnings warnings about the missing avahi-daemon, not 1"
h4_id=$(json_status h4 | jq -r .id)
started=$(now_ms)
host_avahi_start h4
wait_until 5000 "h4 reports avahi running" status_field_is h4 avahi running >/dev/null
wait_until 10000 "h1 resolves h4's record" mdns_has_id h1 "$h4_id" >/dev/null
wait_until 10000 "h1 lists h4 online" json_peer_is h1 h4 online >/dev/null
netsim_log "figure: avahi-daemon started on h4 -> h4 listed online on h1 after" \
  "$(($(now_ms) - started)) ms"

h1_still_fine
[[ ! -e $(host_dir h1)/state/lanchatd.exit ]] || fail "h1's lanchatd exited during the scenario"
