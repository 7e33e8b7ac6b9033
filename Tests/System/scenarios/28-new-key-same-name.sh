#!/usr/bin/env bash
#
# 28-new-key-same-name — TESTING.md scenario 14 (PRODUCT.md §6, PROTOCOL.md §3.8 rows 7 and 8):
# h2 is reinstalled with a new key under its old name (daemon stopped, data directory moved
# away, started again). h1 (which had verified h2) and h3 (which had not) both list the new key
# as a new, unverified peer with a marker and a one-line warning in `who` and `status`, and a
# logged `peer.keyMismatch` event; `lanchat send h2` is refused as ambiguous (exit 67, both key
# tags listed) instead of reaching the new key, and a message to the old key stays queued.
# Then `verify NEW NUMBER --link` (h1) and `verify NEW --link` (h3) link the new key: the held
# message goes to it, the name and conversation move, and the warning stays settled across a
# restart of h1.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-discovery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-discovery.sh"

net_up 3
for h in h1 h2 h3; do host_daemon_start "$h" --name "$h" >/dev/null; done
for h in h1 h3; do wait_until 5000 "$h sees h2 online" json_peer_is "$h" h2 online >/dev/null; done
wait_until 5000 "h2 sees h1 online" json_peer_is h2 h1 online >/dev/null

host_run h1 lanchat send h2 --wait "hello old h2" >/dev/null || fail "first send failed"
number=$(host_run h2 lanchat verify h1 --json | jq -r .safetyNumber)
host_run h1 lanchat verify h2 "$number" >/dev/null || fail "h1 could not verify h2"
old_tag=$(json_peer h1 h2 | jq -r .keyTag)
host_bg h1 watch lanchat watch --json
host_bg h3 watch lanchat watch --json

host_daemon_stop h2 >/dev/null
host_run h2 sh -c 'mv "$XDG_DATA_HOME/lanchat" "$XDG_DATA_HOME/lanchat.reinstalled-away"'
host_daemon_start h2 --name h2 >/dev/null
new_tag=$(host_run h2 lanchat status --json | jq -r .keyTag)
[[ $new_tag != "$old_tag" ]] || fail "h2 kept its key"

for h in h1 h3; do
  warned() { [[ $(host_run "$1" lanchat who --json | jq -r '.keyChanges[0].peer.keyTag') == "$new_tag" ]]; }
  wait_until 8000 "$h warns that h2 uses a new key" warned "$h" >/dev/null
  host_run "$h" lanchat who | grep "^! h2 .*$new_tag" >/dev/null || fail "$h's who has no marker on the new h2"
  host_run "$h" lanchat status | grep "h2 is now using a different key ($new_tag; $old_tag" >/dev/null ||
    fail "$h's status has no warning"
  event() { grep -q '"type":"peer.keyMismatch"' "$(host_log "$1" watch)"; }
  wait_until 3000 "$h logged peer.keyMismatch" event "$h" >/dev/null
  trust=$(host_run "$h" lanchat who --all --json | jq -r ".peers[] | select(.keyTag == \"$new_tag\") | .trust")
  [[ $trust == unverified ]] || fail "$h trusts the new key: $trust"

  set +e
  refused=$(host_run "$h" lanchat send h2 "for h2" 2>&1)
  status=$?
  set -e
  [[ $status == 67 ]] || fail "$h: send h2 exited $status, not 67 (ambiguous): $refused"
  grep -q "$new_tag" <<<"$refused" && grep -q "$old_tag" <<<"$refused" ||
    fail "$h: the refusal does not list both key tags: $refused"
done

# The verified h2's key changed: a message to the old key is held, never re-pinned.
host_run h1 lanchat send "$old_tag" "held for the old key" >/dev/null || fail "send to the old key failed"
[[ $(host_run h2 lanchat history h1 --json 2>/dev/null | jq '.messages | length') == 0 ]] ||
  fail "the new h2 received a message"
[[ $(json_history_count h1 "$old_tag" queued) == 1 ]] || fail "the message to the old key is not held"
netsim_log "new key under an old name: warned, event logged, name ambiguous, old key held"
for h in h1 h3; do host_bg_stop "$h" watch >/dev/null; done

# Verify and link (§3.8 rows 7 and 8): h1 compares numbers with the new h2 and links it. The
# held message goes to the new key, the conversation and the name move to it.
new_number=$(host_run h2 lanchat verify h1 --json | jq -r .safetyNumber)
linked=$(host_run h1 lanchat verify "$new_tag" "$new_number" --link --json) ||
  fail "h1 could not link the new h2: $linked"
[[ $(jq -r '.verified, .linked.previous.keyTag, .linked.messages, .linked.released' <<<"$linked" | paste -sd ' ') == "true $old_tag 2 1" ]] ||
  fail "the link moved something else: $linked"
held_arrived() { host_run h2 lanchat history h1 --json | jq -e '.messages[] | select(.text == "held for the old key")' >/dev/null; }
wait_until 5000 "the new h2 receives the message held for the old key" held_arrived >/dev/null
delivered_both() { [[ $(json_history_count h1 h2 delivered) == 2 ]]; }
wait_until 5000 "h1's conversation with h2 (now the new key) has both delivered" delivered_both >/dev/null
[[ $(host_run h1 lanchat who --json | jq '.keyChanges | length') == 0 ]] || fail "h1 still warns after the link"
host_run h1 lanchat send h2 --wait "after the link" >/dev/null || fail "h1's send h2 after the link failed"

# h3 had not verified h2: it links without numbers, and the new key stays unverified.
host_run h3 lanchat verify "$new_tag" --link >/dev/null || fail "h3 could not link the new h2"
trust=$(host_run h3 lanchat who --all --json | jq -r ".peers[] | select(.keyTag == \"$new_tag\") | .trust")
[[ $trust == unverified ]] || fail "h3's link without numbers verified the new key: $trust"

# Settled for good: after h1 restarts, the new h2's HELLO (processed before its message) raises
# no warning again.
host_daemon_stop h1 >/dev/null
host_daemon_start h1 --name h1 >/dev/null
new_online() { host_run h1 lanchat who --json | jq -e --arg tag "$new_tag" 'any(.peers[]; .keyTag == $tag)' >/dev/null; }
wait_until 8000 "h1 sees the new h2 online again" new_online >/dev/null
host_run h2 lanchat send h1 "h2 again" >/dev/null || fail "the new h2 could not write to h1"
again_arrived() { host_run h1 lanchat history h2 --json | jq -e '.messages[] | select(.text == "h2 again")' >/dev/null; }
wait_until 8000 "h1 receives the new h2's message after its restart" again_arrived >/dev/null
[[ $(host_run h1 lanchat who --json | jq '.keyChanges | length') == 0 ]] || fail "the settled warning came back"
netsim_log "verify --link: held message released to the new key, name moved, warning stays settled"
