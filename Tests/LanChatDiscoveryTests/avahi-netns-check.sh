#!/usr/bin/env bash
# Runs the Avahi integration tests of LanChatDiscoveryTests against real avahi-daemons on two
# simulated hosts (TESTING.md "Simulated hosts on one machine"):
#
#   lcav-sw   a "switch" network namespace holding bridge br0
#   lcav-h1   host h1: eth0 169.254.77.1/16 + IPv6 link-local, its own /run, system D-Bus
#             and avahi-daemon; the tests run here
#   lcav-h2   host h2: eth0 169.254.77.2/16, same setup; publishes a remote record and
#             watches h1's records with avahi-browse
#
# Usage (as root, from the package root, after `swift build --build-tests`):
#   Tests/LanChatDiscoveryTests/avahi-netns-check.sh
# Environment: LANCHAT_AVAHI_TEST_LOG_LEVEL=debug for the backend's log lines;
#   KEEP_LOGS=1 keeps the work directory (printed at the end);
#   SCRATCH_PATH=DIR uses tests built with `swift build --build-tests --scratch-path DIR`
#   (e.g. a ThreadSanitizer build: add `-Xswiftc -sanitize=thread`).
#
# Phases:
#   1. harness check: avahi-browse on h1 sees a record avahi-publish-service publishes on h2
#   2. AvahiIntegrationTests in h1: two backends see each other (one restricted to eth0), TXT
#      update, goodbye on stop; two backends asking for one name both get published; the
#      remote record from h2 is found over the network, the malformed ones are not; a name
#      h2 holds makes our backend rename itself "NAME #2"
#   3. AvahiRestartTests in h1, which starts avahi-daemon after the backend, then kills it
#      (SIGKILL) and stops it (SIGTERM) and starts it again; h2 logs when it sees h1's record
#
# Everything stays inside the namespaces; a trap kills their processes by PID and deletes them.
set -euo pipefail

readonly SW=lcav-sw H1=lcav-h1 H2=lcav-h2
readonly PACKAGE_DIR=$(pwd)
WORK=$(mktemp -d /tmp/lcav.XXXXXX)
readonly WORK
declare -A HOLDER

log() { printf '%s [netns-check] %s\n' "$(date +%T.%3N)" "$*"; }

cleanup() {
    local rc=$?
    set +e
    for ns in "$H1" "$H2" "$SW"; do
        if ip netns list | grep -qw "$ns"; then
            for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
            ip netns delete "$ns"
        fi
    done
    if [[ "${KEEP_LOGS:-0}" == 1 || $rc -ne 0 ]]; then
        log "logs kept in $WORK"
    else
        rm -rf "$WORK"
    fi
    exit $rc
}
trap cleanup EXIT INT TERM

[[ $(id -u) -eq 0 ]] || { echo "SKIPPED: needs root for network namespaces" >&2; exit 77; }
for tool in ip unshare nsenter dbus-daemon avahi-daemon avahi-browse avahi-publish-service; do
    command -v "$tool" >/dev/null || { echo "SKIPPED: $tool is not installed" >&2; exit 77; }
done
readonly SCRATCH_PATH=${SCRATCH_PATH:-$PACKAGE_DIR/.build}
[[ -x $SCRATCH_PATH/debug/lanchatPackageTests.xctest ]] \
    || { echo "run 'swift build --build-tests' in the package root first" >&2; exit 64; }

# --- network: two hosts on a bridge in a third namespace -------------------------------------
ip netns add "$SW"
ip -n "$SW" link add br0 type bridge
ip -n "$SW" link set br0 up
host_number=0
for ns in "$H1" "$H2"; do
    host_number=$((host_number + 1))
    ip netns add "$ns"
    ip -n "$ns" link add eth0 type veth peer name "port$host_number" netns "$SW"
    ip -n "$SW" link set "port$host_number" master br0 up
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.eth0.accept_dad=0
    ip -n "$ns" addr add "169.254.77.$host_number/16" dev eth0
    ip -n "$ns" link set lo up
    ip -n "$ns" link set eth0 up
done

# --- per host: own mount and UTS namespace, /run, system D-Bus ------------------------------
for host in h1 h2; do
    ns=lcav-$host
    cat >"$WORK/$host.conf" <<EOF
[server]
host-name=$host
use-ipv4=yes
use-ipv6=yes
allow-interfaces=eth0
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-workstation=no
publish-hinfo=no
EOF
    ip netns exec "$ns" unshare -m -u --propagation private bash -c "
        hostname $host
        mount -t tmpfs tmpfs /run
        mkdir -p /run/dbus /run/avahi-daemon
        dbus-daemon --system --fork
        exec sleep infinity" &
    HOLDER[$host]=$!
    disown "${HOLDER[$host]}" # killed by PID in cleanup; no job-control noise
done
sleep 0.5 # let the holders mount /run and start D-Bus

in_host() { # in_host h1 CMD...: run CMD inside host h1
    local host=$1
    shift
    nsenter -t "${HOLDER[$host]}" -m -u -n -- "$@"
}
start_avahi() { in_host "$1" avahi-daemon -D -f "$WORK/$1.conf" --no-drop-root --no-chroot; }
avahi_pid() { in_host "$1" cat /run/avahi-daemon/pid; }

for host in h1 h2; do
    for _ in $(seq 50); do in_host $host test -S /run/dbus/system_bus_socket && break; sleep 0.1; done
done

# --- phase 1: the harness itself ------------------------------------------------------------
start_avahi h1
start_avahi h2
REMOTE_ID=$(python3 - <<'EOF'
import base64, os
while True:
    key = bytearray(os.urandom(32)); key[31] &= 0x7F
    if not (key[31] == 0x7F and all(b == 0xFF for b in key[1:31]) and key[0] >= 0xED):
        print(base64.b32encode(bytes(key)).decode().rstrip("=")); break
EOF
)
in_host h2 avahi-publish-service "itest-remote (h2)" _lanchat._tcp 40100 \
    txtvers=1 v=1 "id=$REMOTE_ID" status=away "msg=remote host" >"$WORK/publish-good.log" 2>&1 &
in_host h2 avahi-publish-service "itest-taken (h2)" _lanchat._tcp 40103 \
    txtvers=1 v=1 "id=$REMOTE_ID" >"$WORK/publish-taken.log" 2>&1 &
in_host h2 avahi-publish-service "itest-bad-base32 (h2)" _lanchat._tcp 40101 \
    txtvers=1 v=1 "id=NOT-BASE32" >"$WORK/publish-bad1.log" 2>&1 &
in_host h2 avahi-publish-service "itest-bad-duplicate (h2)" _lanchat._tcp 40102 \
    txtvers=1 v=1 "id=$REMOTE_ID" "id=$REMOTE_ID" >"$WORK/publish-bad2.log" 2>&1 &
for _ in $(seq 100); do
    seen=$(in_host h1 avahi-browse -rtp _lanchat._tcp 2>/dev/null || true)
    [[ $(grep -c '^=;eth0;IPv.;itest-remote' <<<"$seen") -ge 2 ]] && break
    sleep 0.2
done
log "phase 1: avahi-browse on h1 sees h2's records:"
grep '^=' <<<"$seen" | cut -d';' -f1-4,7-9
[[ $(grep -c '^=;eth0;IPv.;itest-remote' <<<"$seen") -ge 2 ]] \
    || { log "FAILED: h1 does not see h2's record over IPv4 and IPv6"; exit 1; }

# --- phase 2: integration tests --------------------------------------------------------------
run_tests() { # run_tests FILTER [VAR=VALUE...]
    local filter=$1
    shift
    in_host h1 env LANCHAT_AVAHI_TESTS=1 "$@" \
        "LANCHAT_AVAHI_TEST_LOG_LEVEL=${LANCHAT_AVAHI_TEST_LOG_LEVEL:-info}" \
        swift test --skip-build --package-path "$PACKAGE_DIR" --scratch-path "$SCRATCH_PATH" \
        --filter "$filter"
}
log "phase 2: AvahiIntegrationTests in h1"
run_tests AvahiIntegrationTests "LANCHAT_AVAHI_REMOTE_ID=$REMOTE_ID" \
    "LANCHAT_AVAHI_TAKEN_NAME=itest-taken (h2)" LANCHAT_AVAHI_TEST_INTERFACE=eth0 2>&1 | tee "$WORK/phase2.log"
grep -q 'Test run with .* passed' "$WORK/phase2.log" || { log "FAILED: phase 2"; exit 1; }

# --- phase 3: avahi-daemon absent at start, killed, restarted --------------------------------
log "phase 3: avahi-daemon stopped on h1; h2 watches for h1's records"
in_host h1 kill -TERM "$(avahi_pid h1)"
while in_host h1 test -e /run/avahi-daemon/pid; do sleep 0.1; done
in_host h2 stdbuf -oL avahi-browse -pr _lanchat._tcp 2>/dev/null \
    | while IFS= read -r line; do
        case $line in *itest-restart*) printf '%s h2 sees: %s\n' "$(date +%T.%3N)" "$line" ;; esac
    done >"$WORK/h2-watch.log" &
for _ in $(seq 50); do # wait until the watcher's avahi-browse runs inside h2
    ip netns pids "$H2" | xargs -r ps -o comm= -p | grep -q avahi-browse && break
    sleep 0.1
done
run_tests AvahiRestartTests \
    "LANCHAT_AVAHI_DAEMON_START=avahi-daemon -D -f $WORK/h1.conf --no-drop-root --no-chroot" \
    "LANCHAT_AVAHI_DAEMON_KILL=kill -KILL \$(cat /run/avahi-daemon/pid); rm -f /run/avahi-daemon/pid" \
    "LANCHAT_AVAHI_DAEMON_STOP=avahi-daemon -k; while [ -e /run/avahi-daemon/pid ]; do sleep 0.05; done" \
    2>&1 | tee "$WORK/phase3.log"
grep -q 'Test run with .* passed' "$WORK/phase3.log" || { log "FAILED: phase 3"; exit 1; }
sleep 1 # let h2's browser print the last goodbye
log "phase 3: what h2 saw of h1's restarting record (+ new, = resolved, - removed):"
grep -E ';IPv4;' "$WORK/h2-watch.log" | cut -d';' -f1-4 || log "(h2 logged nothing)"
log "all phases passed"
