#!/usr/bin/env bash
#
# 14-discovery-hostile — PROTOCOL.md §3.3 and §7.3 items 44–45: h3 publishes malformed
# `_lanchat._tcp` records with avahi-publish (an id that is not base32, 31- and 33-byte keys,
# non-canonical keys, the longest value a TXT string can hold, duplicate `id` keys, no `id`, and
# h1's own id pointing at h3). h1's lanchatd sees every one of them and drops it: it keeps
# running and serving, lists none of them in `who --all`, never dials them (listeners on h3's
# ports count connections), and keeps exchanging messages with h2 — also after a restart with
# the records already on the LAN.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-discovery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-discovery.sh"

# The malformed records point at this port of h3, the one with h1's own id at OWN_ID_PORT.
HOSTILE_PORT=7777
OWN_ID_PORT=7778

net_up 3

# ---- key material, built with coreutils -------------------------------------------------------
# b32_of_hex HEX — RFC 4648 base32 without padding of the bytes HEX.
b32_of_hex() {
  local hex=$1 escaped='' i
  for ((i = 0; i < ${#hex}; i += 2)); do escaped+="\\x${hex:i:2}"; done
  # shellcheck disable=SC2059 # the format is the bytes
  printf "$escaped" | base32 -w 0 | tr -d '='
}

# hex_of_b32 ID — the bytes of a 52-character id, in hex.
hex_of_b32() {
  printf '%s====' "$1" | base32 -d | od -An -v -tx1 | tr -d ' \n'
}

# random_hex N — N random bytes in hex.
random_hex() {
  head -c "$1" /dev/urandom | od -An -v -tx1 | tr -d ' \n'
}

# A fresh canonical key (bit 255 clear): were its record accepted, h1 would list it.
fresh_hex=$(random_hex 31)$(printf '%02x' $((0x$(random_hex 1) & 0x7f)))
fresh_id=$(b32_of_hex "$fresh_hex")
other_hex=$(random_hex 31)$(printf '%02x' $((0x$(random_hex 1) & 0x7f)))
other_id=$(b32_of_hex "$other_hex")

# ---- h1 and h2 --------------------------------------------------------------------------------
# Debug level: lanchatd logs every record it drops, with the reason.
host_daemon_start h1 --name h1 --log-level debug >/dev/null
host_daemon_start h2 --name h2 >/dev/null
wait_until 5000 "h1 sees h2 online" json_peer_is h1 h2 online >/dev/null
h1_pid=$(host_daemon_pid h1)
h1_id=$(json_status h1 | jq -r .id)
h2_id=$(json_status h2 | jq -r .id)

# h2's key with bit 255 set: X25519 treats it as h2's key, the canonical check must not.
h2_hex=$(hex_of_b32 "$h2_id")
alias_id=$(b32_of_hex "${h2_hex:0:62}$(printf '%02x' $((0x${h2_hex:62:2} | 0x80)))")
# p = 2^255 - 19 itself: bit 255 clear, but not below p.
p_id=$(b32_of_hex "ed$(printf 'ff%.0s' {1..30})7f")
# 52 characters, three of which are not in the base32 alphabet.
bad_base32_id="018${fresh_id:3}"
# "id=" plus 252 characters: 255 bytes, the longest string a DNS TXT record can hold.
long_id="$fresh_id$(printf 'A%.0s' {1..200})"

# name|TXT strings (separated by ^) of each malformed record.
records=(
  "hostile bad base32|id=$bad_base32_id"
  "hostile 31-byte key|id=$(b32_of_hex "$(random_hex 31)")"
  "hostile 33-byte key|id=$(b32_of_hex "$(random_hex 33)")"
  "hostile bit 255 set|id=$alias_id"
  "hostile key p|id=$p_id"
  "hostile 255-byte id|id=$long_id"
  "hostile duplicate id|id=$fresh_id^id=$fresh_id"
  "hostile two ids|id=$fresh_id^id=$other_id"
  "hostile id and ID|id=$fresh_id^ID=$fresh_id"
  "hostile no id|status=avail^msg=no id here"
)

# ---- listeners that count every connection to h3's ports --------------------------------------
for port in "$HOSTILE_PORT" "$OWN_ID_PORT"; do
  host_bg h3 "listen-$port" socat -d -d "TCP6-LISTEN:$port,ipv6only=0,reuseaddr,fork" SYSTEM:true
done
# accepted PORT — how many connections the listener on PORT of h3 has accepted.
accepted() {
  local count
  count=$(grep -c 'accepting connection' "$(host_log h3 "listen-$1")") || true
  echo "${count:-0}"
}
# probe PORT — connect from h2 to PORT of h3; true once the listener counted it.
probe() {
  host_run h2 socat -u /dev/null "TCP:$(host_addr4 h3):$1,connect-timeout=1" 2>/dev/null &&
    (($(accepted "$1") >= 1))
}
# The listeners do count (one connection from h2 to each); from here on, connections counts
# only what comes after.
declare -A baseline=()
for port in "$HOSTILE_PORT" "$OWN_ID_PORT"; do
  wait_until 5000 "h3's listener on $port counts a connection from h2" probe "$port" >/dev/null
  baseline[$port]=$(accepted "$port")
done
# connections PORT — connections accepted on PORT of h3 since the probes.
connections() {
  echo $(($(accepted "$1") - baseline[$1]))
}

# ---- publish ----------------------------------------------------------------------------------
h1_log=$(log_mark h1 lanchatd)
published=()
index=0
for record in "${records[@]}"; do
  name=${record%%|*}
  IFS='^' read -r -a strings <<<"${record#*|}"
  host_bg h3 "publish-$index" avahi-publish -s "$name" _lanchat._tcp "$HOSTILE_PORT" \
    txtvers=1 v=1 "${strings[@]}"
  published+=("$name")
  index=$((index + 1))
done
host_bg h3 publish-own avahi-publish -s "hostile own id" _lanchat._tcp "$OWN_ID_PORT" \
  txtvers=1 v=1 "id=$h1_id"
published+=("hostile own id")

# A value over 255 bytes cannot be published at all: a DNS TXT string has a one-byte length.
long_value=$(printf 'x%.0s' {1..300})
host_bg h3 publish-300 avahi-publish -s "hostile 300-byte value" _lanchat._tcp "$HOSTILE_PORT" \
  txtvers=1 v=1 "id=$fresh_id" "msg=$long_value"
status=$(host_bg_wait h3 publish-300 5000)
if grep -q 'Failed to add service' "$(host_log h3 publish-300)"; then
  netsim_log "avahi-publish refuses a 304-byte TXT string:" \
    "$(grep -m 1 Failed "$(host_log h3 publish-300)")"
else
  netsim_log "avahi-publish accepted a 304-byte TXT string (exit $status); h1 must drop it too"
  published+=("hostile 300-byte value")
fi

# h1's avahi-daemon resolves every record, so h1's lanchatd had them all in front of it.
# all_resolved_on H — H's avahi-daemon resolves every published record.
all_resolved_on() {
  local rows name
  rows=$(host_browse_once "$1" -rpk _lanchat._tcp 2>/dev/null | grep '^=;eth0;' |
    cut -d ';' -f 4) || return 1
  for name in "${published[@]}"; do
    grep -qxF "${name// /\\032}" <<<"$rows" || return 1
  done
}
wait_until 15000 "h1's avahi-daemon resolves all ${#published[@]} hostile records" \
  all_resolved_on h1 >/dev/null

# all_dropped — h1's lanchatd logged dropping each record (a bad TXT, or our own id).
all_dropped() {
  local name
  for name in "${published[@]}"; do
    log_has_since h1 lanchatd "$h1_log" "ignoring \"$name\" on eth0" || return 1
  done
}
wait_until 10000 "h1's lanchatd dropped every hostile record" all_dropped >/dev/null
for name in "${published[@]}"; do
  reason=$(log_since h1 lanchatd "$h1_log" | grep -F "ignoring \"$name\" on eth0" | sed -n 1p |
    sed 's/.* on eth0: //')
  netsim_log "h1 dropped '$name': $reason"
done
log_has_since h1 lanchatd "$h1_log" 'ignoring "hostile own id" on eth0: it carries our own id' ||
  fail "h1 did not log the record carrying its own id as such"

# Dials start as soon as a record is resolved; give any that would come time to show.
dropped_at=$(now_ms)
while (($(now_ms) < dropped_at + 2000)); do sleep 0.2; done

# expect_unharmed — h1 runs, serves, lists only h2, and dialled none of the hostile records.
expect_unharmed() {
  [[ $(host_daemon_pid h1) == "$h1_pid" ]] || fail "h1's lanchatd is not the one that started"
  status_field_is h1 avahi running || fail "h1's discovery is not running"
  local ids own
  ids=$(json_who h1 | jq -c '[.peers[].id]')
  netsim_log "h1 lists: $(json_who h1 | jq -c '[.peers[] | {name, keyTag, presence}]')"
  [[ $ids == "[\"$h2_id\"]" ]] || fail "h1 lists peers besides h2: $ids"
  (($(connections "$HOSTILE_PORT") == 0)) ||
    fail "h1 connected $(connections "$HOSTILE_PORT") time(s) to the malformed records' port"
  own=$(connections "$OWN_ID_PORT")
  netsim_log "connections to h3: $(connections "$HOSTILE_PORT") to the malformed records," \
    "$own to the record with h1's own id"
  ((own <= 2)) || fail "h1 dialled the record with its own id $own times"
  ! log_since h1 lanchatd "$h1_log" | grep -F -e "$(host_addr4 h3)" -e "$(host_addr6 h3)" >&2 ||
    fail "h1 logged something about h3's addresses (above)"
}
expect_unharmed

# exchange TAG — 5 messages each way between h1 and h2 (texts starting with TAG), each
# delivered exactly once.
exchange() {
  local tag=$1 ids_12 ids_21 i
  ids_12=$(for i in {1..5}; do printf '%s h1 to h2 %02d\n' "$tag" "$i"; done |
    host_run h1 lanchat send "$h2_id" --lines)
  ids_21=$(for i in {1..5}; do printf '%s h2 to h1 %02d\n' "$tag" "$i"; done |
    host_run h2 lanchat send "$h1_id" --lines)
  wait_until 10000 "h1's messages delivered" conversation_sent_all_delivered h1 "$h2_id" >/dev/null
  wait_until 10000 "h2's messages delivered" conversation_sent_all_delivered h2 "$h1_id" >/dev/null
  expect_same_conversation h1 h2 "$h1_id" "$h2_id" "$ids_12"
  expect_same_conversation h2 h1 "$h2_id" "$h1_id" "$ids_21"
  netsim_log "$tag: 5 messages each way between h1 and h2, each delivered once"
}
exchange "records live"

# ---- restart with the records already on the LAN ---------------------------------------------
host_daemon_stop h1 >/dev/null
h1_log=$(log_mark h1 lanchatd)
host_daemon_start h1 --name h1 --log-level debug >/dev/null
h1_pid=$(host_daemon_pid h1)
wait_until 10000 "h1 sees h2 online after its restart" json_peer_is h1 h2 online >/dev/null
wait_until 10000 "the restarted lanchatd dropped every hostile record" all_dropped >/dev/null
dropped_at=$(now_ms)
while (($(now_ms) < dropped_at + 2000)); do sleep 0.2; done
expect_unharmed
exchange "after a restart"
