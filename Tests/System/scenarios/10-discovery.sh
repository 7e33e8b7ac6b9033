#!/usr/bin/env bash
#
# 10-discovery — TESTING.md scenario 1 on real avahi-daemons: three daemons started one after
# another each list the other two `online` within 1 s of the later one's readiness; a message
# between two hosts found only through mDNS is delivered; a clean stop is seen as `offline`
# within 1 s; a host whose cable is pulled is `offline` within the dead timeout.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"

# A short dead timeout keeps the pulled-cable part quick; it is the same code path as 60 s.
DEAD_TIMEOUT=4
NETSIM_ENV=("LANCHAT_DEAD_TIMEOUT=$DEAD_TIMEOUT")

net_up 3

# sees_records H N — H's avahi-daemon resolves N _lanchat._tcp services on eth0 (IPv4).
sees_records() {
  (($(host_browse_once "$1" -rpk _lanchat._tcp 2>/dev/null | grep -c '^=;eth0;IPv4;') >= $2))
}

# ---- a new node is listed online by the others within 1 s of its readiness ----------------------
# Nodes join one after another, as on a real LAN. One loop polls every host's `who`, so each
# pair's first sighting is timed on its own.
declare -A ready=()
worst=0
for newcomer in h1 h2 h3; do
  # The LAN exists before the newcomer joins: its avahi-daemon already sees the others.
  wait_until 5000 "$newcomer's avahi-daemon sees the ${#ready[@]} running nodes" \
    sees_records "$newcomer" "${#ready[@]}" >/dev/null
  ready[$newcomer]=$(host_daemon_start "$newcomer" --name "$newcomer")
  pairs=()
  for other in "${!ready[@]}"; do
    [[ $other == "$newcomer" ]] || pairs+=("$newcomer:$other" "$other:$newcomer")
  done
  declare -A seen=()
  deadline=$((ready[$newcomer] + 5000))
  while ((${#seen[@]} < ${#pairs[@]})) && (($(now_ms) < deadline)); do
    for pair in "${pairs[@]}"; do
      [[ -n ${seen[$pair]:-} ]] && continue
      json_peer_is "${pair%%:*}" "${pair##*:}" online && seen[$pair]=$(now_ms)
    done
  done
  for pair in "${pairs[@]}"; do
    [[ -n ${seen[$pair]:-} ]] || fail "${pair%%:*} never listed ${pair##*:} online"
    elapsed=$((seen[$pair] - ready[$newcomer]))
    netsim_log "${pair%%:*} lists ${pair##*:} online $elapsed ms after $newcomer was ready"
    ((elapsed > worst)) && worst=$elapsed
  done
  unset seen
done
netsim_log "slowest: $worst ms (target ≤ 1000 ms)"
((worst <= 1000)) || fail "a peer was listed online $worst ms after readiness (target 1000 ms)"

# Only mDNS put them in touch: no --peer anywhere, and the addresses are the hosts' own.
address=$(json_peer h1 h2 | jq -r '.addresses[0] // empty')
netsim_log "h1 knows h2 at ${address:-no address}"
[[ $address == "$(host_addr4 h2):"* ]] || fail "h1 does not show h2's announced address"

# ---- a message found only through mDNS ---------------------------------------------------------
# last_is H PEER FIELD VALUE — the newest message of H's conversation with PEER has FIELD VALUE.
last_is() { [[ $(json_history_field "$1" "$2" "$3" | tail -1) == "$4" ]]; }
id=$(host_run h1 lanchat send h2 "hello over mDNS")
wait_until 2000 "h2 has the message" last_is h2 h1 id "$id" >/dev/null
wait_until 2000 "h1 sees it delivered" last_is h1 h2 status delivered >/dev/null
last_is h2 h1 text "hello over mDNS" || fail "h2 got another text"

# ---- a clean stop is offline within 1 s --------------------------------------------------------
# CLOSE(shutdown) on every session and the record withdrawn: peers see h3 leave at once.
stopped=$(host_daemon_stop h3)
declare -A gone=()
deadline=$((stopped + 3000))
while ((${#gone[@]} < 2)) && (($(now_ms) < deadline)); do
  for observer in h1 h2; do
    [[ -z ${gone[$observer]:-} ]] && json_peer_is "$observer" h3 offline && gone[$observer]=$(now_ms)
  done
done
for observer in h1 h2; do
  [[ -n ${gone[$observer]:-} ]] || fail "$observer still lists h3 as not offline"
  elapsed=$((gone[$observer] - stopped))
  netsim_log "$observer sees h3 offline $elapsed ms after SIGTERM"
  ((elapsed <= 1000)) || fail "$observer saw h3 offline only $elapsed ms after SIGTERM"
done

# ---- a pulled cable is offline within the dead timeout ------------------------------------------
pulled=$(now_ms)
host_link h2 down
wait_until $((DEAD_TIMEOUT * 1000 + 1500)) "h1 sees h2 offline after the cable was pulled" \
  json_peer_is h1 h2 offline >/dev/null
netsim_log "h1 sees h2 offline $(($(now_ms) - pulled)) ms after its cable was pulled (dead timeout ${DEAD_TIMEOUT} s)"
host_link h2 up
wait_until 15000 "h1 sees h2 online again" json_peer_is h1 h2 online >/dev/null
netsim_log "h2 back online $WAITED_MS ms after its cable was plugged back"
