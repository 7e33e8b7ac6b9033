# shellcheck shell=bash
#
# netsim discovery helpers for the discovery and presence scenarios (11–14): what a host's own
# avahi-daemon resolves for `_lanchat._tcp`, log lines counted from a mark, and the two sides of
# a conversation in a comparable form. Not sourced by netsim.sh: the scenarios that need it
# source it themselves, after netsim.sh.
#
# Rows are `avahi-browse -p` rows, e.g.
#   =;eth0;IPv4;h1\032\040LDIE-WCYV\041;_lanchat._tcp;local;h1.local;169.254.0.1;40769;"v=1" …
# fields: event, interface, protocol, instance name (escaped: \DDD is a decimal byte, \X is X),
# type, domain, then for resolved (`=`) rows host, address, port and the TXT strings, each in
# double quotes.

# The service type every helper looks at.
: "${MDNS_TYPE:=_lanchat._tcp}"

# ---------------------------------------------------------------------------------------------
# One-shot views (`host_browse_once H -rpk`: browse, resolve, exit after "all for now")
# ---------------------------------------------------------------------------------------------

# mdns_rows H — the resolved rows H's avahi-daemon gives for _lanchat._tcp on eth0, both
# families. Empty when there are none (or avahi-daemon of H is not running).
mdns_rows() {
  host_browse_once "$1" -rpk "$MDNS_TYPE" 2>/dev/null | grep '^=;eth0;' || true
}

# mdns_rows_for_id H ID — the resolved rows on H whose TXT carries exactly `id=ID`.
mdns_rows_for_id() {
  mdns_rows "$1" | grep -F "\"id=$2\"" || true
}

# mdns_has_id H ID — true when H resolves a _lanchat._tcp service whose TXT is `id=ID`.
mdns_has_id() {
  [[ -n $(mdns_rows_for_id "$1" "$2") ]]
}

# mdns_txt_is H ID STRING… — true when H resolves a service with `id=ID` and every STRING
# (`status=away`, `msg=at lunch`) is one of its TXT strings, byte for byte.
mdns_txt_is() {
  local host=$1 id=$2 rows string
  shift 2
  rows=$(mdns_rows_for_id "$host" "$id")
  [[ -n $rows ]] || return 1
  for string in "$@"; do
    grep -qF "\"$string\"" <<<"$rows" || return 1
  done
}

# mdns_unescape NAME — an instance name as avahi-browse -p prints it, back to its bytes
# (`h1\032\040LDIE-WCYV\041` → `h1 (LDIE-WCYV)`).
mdns_unescape() {
  local rest=$1 out='' escaped code
  while [[ $rest =~ ^([^\\]*)\\(.)(.*)$ ]]; do
    out+=${BASH_REMATCH[1]}
    escaped=${BASH_REMATCH[2]}
    rest=${BASH_REMATCH[3]}
    if [[ $escaped == [0-9] && ${rest:0:2} == [0-9][0-9] ]]; then
      code=$((10#$escaped${rest:0:2}))
      rest=${rest:2}
      # shellcheck disable=SC2059 # the format is the escape itself
      out+=$(printf "\\$(printf '%03o' "$code")")
    else
      out+=$escaped
    fi
  done
  printf '%s\n' "$out$rest"
}

# mdns_instance_of H ID [HOSTNAME] — the instance name (unescaped) of the service H resolves
# with `id=ID` (and, if given, on HOSTNAME, e.g. h2.local).
mdns_instance_of() {
  local row
  row=$(mdns_rows_for_id "$1" "$2" | grep -F ";${3:-.local};" | sed -n 1p)
  [[ -n $row ]] || return 1
  mdns_unescape "$(cut -d ';' -f 4 <<<"$row")"
}

# ---------------------------------------------------------------------------------------------
# A long-running browser (`avahi-browse -rp`), to time when a record comes and goes
# ---------------------------------------------------------------------------------------------

# mdns_watch_start H — start `avahi-browse -rpk _lanchat._tcp` on H in the background (log
# "mdns-watch"). It exits with its avahi-daemon; start it again after a restart of that daemon.
mdns_watch_start() {
  host_bg "$1" mdns-watch avahi-browse -rpk "$MDNS_TYPE"
}

# mdns_watch_mark H — the number of lines the browser of H has printed so far.
mdns_watch_mark() {
  wc -l <"$(host_log "$1" mdns-watch)"
}

# mdns_watch_resolved_since H MARK ID — true when the browser of H printed, after line MARK, a
# resolved row whose TXT is `id=ID`.
mdns_watch_resolved_since() {
  tail -n "+$(($2 + 1))" "$(host_log "$1" mdns-watch)" | grep '^=;eth0;' | grep -F "\"id=$3\"" >/dev/null
}

# mdns_watch_removed_since H MARK NAME — true when the browser of H reported, after line MARK,
# the removal of the instance NAME (escaped as avahi-browse -p prints it).
mdns_watch_removed_since() {
  tail -n "+$(($2 + 1))" "$(host_log "$1" mdns-watch)" | grep -F -- "-;eth0;IPv4;$3;" >/dev/null
}

# ---------------------------------------------------------------------------------------------
# Logs from a mark
# ---------------------------------------------------------------------------------------------

# log_mark H NAME — the current size in bytes of H's log NAME (lanchatd, avahi, …); 0 if none.
log_mark() {
  local file
  file=$(host_log "$1" "$2") || return 1
  if [[ -e $file ]]; then stat -c %s "$file"; else echo 0; fi
}

# log_since H NAME MARK — what H's log NAME got after byte MARK.
log_since() {
  tail -c "+$(($3 + 1))" "$(host_log "$1" "$2")"
}

# log_count_since H NAME MARK PATTERN — how many lines after MARK contain the fixed string
# PATTERN.
log_count_since() {
  local count
  count=$(log_since "$1" "$2" "$3" | grep -cF -- "$4") || true
  echo "${count:-0}"
}

# log_has_since H NAME MARK PATTERN — true when a line after MARK contains PATTERN.
log_has_since() {
  log_since "$1" "$2" "$3" | grep -F -- "$4" >/dev/null
}

# ---------------------------------------------------------------------------------------------
# Daemon state in JSON
# ---------------------------------------------------------------------------------------------

# json_status H — `lanchat status --json` on H.
json_status() {
  host_run "$1" lanchat status --json
}

# status_field_is H FIELD VALUE — true when H's `lanchat status --json` has FIELD == VALUE
# (compared as text); made for wait_until.
status_field_is() {
  local json
  json=$(json_status "$1" 2>/dev/null) || return 1
  [[ $(jq -r --arg field "$2" '.[$field] | tostring' <<<"$json") == "$3" ]]
}

# json_peer_by_id H ID — the peer object (compact) H knows with key ID, from `who --all`;
# returns 1 when there is none.
json_peer_by_id() {
  local json
  json=$(json_who "$1") || return 1
  jq -ce --arg id "$2" 'first(.peers[] | select(.id == $id))' <<<"$json" 2>/dev/null
}

# json_peer_id_is H ID PRESENCE — true when H lists the key ID with PRESENCE (`online`,
# `offline`, `discovering`) in `who --all`, or PRESENCE is `absent` and H does not list it.
json_peer_id_is() {
  local peer
  if peer=$(json_peer_by_id "$1" "$2"); then
    [[ $(jq -r .presence <<<"$peer") == "$3" ]]
  else
    [[ $3 == absent ]]
  fi
}

# json_online_peer_field_is H ID FIELD VALUE — true when H's `who --json` (online peers only)
# lists the peer ID with FIELD == VALUE.
json_online_peer_field_is() {
  local json
  json=$(host_run "$1" lanchat who --json 2>/dev/null) || return 1
  jq -e --arg id "$2" --arg field "$3" --arg value "$4" \
    'any(.peers[]; .id == $id and (.[$field] | tostring) == $value)' <<<"$json" >/dev/null
}

# ---------------------------------------------------------------------------------------------
# Conversations, compared across both sides
# ---------------------------------------------------------------------------------------------

# conversation_part H PEER DIRECTION — the messages of H's conversation with PEER that went
# DIRECTION (`in` or `out`), oldest first, as one line of JSON: [[id, seq, text], …].
conversation_part() {
  local all
  all=$(json_history_all "$1" "$2") || return 1
  jq -c --arg direction "$3" '[.[] | select(.direction == $direction) | [.id, .seq, .text]]' \
    <<<"$all"
}

# conversation_has_id H PEER ID — true when H's conversation with PEER has the message ID.
conversation_has_id() {
  json_history_field "$1" "$2" id | grep -Fx -- "$3" >/dev/null
}

# conversation_sent_all_delivered H PEER — true when every message H sent to PEER is
# `delivered` or `read`.
conversation_sent_all_delivered() {
  local all
  all=$(json_history_all "$1" "$2") || return 1
  jq -e '[.[] | select(.direction == "out") | .status]
    | all(. == "delivered" or . == "read")' <<<"$all" >/dev/null
}

# expect_same_conversation SENDER RECEIVER SENDER_ID RECEIVER_ID IDS — what SENDER sent to
# RECEIVER and what RECEIVER got from SENDER are the same list (id, seq, text, in order), and
# each of IDS (newline-separated, in sending order) is in it exactly once, in that order. Fails
# the scenario if not.
expect_same_conversation() {
  local sender=$1 receiver=$2 sender_id=$3 receiver_id=$4 ids=$5 sent received expected got
  sent=$(conversation_part "$sender" "$receiver_id" out) || fail "no history on $sender"
  received=$(conversation_part "$receiver" "$sender_id" in) || fail "no history on $receiver"
  [[ $sent == "$received" ]] ||
    fail "$sender's sent messages and $receiver's received ones differ: $sent vs $received"
  expected=$(jq -cR '[., inputs]' <<<"$ids")
  got=$(jq -c --argjson ids "$expected" 'map(.[0] | select(IN($ids[])))' <<<"$received")
  [[ $got == "$expected" ]] || fail "$receiver got the ids $got, sent were $expected"
  [[ $(jq -c 'map(.[1]) | . == (sort | unique)' <<<"$received") == true ]] ||
    fail "$receiver's sequence numbers are not strictly increasing"
}
