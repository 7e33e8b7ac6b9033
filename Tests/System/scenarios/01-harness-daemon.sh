#!/usr/bin/env bash
#
# 01-harness-daemon — proves the harness's lanchatd and JSON functions before the real programs
# exist, with the stand-ins of Tests/System/fakes: the host environment, readiness, a clean
# stop, the failures host_daemon_stop/start must report (wrong exit status, SIGTERM ignored, a
# daemon that dies at start), SIGKILL and restart, wait_until, and the jq helpers over `who` and
# a paged `history`.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"

LANCHAT_BIN_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fakes" && pwd)

# expect_failure DESCRIPTION CMD… — CMD must fail (its complaints stay in the scenario log).
expect_failure() {
  local description=$1
  shift
  if "$@"; then
    fail "$description succeeded"
  fi
  netsim_log "failed as expected: $description"
}

net_up 2

# ---- the host environment --------------------------------------------------------------------
environment=$(host_run h1 env)
for expected in "HOME=$(host_dir h1)/home" "XDG_DATA_HOME=$(host_dir h1)/home/.local/share" \
  "XDG_CONFIG_HOME=$(host_dir h1)/home/.config" "XDG_RUNTIME_DIR=/run/user/0" \
  "PATH=$LANCHAT_BIN_DIR:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"; do
  grep -qxF "$expected" <<<"$environment" || fail "h1's environment lacks $expected"
done
[[ $(host_run h1 sh -c 'command -v lanchatd') == "$LANCHAT_BIN_DIR/lanchatd" ]] ||
  fail "lanchatd is not found first in LANCHAT_BIN_DIR"

# ---- start, readiness, isolation ---------------------------------------------------------------
before=$(now_ms)
ready=$(host_daemon_start h1)
((ready >= before)) || fail "readiness time $ready is before the start ($before)"
[[ $(host_daemon_ready_ms h1) == "$ready" ]] || fail "host_daemon_ready_ms disagrees"
pid=$(host_daemon_pid h1)
[[ $(nsenter -t "$pid" -u hostname) == h1 ]] || fail "lanchatd does not run inside h1"
host_run h1 lanchat status >/dev/null
expect_failure "lanchat status on h2 (h2 has its own /run/user/0)" host_run h2 lanchat status
# A background job of a script inherits SIGINT ignored; the harness must give the daemon the
# default disposition, or a SIGINT test would test nothing.
ignored=$(awk '/^SigIgn:/ { print $2 }' "/proc/$pid/status")
(((16#$ignored & 2) == 0)) || fail "lanchatd starts with SIGINT ignored (SigIgn $ignored)"
expect_failure "a second start while lanchatd runs" host_daemon_start h1

# ---- stop: clean, wrong status, SIGTERM ignored ------------------------------------------------
sent=$(host_daemon_stop h1)
[[ $sent =~ ^[0-9]+$ ]] || fail "host_daemon_stop printed '$sent'"
expect_failure "host_daemon_pid after the stop" host_daemon_pid h1
_netsim_dead "$pid" || fail "lanchatd $pid still runs after the stop"
[[ $(host_bg_wait h1 lanchatd 0) == 0 ]] || fail "exit status after SIGTERM is not 0"

host_daemon_start h1 --term-status 3 >/dev/null
expect_failure "host_daemon_stop of a daemon exiting 3" host_daemon_stop h1
[[ $(host_bg_wait h1 lanchatd 0) == 3 ]] || fail "exit status 3 was not recorded"

host_daemon_start h1 --ignore-term >/dev/null
pid=$(host_daemon_pid h1)
expect_failure "host_daemon_stop of a daemon ignoring SIGTERM" host_daemon_stop h1
_netsim_dead "$pid" || fail "the daemon ignoring SIGTERM was not killed"
[[ $(host_bg_wait h1 lanchatd 0) == 137 ]] || fail "SIGKILL was not recorded"

# A daemon that dies before it is ready fails the start at once, not after the 15 s timeout.
before=$(now_ms)
expect_failure "host_daemon_start of a daemon exiting 78" host_daemon_start h1 --exit-at-start 78
(($(now_ms) - before < 10000)) || fail "a dead daemon was waited for until the timeout"

# ---- crash and restart -------------------------------------------------------------------------
host_daemon_start h2 >/dev/null
host_daemon_kill h2 >/dev/null
[[ $(host_bg_wait h2 lanchatd 0) == 137 ]] || fail "SIGKILL of h2's daemon was not recorded"
host_daemon_start h2 >/dev/null
host_daemon_stop h2 >/dev/null

# ---- wait_until ---------------------------------------------------------------------------------
wait_until 1000 "a condition that holds at once" true
((WAITED_MS < 1000)) || fail "WAITED_MS is $WAITED_MS for an immediate success"
expect_failure "wait_until of a condition that never holds" wait_until 100 "never" false
((WAITED_MS >= 100)) || fail "wait_until gave up after $WAITED_MS ms, before its timeout"

# ---- JSON helpers ------------------------------------------------------------------------------
host_daemon_start h1 >/dev/null
data="$(host_dir h1)/home/.local/share/fake-lanchat"
mkdir -p "$data"
bob_id=$(printf 'B%.0s' {1..52})
cat >"$data/who.json" <<EOF
{"peers":[
  {"id":"$bob_id","keyTag":"BBBB-BBBB","name":"bob","presence":"online"},
  {"id":"CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC","keyTag":"CCCC-CCCC","name":"carol","presence":"offline"}
]}
EOF
wait_until 2000 "h1 sees bob online" json_peer_is h1 bob online
[[ $(json_peer_presence h1 carol) == offline ]] || fail "carol is not offline"
[[ $(json_peer_presence h1 nobody) == absent ]] || fail "an unknown peer is not absent"
expect_failure "json_peer_is h1 bob offline" json_peer_is h1 bob offline
[[ $(json_peer_id h1 bob) == "$bob_id" ]] || fail "json_peer_id gives the wrong id"

# 2 500 messages come back in pages of 1 000: three full pages, then an empty one.
jq -n '{bob: [range(1; 2501) | {id: "m\(.)", seq: ., text: "message \(.)", direction: "out",
  status: (if . % 2 == 0 then "read" else "delivered" end)}]}' >"$data/history.json"
[[ $(json_history_count h1 bob) == 2500 ]] || fail "json_history_count is not 2500"
[[ $(json_history_count h1 bob read) == 1250 ]] || fail "json_history_count read is not 1250"
[[ $(json_history_field h1 bob seq) == "$(seq 1 2500)" ]] || fail "sequence numbers out of order"
[[ $(json_history_field h1 bob text | tail -n 1) == "message 2500" ]] || fail "last text wrong"
[[ $(json_history_count h1 nobody) == 0 ]] || fail "an empty conversation is not empty"

# Without a daemon the helpers say so instead of reporting stale data.
host_daemon_stop h1 >/dev/null
[[ $(json_peer_presence h1 bob) == absent ]] || fail "a stopped daemon still reports bob"
expect_failure "json_history_count without a daemon" json_history_count h1 bob

net_down
if ! leftovers=$(netsim_leftovers "$NETSIM_PREFIX"); then
  fail "net_down left things behind: $leftovers"
fi
netsim_log "net_down left nothing behind"
