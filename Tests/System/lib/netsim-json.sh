# shellcheck shell=bash
#
# netsim JSON helpers: read lanchat's --json output (PRODUCT.md §4 "JSON shapes") with jq, in the
# shapes scenarios check. All of them run the CLI inside a host. Sourced by netsim.sh.
#
#   lanchat who --all --json      {"peers":[{"id","keyTag","name","presence",…}]}
#   lanchat history P --json      {"messages":[{"id","seq","text","status",…}],…}  (oldest first)

# Page size used by json_history_all.
: "${NETSIM_HISTORY_PAGE:=1000}"

# json_who H — every peer H knows (`lanchat who --all --json`), online or not.
json_who() {
  host_run "$1" lanchat who --all --json
}

# json_peer H NAME — the peer object (compact JSON) H knows under the display name NAME;
# returns 1 when there is none.
json_peer() {
  local json
  json=$(json_who "$1") || return 1
  jq -ce --arg name "$2" 'first(.peers[] | select(.name == $name))' <<<"$json" 2>/dev/null
}

# json_peer_presence H NAME — online, offline or discovering as H sees NAME; "absent" when H
# does not know NAME (or its daemon does not answer).
json_peer_presence() {
  local peer
  if peer=$(json_peer "$1" "$2"); then
    jq -r '.presence' <<<"$peer"
  else
    echo absent
  fi
}

# json_peer_is H NAME PRESENCE — true when H sees NAME with PRESENCE (or "absent"); made for
# wait_until: `wait_until 1000 "h1 sees h2 online" json_peer_is h1 h2 online`.
json_peer_is() {
  [[ $(json_peer_presence "$1" "$2") == "$3" ]]
}

# json_peer_id H NAME — the 52-character id H knows for NAME.
json_peer_id() {
  local peer
  peer=$(json_peer "$1" "$2") || return 1
  jq -r '.id' <<<"$peer"
}

# json_history H PEER [ARGS…] — one page of the conversation with PEER, as H has it
# (`lanchat history PEER --json ARGS…`).
json_history() {
  local host=$1 peer=$2
  shift 2
  host_run "$host" lanchat history "$peer" --json "$@"
}

# json_history_all H PEER — the whole conversation with PEER as one JSON array, oldest first.
# Pages backwards (--before the oldest id seen) until a page comes back empty, so it needs no
# assumption about the daemon's largest page.
json_history_all() {
  local host=$1 peer=$2 page before='' count
  local -a pages=() args=()
  while true; do
    args=(--limit "$NETSIM_HISTORY_PAGE")
    [[ -z $before ]] || args+=(--before "$before")
    page=$(json_history "$host" "$peer" "${args[@]}") || return 1
    count=$(jq '.messages | length' <<<"$page") || return 1
    ((count > 0)) || break
    pages+=("$page")
    before=$(jq -r '.messages[0].id' <<<"$page")
  done
  if ((${#pages[@]} == 0)); then
    echo '[]'
    return 0
  fi
  printf '%s\n' "${pages[@]}" | jq -cs 'reverse | map(.messages) | add'
}

# json_history_field H PEER FIELD — FIELD (text, seq, status, id, direction, …) of every message
# of the conversation, one a line, oldest first.
json_history_field() {
  local all
  all=$(json_history_all "$1" "$2") || return 1
  jq -r --arg field "$3" '.[] | .[$field] | tostring' <<<"$all"
}

# json_history_count H PEER [STATUS] — how many messages the conversation has (with STATUS, only
# those whose status is STATUS: queued, sent, delivered, read, failed).
json_history_count() {
  local all
  all=$(json_history_all "$1" "$2") || return 1
  jq --arg status "${3:-}" '[.[] | select($status == "" or .status == $status)] | length' <<<"$all"
}
