#!/usr/bin/env bash
#
# 19-doctor — `lanchat doctor` (PRODUCT.md §4) on a simulated host with the real tools it asks
# (busctl on the host's system D-Bus, avahi-browse, ip, nft): every check passes on a healthy
# host (avahi-daemon and lanchatd running, a peer online) and it exits 0; with avahi-daemon
# stopped it exits 1 and names `systemctl enable --now avahi-daemon`; with an nftables rule
# that drops UDP 5353 it names that rule and the `nft delete rule` that removes it; with
# lanchatd stopped it says how to start it and skips the checks that need it.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-discovery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-discovery.sh"

# A run of doctor takes its slowest tool's 2 s at most, plus the daemon calls.
DOCTOR_TARGET_MS=4000

net_up 2
host_daemon_start h1 --name h1 >/dev/null
host_daemon_start h2 --name h2 >/dev/null
wait_until 5000 "h1 sees h2 online" json_peer_is h1 h2 online >/dev/null
h1_id=$(json_status h1 | jq -r .id)
wait_until 5000 "h1's avahi-daemon resolves h1's own record" mdns_has_id h1 "$h1_id" >/dev/null

# doctor H [--json] — run `lanchat doctor` in H; sets DOCTOR_OUT (standard output), DOCTOR_ERR
# (standard error) and DOCTOR_STATUS, and fails the scenario when it takes longer than
# DOCTOR_TARGET_MS.
doctor() {
  local host=$1 started elapsed errors
  shift
  errors=$(host_dir "$host")/tmp/doctor.err
  started=$(now_ms)
  DOCTOR_STATUS=0
  DOCTOR_OUT=$(host_run "$host" lanchat doctor "$@" 2>"$errors") || DOCTOR_STATUS=$?
  elapsed=$(($(now_ms) - started))
  DOCTOR_ERR=$(<"$errors")
  netsim_log "lanchat doctor $* on $host: exit $DOCTOR_STATUS after $elapsed ms" \
    $'\n'"$DOCTOR_OUT"$'\n'"$DOCTOR_ERR"
  ((elapsed <= DOCTOR_TARGET_MS)) || fail "lanchat doctor took $elapsed ms"
}

# check_field H NAME FIELD — FIELD (ok, detail, fix, skipped) of check NAME in doctor --json.
check_field() {
  jq -r --arg name "$2" --arg field "$3" '.checks[] | select(.name == $name) | .[$field]' \
    <<<"$DOCTOR_OUT"
}

# ---- healthy: everything passes ------------------------------------------------------------
doctor h1
((DOCTOR_STATUS == 0)) || fail "doctor exits $DOCTOR_STATUS on a healthy host"
for name in socket daemon version 'data directory' avahi-daemon 'mdns record' peers multicast \
  port firewall systemd-resolved; do
  grep -q "^✓ $name " <<<"$DOCTOR_OUT" || fail "no ✓ for '$name' on a healthy host"
done
grep -q '^All checks passed\.$' <<<"$DOCTOR_OUT" || fail "no summary line"
doctor h1 --json
jq -e '.ok == true and (.checks | length) == 12 and all(.checks[]; .ok and .fix == null)' \
  <<<"$DOCTOR_OUT" >/dev/null || fail "doctor --json is not all ok on a healthy host"
[[ $(check_field h1 'mdns record' detail) == "published as 'h1 ("* ]] ||
  fail "the record check does not name h1's instance: $(check_field h1 'mdns record' detail)"

# ---- avahi-daemon stopped --------------------------------------------------------------------
host_avahi_stop h1
wait_until 5000 "h1 reports avahi connecting" status_field_is h1 avahi connecting >/dev/null
doctor h1
((DOCTOR_STATUS == 1)) || fail "doctor exits $DOCTOR_STATUS with avahi-daemon stopped, not 1"
grep -q '^✗ avahi-daemon .*fix: sudo systemctl enable --now avahi-daemon$' <<<"$DOCTOR_OUT" ||
  fail "doctor does not name the fix for a stopped avahi-daemon"
grep -q '^✗ mdns record .*fix: sudo systemctl enable --now avahi-daemon$' <<<"$DOCTOR_OUT" ||
  fail "the record check does not blame the stopped avahi-daemon"
grep -q '^✓ daemon ' <<<"$DOCTOR_OUT" || fail "lanchatd is blamed for avahi-daemon"
[[ $DOCTOR_ERR == 'lanchat: 2 of 12 checks failed: avahi-daemon, mdns record' ]] ||
  fail "no failure summary on standard error"
host_avahi_start h1
wait_until 5000 "h1 reports avahi running" status_field_is h1 avahi running >/dev/null
wait_until 10000 "h1's record is back" mdns_has_id h1 "$h1_id" >/dev/null

# ---- nftables drops mDNS -----------------------------------------------------------------------
host_run h1 nft add table inet t
host_run h1 nft add chain inet t in '{ type filter hook input priority 0; }'
host_run h1 nft add rule inet t in udp dport 5353 drop
handle=$(host_run h1 nft -a list chain inet t in | sed -n 's/.*udp dport 5353 drop # handle \([0-9]*\)$/\1/p')
[[ -n $handle ]] || fail "cannot find the handle of the rule just added"
doctor h1 --json
((DOCTOR_STATUS == 1)) || fail "doctor exits $DOCTOR_STATUS with mDNS dropped, not 1"
[[ $(check_field h1 firewall ok) == false ]] || fail "the firewall check passes with mDNS dropped"
[[ $(check_field h1 firewall fix) == "sudo nft delete rule inet t in handle $handle" ]] ||
  fail "the firewall fix is not the rule's deletion: $(check_field h1 firewall fix)"
[[ $(check_field h1 firewall detail) == *"drops UDP 5353"* ]] ||
  fail "the firewall detail does not say UDP 5353: $(check_field h1 firewall detail)"
# The fix it names works.
host_run h1 nft delete rule inet t in handle "$handle"
doctor h1 --json
[[ $(check_field h1 firewall ok) == true ]] || fail "the firewall check still fails after its fix"

# ---- lanchatd stopped ------------------------------------------------------------------------
host_daemon_stop h1 >/dev/null
doctor h1
((DOCTOR_STATUS == 1)) || fail "doctor exits $DOCTOR_STATUS without lanchatd, not 1"
grep -q '^✗ daemon .*fix: systemctl --user start lanchatd$' <<<"$DOCTOR_OUT" ||
  fail "doctor does not say how to start lanchatd"
for name in version 'mdns record' peers port; do
  grep -q "^- $name .*needs a running lanchatd" <<<"$DOCTOR_OUT" ||
    fail "'$name' is not skipped without lanchatd"
done
grep -q '^✓ avahi-daemon ' <<<"$DOCTOR_OUT" || fail "avahi-daemon is not checked without lanchatd"
