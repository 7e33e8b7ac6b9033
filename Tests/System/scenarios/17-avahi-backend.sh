#!/usr/bin/env bash
#
# 17-avahi-backend — the AvahiDiscovery module's own integration tests
# (Tests/LanChatDiscoveryTests/AvahiIntegrationTests) run inside a simulated host against a
# real avahi-daemon, with records published from a second host: two backends see each other
# with the right key, port and addresses (IPv4 and scoped IPv6); an announce with new status
# text is seen; stopping one is seen as lost; a record from another host is found and bad
# ones are dropped; a name taken on the LAN is renamed; `--interface` restricts publishing, and
# changing it while running (SIGHUP) republishes and browses again on the new set.
# Then AvahiRestartTests: with h1's avahi-daemon stopped, a backend starts anyway, publishes
# when the test starts avahi-daemon, and again after it is killed and after a clean restart.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"

bundle=$LANCHAT_BIN_DIR/lanchatPackageTests.xctest
[[ -x $bundle ]] || fail "no test bundle at $bundle (swift build --build-tests)"

net_up 2
remote_id=$(python3 -c '
import base64, os
while True:
    key = bytearray(os.urandom(32)); key[31] &= 0x7F
    if not (key[31] == 0x7F and all(b == 0xFF for b in key[1:31]) and key[0] >= 0xED):
        print(base64.b32encode(bytes(key)).decode().rstrip("=")); break')
host_bg h2 good avahi-publish-service "itest-remote (h2)" _lanchat._tcp 40100 \
  txtvers=1 v=1 "id=$remote_id" status=away "msg=remote host"
host_bg h2 taken avahi-publish-service "itest-taken (h2)" _lanchat._tcp 40103 \
  txtvers=1 v=1 "id=$remote_id"
host_bg h2 bad-base32 avahi-publish-service "itest-bad-base32 (h2)" _lanchat._tcp 40101 \
  txtvers=1 v=1 "id=NOT-BASE32"
host_bg h2 bad-duplicate avahi-publish-service "itest-bad-duplicate (h2)" _lanchat._tcp 40102 \
  txtvers=1 v=1 "id=$remote_id" "id=$remote_id"
both_families() {
  (($(host_browse_once h1 -rp _lanchat._tcp 2>/dev/null |
    grep -c '^=;eth0;IPv.;itest-remote') >= 2))
}
wait_until 10000 "h1's avahi-daemon resolves h2's record over IPv4 and IPv6" both_families >/dev/null

output=$(host_run h1 env LANCHAT_AVAHI_TESTS=1 "LANCHAT_AVAHI_REMOTE_ID=$remote_id" \
  "LANCHAT_AVAHI_TAKEN_NAME=itest-taken (h2)" LANCHAT_AVAHI_TEST_INTERFACE=eth0 \
  "$bundle" --testing-library swift-testing --filter AvahiIntegrationTests 2>&1) || {
  printf '%s\n' "$output" | tail -40 >&2
  fail "AvahiIntegrationTests failed inside h1"
}
summary=$(grep -E 'Test run with' <<<"$output" | tail -1)
netsim_log "${summary:-no summary}"
[[ $summary == *passed* ]] || fail "AvahiIntegrationTests did not pass: $summary"
! grep -q 'skipped' <<<"$output" || fail "an Avahi integration test skipped inside a host"

# ---- the backend outlives avahi-daemon ----------------------------------------------------------
# The test drives h1's avahi-daemon itself (daemon mode, the harness's own configuration), so
# the harness's copy is stopped first; net_down kills whatever is left in the namespace.
host_avahi_stop h1
conf=$(host_dir h1)/avahi-daemon.conf
output=$(host_run h1 env LANCHAT_AVAHI_TESTS=1 \
  "LANCHAT_AVAHI_DAEMON_START=avahi-daemon -D -f $conf --no-drop-root --no-chroot" \
  "LANCHAT_AVAHI_DAEMON_KILL=kill -KILL \$(cat /run/avahi-daemon/pid); rm -f /run/avahi-daemon/pid" \
  "LANCHAT_AVAHI_DAEMON_STOP=avahi-daemon -k; while [ -e /run/avahi-daemon/pid ]; do sleep 0.05; done" \
  "$bundle" --testing-library swift-testing --filter AvahiRestartTests 2>&1) || {
  printf '%s\n' "$output" | tail -40 >&2
  fail "AvahiRestartTests failed inside h1"
}
summary=$(grep -E 'Test run with' <<<"$output" | tail -1)
netsim_log "${summary:-no summary}"
[[ $summary == *passed* ]] || fail "AvahiRestartTests did not pass: $summary"
! grep -q 'skipped' <<<"$output" || fail "an Avahi restart test skipped inside a host"
