# shellcheck shell=bash
#
# netsim delivery helpers: numbered message streams and the exactly-once check of the reliable
# delivery scenarios (20–25, PROTOCOL.md §9). Sourced by those scenarios after netsim.sh; not by
# netsim.sh itself.
#
# Message texts are "msg 000001", "msg 000002", … (delivery_text N), so a history also shows
# whether the messages kept the order in which they were written to `lanchat send --lines`.
# DELIVERY_PAD (default empty; letters only) is appended to every text, for scenarios that need
# bigger messages.
# Every check compares the two sides' whole histories (json_history_all): counting alone would
# miss a lost message hidden by a doubled one.

DELIVERY_PAD=${DELIVERY_PAD:-}

# delivery_text N — the text of message number N of a stream.
delivery_text() {
  printf 'msg %06d%s\n' "$1" "$DELIVERY_PAD"
}

# _DELIVERY_STREAM_SCRIPT — the shell script delivery_stream_start runs inside the sender:
# prints texts FIRST…LAST (with PAD appended; a pause of PAUSE seconds after every BURST lines,
# BURST 0 = no pause) into `lanchat send PEER --lines`, which prints the id of every message it
# stored.
# shellcheck disable=SC2016 # expanded by the inner shell
_DELIVERY_STREAM_SCRIPT='
first=$1 last=$2 burst=$3 pause=$4 peer=$5 pad=$6
for ((i = first; i <= last; i++)); do
  printf "msg %06d%s\n" "$i" "$pad"
  if ((burst > 0 && (i - first + 1) % burst == 0)); then sleep "$pause"; fi
done | lanchat send "$peer" --lines
'

# delivery_stream_start H PEER NAME FIRST LAST [BURST PAUSE] — in the background on H, write
# messages FIRST…LAST to `lanchat send PEER --lines`, BURST lines at a time with PAUSE seconds
# between bursts (the pause only paces the stream, so that faults can hit it part-way). The ids
# it prints and its errors go to log/NAME.log; wait for it with host_bg_wait H NAME.
delivery_stream_start() {
  local host=$1 peer=$2 name=$3 first=$4 last=$5 burst=${6:-0} pause=${7:-0}
  host_bg "$host" "$name" bash -c "$_DELIVERY_STREAM_SCRIPT" stream \
    "$first" "$last" "$burst" "$pause" "$peer" "$DELIVERY_PAD"
}

# delivery_printed_ids H NAME — the message ids a `lanchat send` run in the background as NAME
# printed (UUID lines of log/NAME.log since it was started), one a line.
delivery_printed_ids() {
  local state log
  state=$(host_dir "$1")/state/$2
  log=$(host_log "$1" "$2") || return 1
  tail -c "+$(($(<"$state.offset") + 1))" "$log" |
    grep -E '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' || true
}

# delivery_newest_seq H PEER — seq of the newest message of H's conversation with PEER (0 when
# there is none). One small history call: cheap enough to poll.
delivery_newest_seq() {
  local page
  page=$(json_history "$1" "$2" --limit 1) || return 1
  jq -r '.messages[-1].seq // 0' <<<"$page"
}

# delivery_newest_seq_at_least H PEER N — true once H's newest message with PEER has seq ≥ N
# (for wait_until).
delivery_newest_seq_at_least() {
  local seq
  seq=$(delivery_newest_seq "$1" "$2") || return 1
  ((seq >= $3))
}

# delivery_queued H — the `queued` count of `lanchat status --json` on H (outgoing messages
# not yet delivered).
delivery_queued() {
  local status
  status=$(host_run "$1" lanchat status --json) || return 1
  jq -r '.queued' <<<"$status"
}

# delivery_queued_is H N — true when H's status reports exactly N queued (for wait_until).
delivery_queued_is() {
  [[ $(delivery_queued "$1") == "$2" ]]
}

# delivery_all_delivered SENDER RECEIVER N — true once SENDER has nothing queued and RECEIVER's
# newest message from SENDER has seq ≥ N (for wait_until; delivery_verify proves the rest).
delivery_all_delivered() {
  delivery_queued_is "$1" 0 && delivery_newest_seq_at_least "$2" "$1" "$3"
}

# _DELIVERY_VERIFY_JQ — given $out (sender's conversation) and $in (receiver's), both oldest
# first, prints one line per broken promise; nothing when all hold. Set operations go through
# group_by (a sort): jq 1.6's INDEX takes seconds on 10 000 messages.
# shellcheck disable=SC2016 # jq variables
_DELIVERY_VERIFY_JQ='
def dups: group_by(.id) | map(select(length > 1)) | length;
def gaps: . as $m | [range(1; $m | length) | select($m[.].seq != $m[. - 1].seq + 1)];
def only($side): map(select(all(.[]; .side == $side)) | .[0].message);
def report(broken; message): if broken then message else empty end;
def brief: [.seq, .text] | @json;
($out | map(select(.direction == "out"))) as $out
| ($in | map(select(.direction == "in"))) as $in
| ([($out[] | {side: "out", id, message: .}), ($in[] | {side: "in", id, message: .})]
   | group_by(.id)) as $byId
| ($byId | only("out") | sort_by(.seq)) as $missing
| ($byId | only("in") | sort_by(.seq)) as $extra
| [range(0; [$out, $in] | map(length) | min)
   | select($out[.] as $o | $in[.] as $i
       | [$o.id, $o.seq, $o.text] != [$i.id, $i.seq, $i.text])] as $mismatch
| [$out[] | select(.status != "delivered")] as $undelivered
| [$out[] | select(.deliveredAt == null)] as $noDeliveredAt
| ($out | dups) as $outDups
| ($in | dups) as $inDups
| ($out | gaps) as $outGaps
| ($in | gaps) as $inGaps
| report($expected != "" and ($out | length) != ($expected | tonumber);
    "sender stored \($out | length) messages, expected \($expected)"),
  report(($out | length) != ($in | length);
    "sender has \($out | length) messages, receiver \($in | length)"),
  report($outDups > 0; "sender history has \($outDups) doubled ids"),
  report($inDups > 0; "receiver history has \($inDups) doubled ids (delivered twice)"),
  report($missing != [];
    "\($missing | length) messages never reached the receiver, first \($missing[0] | brief)"),
  report($extra != [];
    "receiver has \($extra | length) messages the sender does not, first \($extra[0] | brief)"),
  report($outGaps != [];
    "sender seq not consecutive at \($outGaps | length) places, first"
    + " \($out[$outGaps[0] - 1].seq) then \($out[$outGaps[0]].seq)"),
  report($inGaps != [];
    "receiver seq not consecutive at \($inGaps | length) places, first"
    + " \($in[$inGaps[0] - 1].seq) then \($in[$inGaps[0]].seq)"),
  report($mismatch != [];
    "\($mismatch | length) positions differ (id, seq or text), first at #\($mismatch[0] + 1):"
    + " sender \($out[$mismatch[0]] | brief), receiver \($in[$mismatch[0]] | brief)"),
  report($undelivered != [];
    "\($undelivered | length) sender messages are not delivered, first seq"
    + " \($undelivered[0].seq) is \($undelivered[0].status)"),
  report($noDeliveredAt != [];
    "\($noDeliveredAt | length) sender messages have no deliveredAt")
'

# delivery_verify SENDER RECEIVER [EXPECTED] — the promise of PROTOCOL.md §9, checked on both
# sides' whole histories: the receiver holds every message the sender stored, once each, with
# the same ids, seqs and texts, in the same order; seq goes up by exactly 1 on both sides; every
# sender message is `delivered` with a deliveredAt; with EXPECTED, the sender stored exactly
# that many. Leaves both histories in $NETSIM_DIR/SENDER-out.json and RECEIVER-in.json (for
# delivery_texts_in_order and delivery_last_ms; kept with NETSIM_KEEP=1) and prints the number
# of messages checked. Fails with one line per broken promise.
delivery_verify() {
  local sender=$1 receiver=$2 expected=${3:-} out_file in_file problems count line
  out_file=$NETSIM_DIR/$sender-out.json
  in_file=$NETSIM_DIR/$receiver-in.json
  json_history_all "$sender" "$receiver" >"$out_file" || return 1
  json_history_all "$receiver" "$sender" >"$in_file" || return 1
  problems=$(jq -rn --slurpfile out "$out_file" --slurpfile in "$in_file" \
    --arg expected "$expected" "\$out[0] as \$out | \$in[0] as \$in | $_DELIVERY_VERIFY_JQ") ||
    return 1
  if [[ -n $problems ]]; then
    while IFS= read -r line; do netsim_log "exactly-once: $line"; done <<<"$problems"
    return 1
  fi
  count=$(jq '[.[] | select(.direction == "out")] | length' "$out_file")
  netsim_log "exactly-once: $receiver holds all $count messages $sender stored, once each," \
    "with the same ids, seqs and texts, in order; all delivered"
  echo "$count"
}

# delivery_texts_in_order SENDER FIRST — after delivery_verify: true when SENDER's outgoing
# texts are exactly delivery_text FIRST, FIRST+1, … in that order (what the stream wrote, nothing
# skipped or reordered between standard input and the store); prints how many there are.
delivery_texts_in_order() {
  local file=$NETSIM_DIR/$1-out.json first=$2 count
  count=$(jq '[.[] | select(.direction == "out")] | length' "$file") || return 1
  ((count > 0)) || {
    echo 0
    return 0
  }
  if ! cmp -s <(jq -r '.[] | select(.direction == "out") | .text' "$file") \
    <(seq -f "msg %06g$DELIVERY_PAD" "$first" $((first + count - 1))); then
    netsim_log "$1's outgoing texts are not msg $first… in input order"
    return 1
  fi
  echo "$count"
}

# delivery_verify_stream SENDER RECEIVER COUNT — delivery_verify with COUNT messages expected,
# and the sender's texts are msg 1…COUNT in input order. Fails with the reason.
delivery_verify_stream() {
  local stored
  delivery_verify "$1" "$2" "$3" >/dev/null || return 1
  stored=$(delivery_texts_in_order "$1" 1) || return 1
  if [[ $stored != "$3" ]]; then
    netsim_log "$1 stored $stored texts, expected $3"
    return 1
  fi
}

# delivery_last_ms HOST SIDE FIELD — after delivery_verify: the latest FIELD (an RFC 3339 time
# with milliseconds, e.g. deliveredAt or receivedAt) among the messages of HOST's saved history
# SIDE (out or in), in milliseconds since the epoch. The daemons stamp these on the same clock
# as now_ms, so they time a delivery without the delay of polling.
delivery_last_ms() {
  jq -r --arg field "$3" '
    [.[] | .[$field] | select(. != null)
     | (.[0:19] + "Z" | fromdateiso8601) * 1000 + (.[20:23] | tonumber)] | max // empty
  ' "$NETSIM_DIR/$1-$2.json"
}

# delivery_build — "debug" when LANCHAT_BIN_DIR is a debug build directory (`.build/debug`),
# else "release".
delivery_build() {
  if [[ $(basename "$(readlink -f "$LANCHAT_BIN_DIR")") == debug ]]; then
    echo debug
  else
    echo release
  fi
}

# delivery_bound_ms TARGET_MS — the bound a timed figure is held to: PRODUCT.md §8's TARGET_MS
# applies to release builds; a debug build (what `make test` runs) is about 3 times slower on
# the development VM, so it is held to 3 × TARGET_MS.
delivery_bound_ms() {
  if [[ $(delivery_build) == debug ]]; then
    echo $(($1 * 3))
  else
    echo "$1"
  fi
}
