#!/usr/bin/env bash
#
# 18-flood — scenario 12's bad input, grown to floods (PROTOCOL.md §4.6, issue 9 items 4 and 5):
# h3 holds 40 addresses and keeps 4 silent (half-open) connections from each open to h1's port,
# reopening every one that is closed, and sends abandoned handshakes (a first flight, then
# nothing) besides. Meanwhile h2, a peer h1 finds over mDNS, starts: it must get its session and
# its messages through within a few seconds, h1's log must stay small (throttled lines), the
# flooding addresses must end up refused after their failed handshakes, and h1's control socket
# must answer throughout.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-discovery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-discovery.sh"

PORT=7018
SOURCES=40
net_up 3
host_daemon_start h1 --name h1 --port "$PORT" >/dev/null

# ---- the flood ------------------------------------------------------------------------------------
# 40 more addresses on h3's interface, each a source of the flood.
for i in $(seq 1 "$SOURCES"); do
  host_run h3 ip addr add "169.254.18.$i/16" dev eth0
done
# shellcheck disable=SC2016 # the Python program is literal
FLOOD='
import socket, sys, time, selectors
target, port, sources = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
preamble = b"LCHT\x01\x01\x00\x00" + b"\x00\x20" + bytes(range(32))  # first flight, then silence
sel = selectors.DefaultSelector()
opened = 0
def open_one(source, abandon):
    global opened
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    s.bind((source, 0))
    try:
        s.connect((target, port))
    except BlockingIOError:
        pass
    sel.register(s, selectors.EVENT_READ, (source, abandon))
    if abandon:
        try:
            s.send(preamble)
        except OSError:
            pass
    opened += 1
for i in range(1, sources + 1):
    for k in range(4):
        open_one("169.254.18.%d" % i, k % 2 == 1)
last = time.time()
while True:
    for key, _ in sel.select(timeout=1):
        s = key.fileobj
        try:
            data = s.recv(4096)
        except OSError:
            data = b""
        if data:
            continue  # msg2 of an abandoned handshake: ignore it, stay silent
        sel.unregister(s)
        s.close()
        time.sleep(0.02)  # the attacker paces itself a little, or it only burns our CPU
        open_one(*key.data)
    if time.time() - last >= 5:
        print("opened", opened, flush=True)
        last = time.time()
'
host_bg h3 flood /usr/bin/python3 -c "$FLOOD" "$(host_addr4 h1)" "$PORT" "$SOURCES"
wait_until 5000 "h1 refuses part of the flood" \
  grep -q "refusing connections" "$(host_log h1 lanchatd)" >/dev/null
flood_started=$(now_ms)

# ---- a known peer gets through ---------------------------------------------------------------------
host_daemon_start h2 --name h2 >/dev/null
wait_until 5000 "h1 and h2 have a session despite the flood" json_peer_is h1 h2 online >/dev/null
netsim_log "figure: h2 online at h1 $(($(now_ms) - flood_started)) ms into the flood"
last_is() { [[ $(json_history_field "$1" "$2" "$3" | tail -1) == "$4" ]]; }
for direction in "h1 h2" "h2 h1"; do
  read -r from to <<<"$direction"
  sent_at=$(now_ms)
  id=$(host_run "$from" lanchat send "$to" "through the flood from $from")
  wait_until 5000 "$to has $from's message" last_is "$to" "$from" id "$id" >/dev/null
  wait_until 5000 "$from sees it delivered" last_is "$from" "$to" status delivered >/dev/null
  netsim_log "figure: $from -> $to delivered $(($(now_ms) - sent_at)) ms after send, mid-flood"
done

# ---- the flood ends up refused, logged sparingly, and the control socket answers -------------------
wait_until 40000 "h1 penalizes the flooding addresses" \
  grep -q "refused after repeated failed handshakes" "$(host_log h1 lanchatd)" >/dev/null
host_run h1 lanchat status >/dev/null || fail "h1's control socket does not answer during the flood"
host_bg_pid h3 flood >/dev/null || fail "the flood stopped by itself: $(cat "$(host_log h3 flood)")"
failures=$(grep -c "handshake failed" "$(host_log h1 lanchatd)" || true)
elapsed_s=$((($(now_ms) - flood_started) / 1000 + 1))
netsim_log "figure: $failures 'handshake failed' lines in ${elapsed_s} s of flood from $SOURCES addresses"
# One line per address per 10 s at most (plus h2's start-up).
((failures <= SOURCES * (elapsed_s / 10 + 1) + 5)) ||
  fail "h1 logged $failures failed handshakes in ${elapsed_s} s: not throttled"
host_bg_stop h3 flood >/dev/null || true
json_peer_is h1 h2 online || fail "the session with h2 did not survive the flood"
