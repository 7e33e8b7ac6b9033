#!/usr/bin/env bash
#
# 33-new-key-budget — PROTOCOL.md §3.8's per-IP throttling of new peers: one host that
# comes with a new key each time (here h2, a new data directory each start) has its first
# 16 keys met and pinned by h1, and the 17th refused at the handshake within the hour, said
# once in h1's log; h1 lists none of the refused keys, and a key it already knows is still
# taken from that address.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-discovery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-discovery.sh"

PORT=7420
BUDGET=16
net_up 2
host_daemon_start h1 --name h1 --no-mdns --port "$PORT" --log-level debug >/dev/null
h1_addr=$(host_addr4 h1)
h2_addr=$(host_addr4 h2)
start_key() {
  host_daemon_start h2 --name "$1" --no-mdns --data-dir "$(host_dir h2)/$1" \
    --peer "$h1_addr:$PORT" >/dev/null
}

for n in $(seq 1 "$BUDGET"); do
  start_key "k$n"
  wait_until 10000 "h1 has met k$n" json_peer_is h1 "k$n" online >/dev/null
  host_daemon_stop h2 >/dev/null
done
netsim_log "h1 met $BUDGET new keys from $h2_addr"

mark=$(log_mark h1 lanchatd)
start_key "k$((BUDGET + 1))"
refused() { log_has_since h1 lanchatd "$mark" "refusing keys never met from $h2_addr"; }
wait_until 10000 "h1 refuses the next new key from $h2_addr" refused >/dev/null
[[ $(json_peer_presence h1 "k$((BUDGET + 1))") == absent ]] ||
  fail "h1 lists a key it refused"
host_daemon_stop h2 >/dev/null
again=$(log_mark h1 lanchatd)
start_key "k$((BUDGET + 2))"
# Its handshake done (not merely held back by the connection rate limit), its key refused.
turned_away() { log_has_since h1 lanchatd "$again" "refused: too many new keys from there"; }
wait_until 10000 "the one after is turned away too" turned_away >/dev/null
[[ $(log_count_since h1 lanchatd "$mark" "refusing keys never met") == 1 ]] ||
  fail "h1 said the refusal more than once"
[[ $(json_peer_presence h1 "k$((BUDGET + 2))") == absent ]] ||
  fail "h1 lists a key it refused"
host_daemon_stop h2 >/dev/null
netsim_log "keys $((BUDGET + 1)) and $((BUDGET + 2)) refused, said once"

# A key h1 knows is still taken from that address.
start_key k1
wait_until 10000 "h1 takes k1 again" json_peer_is h1 k1 online >/dev/null
netsim_log "a known key from $h2_addr still taken"
