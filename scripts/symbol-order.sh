#!/bin/sh
# `make symbol-order`: writes scripts/lanchatd.order, the functions a release lanchatd runs,
# which the release link places first in its code (Package.swift). Root (a network
# namespace), valgrind and jq; a few minutes.
#
# Why (docs/benchmarks.md, figure 7): the daemon runs about 1.6 MB of its 22 MB of code, but
# in link order those functions are spread over the whole text, and the kernel maps each
# page fault's 64 KB neighbourhood, so most of the text became resident: some 15 MB of an
# idle daemon's 30. Listed first, they share a few MB of pages.
#
# How: the daemon runs under callgrind, which names every function that executes, through
# what a daemon does: start on a new data directory, open sessions with eight peers, idle
# past a keepalive, send and receive (one message, --lines, --wait), read (history, inbox,
# search, read), a group, and stop. The list keeps the names of the binary's own functions,
# sorted, so that a new run changes only the lines of functions that changed.
#
# The list goes stale slowly: a function added or renamed since it was made is linked in the
# ordinary order, after the listed ones. Run this again when figure 7's RssFile grows.
set -eu
cd "$(dirname "$0")/.."
bin=${1:?usage: scripts/symbol-order.sh BIN_DIR (release lanchatd and lanchat)}
bin=$(cd "$bin" && pwd)
for tool in valgrind jq nm strip unshare; do
    command -v "$tool" >/dev/null || { echo "symbol-order: needs $tool" >&2; exit 1; }
done
out=$PWD/scripts/lanchatd.order
work=$(mktemp -d /tmp/lanchat-order.XXXXXX)
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 cannot read the DWARF 5 of Swift 6 binaries; the symbol table is enough.
cp "$bin/lanchatd" "$work/lanchatd"
strip --strip-debug "$work/lanchatd"

unshare --net sh -eu -c '
    ip link set lo up
    bin=$1 work=$2
    pids=""
    stop() { for pid in $pids; do kill "$pid" 2>/dev/null || true; done; wait; }
    trap stop EXIT
    cli() { socket=$1; shift; "$bin/lanchat" --socket "$work/$socket.sock" "$@"; }
    until_true() {
        tries=0
        until eval "$1"; do
            tries=$((tries + 1))
            [ $tries -lt 600 ] || { echo "symbol-order: timed out: $1" >&2; exit 1; }
            sleep 0.2
        done
    }
    peers=""
    for n in 1 2 3 4 5 6 7 8; do
        "$bin/lanchatd" --no-mdns --name "peer$n" --port $((7400 + n)) \
            --data-dir "$work/peer$n" --socket "$work/peer$n.sock" 2>>"$work/peers.log" &
        pids="$pids $!"
        peers="$peers --peer 127.0.0.1:$((7400 + n))"
    done
    valgrind -q --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
        --dump-instr=no --compress-strings=no --compress-pos=no --demangle=no \
        "$work/lanchatd" --no-mdns --name alice --data-dir "$work/alice" \
        --socket "$work/alice.sock" $peers 2>>"$work/alice.log" &
    alice=$!
    until_true "[ \"\$(cli alice --json who 2>/dev/null | jq \".peers | length\")\" = 8 ]"
    sleep 20  # past a keepalive (15 s) on every session
    cli alice send peer1 "a message" >/dev/null
    cli alice send --wait peer2 "a message, waited for" >/dev/null
    seq 1 300 | cli alice send --lines peer3 >/dev/null
    for n in 1 2 3; do cli "peer$n" send alice "an answer from peer$n" >/dev/null; done
    until_true "[ \"\$(cli alice --json inbox | jq \"[.conversations[].unread] | add\")\" = 3 ]"
    cli alice history peer3 >/dev/null
    cli alice --json history peer1 >/dev/null
    cli alice inbox >/dev/null
    cli alice search answer >/dev/null
    cli alice read peer1 >/dev/null
    cli alice read >/dev/null
    cli alice status >/dev/null
    cli alice who >/dev/null
    cli alice group create ops peer1 peer2 >/dev/null
    cli alice send ops "to the group" >/dev/null
    kill "$alice"
    wait "$alice" || true
' sh "$bin" "$work"

# Functions callgrind names (a recursive call is suffixed with a quote and a depth), kept
# where the binary defines them as code.
LC_ALL=C
export LC_ALL
sed -n "s/^c\{0,1\}fn=//p" "$work/callgrind.out" | sed "s/'[0-9]*\$//" | sort -u >"$work/ran"
nm --defined-only "$work/lanchatd" | awk 'NF == 3 && $2 ~ /^[tTwW]$/ { print $3 }' | sort -u \
    >"$work/defined"
comm -12 "$work/ran" "$work/defined" >"$out"
echo "symbol-order: $(wc -l <"$out") functions in $out" >&2
