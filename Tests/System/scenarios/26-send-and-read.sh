#!/usr/bin/env bash
#
# 26-send-and-read — TESTING.md scenario 2 (PRODUCT.md §4, PROTOCOL.md §9.5): `send --wait-read`
# from h1 to h2, found over mDNS, returns once h2 runs `lanchat read`; h2's inbox and status
# count the unread message exactly before and nothing after; h1's history shows it `read` with a
# readAt; `lanchat watch --json` on h1 saw the read status as an event. Then h2's daemon stops
# and h1 sends again: h2 reads after its restart and h1 sees `read` through HELLO (in_read).

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-discovery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-discovery.sh"

net_up 2
host_daemon_start h1 --name h1 >/dev/null
host_daemon_start h2 --name h2 >/dev/null
wait_until 5000 "h1 sees h2 online" json_peer_is h1 h2 online >/dev/null
wait_until 5000 "h2 sees h1 online" json_peer_is h2 h1 online >/dev/null

host_bg h1 watch lanchat watch --json
watch_out=$(host_log h1 watch)
host_bg h1 send-wait-read lanchat send h2 --wait-read --timeout 20 "read me please"

unread_is() { [[ $(json_status h2 | jq -r .unread) == "$1" ]]; }
wait_until 5000 "h2 counts 1 unread" unread_is 1 >/dev/null
[[ $(host_run h2 lanchat inbox --json | jq -r '.conversations[0].unread') == 1 ]] ||
  fail "h2's inbox does not count the message unread"
read_at=$(now_ms)
host_run h2 lanchat read h1 | grep "read me please" >/dev/null || fail "lanchat read did not print it"
[[ $(host_bg_wait h1 send-wait-read 10000) == 0 ]] ||
  fail "send --wait-read did not succeed after h2 read: $(cat "$(host_log h1 send-wait-read)")"
netsim_log "send --wait-read returned $(($(now_ms) - read_at)) ms after h2 read"
unread_is 0 || fail "h2 still counts unread messages"
[[ $(host_run h2 lanchat inbox --json | jq -r '.conversations[0].unread') == 0 ]] ||
  fail "h2's inbox still counts it unread"
status=$(host_run h1 lanchat history h2 --json | jq -r '.messages[-1] | "\(.status) \(.readAt != null)"')
[[ $status == "read true" ]] || fail "h1's history shows '$status', not read with readAt"
watch_saw_read() { grep -q '"status":"read"' "$watch_out"; }
wait_until 2000 "h1's watch saw the read status" watch_saw_read >/dev/null

# A read while the sender is away reaches it when it is back (HELLO's in_read).
host_run h1 lanchat send h2 --wait "once more" >/dev/null || fail "send --wait failed"
host_daemon_stop h1 >/dev/null
host_run h2 lanchat read h1 | grep "once more" >/dev/null || fail "h2 could not read while h1 was away"
host_daemon_start h1 --name h1 >/dev/null
last_is_read() {
  [[ $(host_run h1 lanchat history h2 --json | jq -r '.messages[-1].status') == read ]]
}
wait_until 5000 "h1 sees 'once more' read after its restart" last_is_read >/dev/null
netsim_log "read receipts: live and after a restart of the sender"
host_bg_stop h1 watch >/dev/null
