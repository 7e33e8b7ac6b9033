#!/usr/bin/env bash
#
# 29-groups — issue 13's acceptance (PRODUCT.md §4 groups, PROTOCOL.md §9.7): h1 creates a group
# of 4 with h2, h3, h4 (found over mDNS); every member learns it. h4's daemon stops while h1 and
# h2 each send 50 messages to the group: h3 has all 100 at once, h4 gets each exactly once and in
# each sender's order when it is back, and the senders' `history --json` shows each member's
# copy right at every step (h4 queued, then delivered). A rename by h2 shows on all four. h3 is
# removed: it sees that (the group lists it no more, it cannot send) and gets nothing sent after.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-discovery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-discovery.sh"

readonly PER_SENDER=50 HOSTS=(h1 h2 h3 h4)

net_up 4
for h in "${HOSTS[@]}"; do host_daemon_start "$h" --name "$h" >/dev/null; done
for h in "${HOSTS[@]}"; do
  for p in "${HOSTS[@]}"; do
    [[ $h == "$p" ]] || wait_until 10000 "$h sees $p online" json_peer_is "$h" "$p" online >/dev/null
  done
done
declare -A id
for h in "${HOSTS[@]}"; do id[$h]=$(json_peer_id h1 "$h" 2>/dev/null || true); done
id[h1]=$(json_peer_id h2 h1)

gid=$(host_run h1 lanchat group create ops h2 h3 h4)
[[ $gid =~ ^[0-9a-f]{32}$ ]] || fail "group create printed '$gid', not a group id"

# group_field H FIELD — FIELD of the group as H holds it (empty when H does not hold it).
group_field() {
  host_run "$1" lanchat groups --json | jq -r --arg gid "$gid" \
    ".groups[] | select(.id == \$gid) | $2"
}
group_version_is() { [[ $(group_field "$1" .version) == "$2" ]]; }
for h in h2 h3 h4; do wait_until 5000 "$h holds the group" group_version_is "$h" 1 >/dev/null; done
[[ $(group_field h4 '.members | length') == 4 ]] || fail "h4 does not list 4 members"
netsim_log "a group of 4 created by h1 reached every member"

# ---- h4 away: 50 messages from h1 and 50 from h2 ---------------------------------------------
host_daemon_stop h4 >/dev/null
for h in h1 h2 h3; do wait_until 5000 "$h sees h4 offline" json_peer_is "$h" h4 offline >/dev/null; done

# texts FIRST LAST — the lines "msg 000FIRST" … "msg 000LAST".
texts() { for ((i = $1; i <= $2; i++)); do printf 'msg %06d\n' "$i"; done; }
host_bg h1 send-h1 bash -c "$(declare -f texts); texts 1 $PER_SENDER | lanchat send '#ops' --lines"
host_bg h2 send-h2 bash -c \
  "$(declare -f texts); texts $((PER_SENDER + 1)) $((2 * PER_SENDER)) | lanchat send '#ops' --lines"
for h in h1 h2; do
  [[ $(host_bg_wait "$h" "send-$h" 30000) == 0 ]] ||
    fail "$h's group send failed: $(tail -3 "$(host_log "$h" "send-$h")")"
done

# group_messages H — H's whole group conversation, oldest first (one page holds it).
group_messages() { host_run "$1" lanchat history "$gid" --json --limit 1000 | jq -c .messages; }
# has_all H N — H holds N messages of the group.
has_all() { [[ $(group_messages "$1" | jq length) == "$2" ]]; }
# check_senders_order H — each sender's messages are in H's history exactly once, in its order,
# with their sender; prints nothing, fails with the reason.
check_senders_order() {
  local all=$1 host=$2 from first last expected got
  for from in h1 h2; do
    if [[ $from == h1 ]]; then first=1 last=$PER_SENDER; else
      first=$((PER_SENDER + 1)) last=$((2 * PER_SENDER))
    fi
    expected=$(texts "$first" "$last")
    got=$(jq -r --arg sender "${id[$from]}" '.[] | select(.sender == $sender) | .text' <<<"$all" |
      grep '^msg ' || true)
    [[ $got == "$expected" ]] ||
      fail "$host does not hold $from's messages exactly once in order: $(diff <(echo "$expected") <(echo "$got") | sed -n 1,5p)"
  done
}
# statuses H — "PEER:STATUS …" of each member copy of H's own messages, one message a line.
statuses() {
  group_messages "$1" | jq -r '.[] | select(.direction == "out")
    | [.recipients[] | "\(.peer):\(.status)"] | sort | join(" ")'
}
# own_statuses_are H EXPECTED — every own message of H shows EXPECTED (from statuses).
own_statuses_are() {
  local got
  got=$(statuses "$1" | sort -u)
  [[ $got == "$2" ]]
}
expected_for() { # expected_for SENDER H4STATUS
  local p out=()
  for p in "${HOSTS[@]}"; do
    [[ $p == "$1" ]] && continue
    if [[ $p == h4 ]]; then out+=("${id[$p]}:$2"); else out+=("${id[$p]}:delivered"); fi
  done
  printf '%s\n' "${out[@]}" | sort | paste -sd' '
}

wait_until 10000 "h3 holds all $((2 * PER_SENDER)) messages" has_all h3 $((2 * PER_SENDER)) >/dev/null
check_senders_order "$(group_messages h3)" h3
for h in h1 h2; do
  wait_until 5000 "$h's copies: h4 queued, the others delivered" \
    own_statuses_are "$h" "$(expected_for "$h" queued)" >/dev/null
  [[ $(statuses "$h" | wc -l) == "$PER_SENDER" ]] || fail "$h's history does not show its $PER_SENDER messages once"
  [[ $(group_messages "$h" | jq -r '[.[] | select(.direction == "out")][0].status') == queued ]] ||
    fail "$h's message is not queued while a member is away"
done
netsim_log "h4 away: h3 has all $((2 * PER_SENDER)), the senders show h4's copies queued"

host_daemon_start h4 --name h4 >/dev/null
wait_until 15000 "h4 holds all $((2 * PER_SENDER)) messages" has_all h4 $((2 * PER_SENDER)) >/dev/null
check_senders_order "$(group_messages h4)" h4
[[ $(group_messages h4 | jq '[.[] | .id] | unique | length') == $((2 * PER_SENDER)) ]] ||
  fail "h4 holds a message twice"
for h in h1 h2; do
  wait_until 10000 "$h's copies all delivered" \
    own_statuses_are "$h" "$(expected_for "$h" delivered)" >/dev/null
done
netsim_log "h4 back: each of the $((2 * PER_SENDER)) once, in each sender's order; all delivered"

# ---- a rename by another member shows on all --------------------------------------------------
host_run h2 lanchat group rename '#ops' ops-2 >/dev/null
name_is() { [[ $(group_field "$1" .name) == "$2" ]]; }
for h in "${HOSTS[@]}"; do wait_until 5000 "$h shows the new name" name_is "$h" ops-2 >/dev/null; done
netsim_log "h2's rename shows on all four"

# ---- h3 removed: it knows, and gets nothing more ----------------------------------------------
host_run h1 lanchat group remove '#ops-2' h3 >/dev/null
members_are() { [[ $(group_field "$1" '[.members[].id] | sort | join(" ")') == "$2" ]]; }
remaining=$(printf '%s\n' "${id[h1]}" "${id[h2]}" "${id[h4]}" | sort | paste -sd' ')
for h in "${HOSTS[@]}"; do
  wait_until 5000 "$h sees h3 removed" members_are "$h" "$remaining" >/dev/null
done
if host_run h3 lanchat send '#ops-2' "still here?" >/dev/null 2>&1; then
  fail "h3 could send to a group it was removed from"
fi
host_run h1 lanchat send --wait '#ops-2' "after the removal" >/dev/null ||
  fail "send --wait to the group failed after the removal"
host_run h2 lanchat send --wait '#ops-2' "h2 after the removal" >/dev/null ||
  fail "h2's send --wait failed after the removal"
for h in h2 h4; do
  wait_until 5000 "$h got h1's message" has_all "$h" $((2 * PER_SENDER + 2)) >/dev/null
done
[[ $(group_messages h1 | jq -r '.[-2].recipients | length') == 2 ]] ||
  fail "h1's message after the removal did not go to exactly 2 members"
has_all h3 $((2 * PER_SENDER)) || fail "h3 got a message sent after its removal"
netsim_log "h3 removed: it sees it, and nothing sent after reached it"
