#!/usr/bin/env bash
#
# 13-presence — `lanchat presence` (PRODUCT.md §4, PROTOCOL.md §10): a new presence and status
# text reach a peer within 1 s over the live session, and the mDNS TXT record says the same
# (`status=away`, `msg=at lunch`); back to available; the text is kept unless --text is given and
# cleared by --text ""; a status text of 128 bytes is accepted whole, one over 128 bytes (ASCII
# or multi-byte) is refused with exit 65 and changes nothing anywhere. A last round with h2's
# avahi-daemon stopped proves the session alone carries presence.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-discovery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-discovery.sh"

net_up 2
host_daemon_start h1 --name h1 >/dev/null
host_daemon_start h2 --name h2 >/dev/null
wait_until 5000 "h2 sees h1 online" json_peer_is h2 h1 online >/dev/null
h1_id=$(json_status h1 | jq -r .id)

# h2_sees STATUS TEXT — h2's `who --json` (online peers) lists h1 with that status and text.
h2_sees() {
  json_online_peer_field_is h2 "$h1_id" status "$1" &&
    json_online_peer_field_is h2 "$h1_id" statusText "$2"
}

# h1_says STATUS TEXT — h1's own `status --json` has that status and text.
h1_says() {
  status_field_is h1 status "$1" && status_field_is h1 statusText "$2"
}

# shown TEXT — TEXT for a progress line: long ones cut, with their size in bytes.
shown() {
  if ((${#1} > 24)); then
    printf "'%s…' (%d bytes)" "${1:0:12}" "$(printf '%s' "$1" | wc -c)"
  else
    printf "'%s'" "$1"
  fi
}

# set_presence STATUS TEXT|- EXPECTED_TEXT TXT_STATUS — run `lanchat presence` on h1 (TEXT `-`:
# without --text), then check h1's own view, h2's view within 1 s (figure), and h2's mDNS view
# of h1's TXT record.
set_presence() {
  local status=$1 text=$2 expected_text=$3 txt_status=$4 set_at elapsed label
  label="$status $(shown "$expected_text")"
  local -a args=(presence "$status")
  [[ $text == - ]] || args+=(--text "$text")
  host_run h1 lanchat "${args[@]}" >/dev/null || fail "lanchat ${args[*]} failed on h1"
  set_at=$(now_ms)
  wait_until 5000 "h2 sees h1 $label" h2_sees "$status" "$expected_text" >/dev/null
  elapsed=$(($(now_ms) - set_at))
  netsim_log "figure: presence $label set on h1 -> in h2's who after $elapsed ms"
  ((elapsed <= 1000)) || fail "h2 saw h1's new presence only $elapsed ms after it was set"
  h1_says "$status" "$expected_text" || fail "h1's own status does not show $label"
  wait_until 10000 "h2's avahi-daemon resolves h1's TXT with status=$txt_status and that msg" \
    mdns_txt_is h2 "$h1_id" "status=$txt_status" "msg=$expected_text" >/dev/null
  netsim_log "figure: h1's TXT record updated on h2 within $(($(now_ms) - set_at)) ms"
}

h2_sees available "" || fail "h2 does not start with h1 available and no status text"
mdns_txt_is h2 "$h1_id" status=avail msg= || fail "h1's TXT does not start as status=avail msg="

# ---- away with a text, back to available, text kept, text cleared -----------------------------
set_presence away "at lunch" "at lunch" away
set_presence available - "at lunch" avail
set_presence busy "" "" busy

# ---- the limit: 128 bytes accepted whole, 129 refused ------------------------------------------
text128=$(printf 'x%.0s' {1..128})
set_presence available "$text128" "$text128" avail

# unchanged — h1, h2 and the TXT record still show the 128-byte text.
unchanged() {
  h1_says available "$text128" || fail "a refused status text changed h1's status"
  h2_sees available "$text128" || fail "a refused status text reached h2"
  mdns_txt_is h2 "$h1_id" status=avail "msg=$text128" || fail "a refused status text reached mDNS"
}

# refused TEXT — `lanchat presence away --text TEXT` exits 65, says why, and nothing changes.
refused() {
  local status=0 output
  output=$(host_run h1 lanchat presence away --text "$1" 2>&1) || status=$?
  netsim_log "presence with a $(shown "$1") text: exit $status: $output"
  ((status == 65)) || fail "a $(shown "$1") status text gave exit $status, not 65"
  [[ $output == *128* ]] || fail "the refusal does not name the 128-byte limit: $output"
  unchanged
}
refused "$(printf 'y%.0s' {1..129})"
# 43 euro signs: 43 characters but 129 bytes; the limit is in bytes.
refused "$(printf '€%.0s' {1..43})"

# Presence still works after the refusals.
set_presence away "back soon" "back soon" away

# ---- over the session alone ----------------------------------------------------------------------
# With h2's avahi-daemon stopped h2 sees no TXT at all; the session stays up (PROTOCOL.md §10)
# and must carry the change by itself.
host_avahi_stop h2
wait_until 5000 "h2's lanchatd notices its avahi-daemon is gone" \
  status_field_is h2 avahi connecting >/dev/null
json_peer_is h2 h1 online || fail "h2 lost its session with h1 when its avahi-daemon stopped"
host_run h1 lanchat presence busy --text "in a meeting" >/dev/null
set_at=$(now_ms)
wait_until 5000 "h2 sees h1 busy without mDNS" h2_sees busy "in a meeting"
elapsed=$(($(now_ms) - set_at))
netsim_log "figure: presence over the session alone reached h2 after $elapsed ms"
((elapsed <= 1000)) || fail "h2 saw h1's presence (no mDNS) only $elapsed ms after it was set"

# ---- the daemon enforces the limit too ----------------------------------------------------------
# For API clients that are not the CLI (PRODUCT.md §7): asked the way lanchat-api(7) shows
# (`echo REQUEST | socat - UNIX-CONNECT:…`), the request gets a JSON-RPC error with the
# bad-input code, and nothing changes.
request=$(jq -cn --arg text "$(printf 'z%.0s' {1..129})" \
  '{jsonrpc: "2.0", id: 1, method: "presence", params: {status: "away", text: $text}}')
# shellcheck disable=SC2016 # expanded by the host's shell
reply=$(host_run h1 sh -c \
  'echo "$1" | socat - "UNIX-CONNECT:$XDG_RUNTIME_DIR/lanchat/lanchatd.sock"' sh "$request")
netsim_log "API presence with a 129-byte text, as lanchat-api(7) shows it: '$reply'"
[[ $(jq -r '.error.code' <<<"${reply:-null}") == -32001 ]] ||
  fail "the daemon did not answer a 129-byte status text with a bad-input error: '$reply'"
h1_says busy "in a meeting" || fail "a refused API request changed h1's presence"
