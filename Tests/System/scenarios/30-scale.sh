#!/usr/bin/env bash
#
# 30-scale — PRODUCT.md §8 "nodes on one LAN": N simulated hosts on one bridge, each with its
# own avahi-daemon and lanchatd found only through mDNS (12 in `make test`, 50 with
# `make scale`, i.e. LANCHAT_SCALE_HOSTS=50). Every pair is connected; every node sends one
# message to every other (N·(N−1) messages), and each arrives exactly once and is delivered.
# Logs the time until all pairs are online and the daemons' RSS and idle CPU
# (docs/benchmarks.md, "Fifty nodes").

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"

count=${LANCHAT_SCALE_HOSTS:-12}
[[ $count =~ ^[0-9]+$ ]] && ((count >= 2 && count <= 250)) || fail "LANCHAT_SCALE_HOSTS=$count"
net_up "$count"
hosts=("${NETSIM_HOSTS[@]}")

# ---- all pairs online ---------------------------------------------------------------------------
started=$(now_ms)
for host in "${hosts[@]}"; do
  host_daemon_start "$host" --name "$host" >/dev/null
done
last_ready=$(now_ms)
netsim_log "$count daemons ready after $((last_ready - started)) ms"

# online_count H — how many peers H lists online.
online_count() {
  host_run "$1" lanchat who --json | jq '[.peers[] | select(.presence == "online")] | length'
}
declare -A complete=()
deadline=$(($(now_ms) + 60000 + count * 2000))
while ((${#complete[@]} < count)) && (($(now_ms) < deadline)); do
  for host in "${hosts[@]}"; do
    [[ -n ${complete[$host]:-} ]] && continue
    (($(online_count "$host") == count - 1)) && complete[$host]=$(now_ms)
  done
done
for host in "${hosts[@]}"; do
  [[ -n ${complete[$host]:-} ]] || fail "$host lists $(online_count "$host") of $((count - 1)) peers online"
done
all_online=$(printf '%s\n' "${complete[@]}" | sort -n | tail -1)
netsim_log "all $((count * (count - 1) / 2)) pairs online $((all_online - last_ready)) ms after the last daemon was ready ($((all_online - started)) ms after the first start)"

# ---- idle cost: RSS and CPU with every peer connected -------------------------------------------
# ticks PID — user + system CPU time of PID in clock ticks (/proc/PID/stat fields 14 and 15).
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
declare -A pid=() before=()
for host in "${hosts[@]}"; do
  pid[$host]=$(host_daemon_pid "$host")
  before[$host]=$(ticks "${pid[$host]}")
done
idle_seconds=10
sleep "$idle_seconds" # the measurement window itself: nothing to wait for
hz=$(getconf CLK_TCK)
rss_max=0 rss_sum=0 cpu_max=0
for host in "${hosts[@]}"; do
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/${pid[$host]}/status")
  used=$(($(ticks "${pid[$host]}") - before[$host]))
  # Per mille of one core over the window.
  cpu=$((used * 1000 / (hz * idle_seconds)))
  ((rss > rss_max)) && rss_max=$rss
  ((cpu > cpu_max)) && cpu_max=$cpu
  rss_sum=$((rss_sum + rss))
done
netsim_log "idle with $((count - 1)) peers each: RSS mean $((rss_sum / count / 1024)) MB, max $((rss_max / 1024)) MB; CPU max $((cpu_max / 10)).$((cpu_max % 10)) % of a core over ${idle_seconds} s (debug build)"

# ---- every node sends one message to every other -----------------------------------------------
sent_at=$(now_ms)
senders=()
for host in "${hosts[@]}"; do
  (
    for peer in "${hosts[@]}"; do
      [[ $peer == "$host" ]] && continue
      host_run "$host" lanchat send "$peer" "from $host to $peer" >/dev/null ||
        fail "$host could not send to $peer"
    done
  ) &
  senders+=($!)
done
# Only our senders: the hosts' daemons are background jobs of this shell too.
all_sent=1
for sender in "${senders[@]}"; do wait "$sender" || all_sent=0; done
((all_sent)) || fail "some sends failed"
netsim_log "$((count * (count - 1))) messages sent in $(($(now_ms) - sent_at)) ms"

# conversation_ok H PEER — H's conversation with PEER holds exactly one message from PEER (the
# one PEER sent) and exactly one to PEER, delivered (or already read).
conversation_ok() {
  local all
  all=$(json_history_all "$1" "$2") || return 1
  jq -e --arg in "from $2 to $1" --arg out "from $1 to $2" '
    ([.[] | select(.text == $in)] | length) == 1 and
    ([.[] | select(.text == $out and (.status == "delivered" or .status == "read"))] | length) == 1 and
    length == 2' <<<"$all" >/dev/null
}
checked=0
for host in "${hosts[@]}"; do
  for peer in "${hosts[@]}"; do
    [[ $peer == "$host" ]] && continue
    wait_until 20000 "$host and $peer exchanged exactly one message each way" \
      conversation_ok "$host" "$peer" >/dev/null
    checked=$((checked + 1))
  done
done
netsim_log "$checked conversations checked: every message arrived exactly once and was delivered, $(($(now_ms) - sent_at)) ms after the first send"
