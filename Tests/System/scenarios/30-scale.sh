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
# Every daemon is started at once and waited for together: one at a time, 50 debug daemons
# took 105 s. Readiness is the daemon's own "ready" log line (logged once the socket, store
# and listener are up), read from its log file, so waiting costs no process per host and poll.
started=$(now_ms)
for host in "${hosts[@]}"; do
  _netsim_bg "$host" lanchatd host lanchatd --name "$host" || fail "$host: cannot start lanchatd"
done
# all_ready — true once every daemon has logged that it is ready.
all_ready() {
  local host
  for host in "${hosts[@]}"; do
    _netsim_bg_log_has "$host" lanchatd " ready" || return 1
  done
}
# any_exited — true when a daemon has ended (then waiting for the others is pointless).
any_exited() {
  local host
  for host in "${hosts[@]}"; do
    _netsim_bg_ended "$host" lanchatd && return 0
  done
  return 1
}
if ! _netsim_wait $((30000 + count * 1000)) "all $count daemons logged ready" any_exited all_ready; then
  for host in "${hosts[@]}"; do
    _netsim_bg_ended "$host" lanchatd && tail -n 10 "$(host_log "$host" lanchatd)" >&2
  done
  fail "not every lanchatd became ready"
fi
for host in "${hosts[@]}"; do
  host_run "$host" lanchat status >/dev/null || fail "$host: lanchat status fails although lanchatd is ready"
done
last_ready=$(now_ms)
netsim_log "$count daemons ready after $((last_ready - started)) ms"

# online_count H — how many peers H lists online.
online_count() {
  host_run "$1" lanchat who --json | jq '[.peers[] | select(.presence == "online")] | length'
}
declare -A complete=()
deadline=$(($(now_ms) + 60000 + count * 2000))
# One round asks every incomplete host once: five processes each (nsenter, sh, env, lanchat,
# jq). Back to back, rounds kept a whole core busy starting processes, taken from the daemons
# being measured; a pause of 1/4 s between rounds bounds the harness to a few percent, and the
# times it logs to that resolution.
while ((${#complete[@]} < count)) && (($(now_ms) < deadline)); do
  for host in "${hosts[@]}"; do
    [[ -n ${complete[$host]:-} ]] && continue
    (($(online_count "$host") == count - 1)) && complete[$host]=$(now_ms)
  done
  if ((${#complete[@]} < count)); then sleep 0.25; fi
done
# udp_drops — mDNS (and any other UDP) packets the hosts' kernels dropped because a socket's
# receive buffer was full, summed over the hosts (Udp and Udp6 RcvbufErrors): what a CPU-starved
# avahi-daemon loses (scripts/scale.sh).
udp_drops() {
  local host sum=0 n
  for host in "${hosts[@]}"; do
    n=$(host_run "$host" cat /proc/net/snmp /proc/net/snmp6 |
      awk '/^Udp:/ { if (seen++) s += $6 } /^Udp6RcvbufErrors/ { s += $2 } END { print s + 0 }')
    sum=$((sum + n))
  done
  echo "$sum"
}
# Counted once (a process per host), for the log and for a failure's message alike.
drops=$(udp_drops)
netsim_log "$drops UDP packets dropped for full receive buffers on the $count hosts"
for host in "${hosts[@]}"; do
  [[ -n ${complete[$host]:-} ]] ||
    fail "$host lists $(online_count "$host") of $((count - 1)) peers online ($drops UDP packets dropped for full receive buffers)"
done
all_online=$(printf '%s\n' "${complete[@]}" | sort -n | tail -1)
netsim_log "all $((count * (count - 1) / 2)) pairs online $((all_online - last_ready)) ms after the last daemon was ready ($((all_online - started)) ms after the first start)"

# ---- idle cost: RSS and CPU with every peer connected -------------------------------------------
build=debug
[[ $LANCHAT_BIN_DIR == */release* ]] && build=release
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
netsim_log "idle with $((count - 1)) peers each: RSS mean $((rss_sum / count / 1024)) MB, max $((rss_max / 1024)) MB; CPU max $((cpu_max / 10)).$((cpu_max % 10)) % of a core over ${idle_seconds} s ($build build)"

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

# node_ok H — H holds exactly the 2·(N−1) messages of the exchange: from each other node P one
# "from P to H" (direction in, peer P) and to each one "from H to P" (direction out, delivered
# or already read), each (peer, direction) once. One `who` and one `search` per node: the
# message objects carry the peer's id, `who` maps ids to names. A message stored twice, lost,
# filed under the wrong peer or not delivered makes it false.
node_ok() {
  local host=$1 who found
  who=$(host_run "$host" lanchat who --all --json) || return 1
  found=$(host_run "$host" lanchat search from --limit 1000 --json) || return 1
  jq -en --arg me "$host" --argjson n "$count" --argjson who "$who" --argjson found "$found" '
    ($who.peers | map({key: .id, value: .name}) | from_entries) as $names
    | [$found.messages[] | {name: $names[.peer], direction, text, status}] as $all
    | ($all | length) == 2 * ($n - 1)
      and ([$all[] | [.name, .direction]] | unique | length) == 2 * ($n - 1)
      and ([$all[] | .name] | unique | length) == $n - 1
      and all($all[];
        .name != null and .name != $me and
        if .direction == "in" then .text == "from \(.name) to \($me)"
        else .text == "from \($me) to \(.name)" and (.status == "delivered" or .status == "read")
        end)' >/dev/null
}
checked=0
for host in "${hosts[@]}"; do
  wait_until 30000 "$host holds one message from and one delivered to each of the other $((count - 1))" \
    node_ok "$host"
  checked=$((checked + 1))
done
netsim_log "$checked nodes checked: each of the $((count * (count - 1))) messages arrived exactly once and was delivered, $(($(now_ms) - sent_at)) ms after the first send"
