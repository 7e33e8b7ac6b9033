#!/usr/bin/env bash
#
# 00-harness — proves the simulated hosts with the real parts and no lanchat binaries: each host
# has its own hostname, system D-Bus and avahi-daemon; mDNS services published on one host are
# resolved on the others with IPv4 and IPv6 addresses; TCP flows between hosts; packet loss,
# a pulled cable and an avahi restart act as the scenarios expect; a Type=notify unit runs under
# the host's systemd user manager; and net_down leaves nothing behind.
# Prints the figures docs/testing.md quotes (lines starting with "figure:").

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"

readonly PORT=7777

# avahi_name H — the name avahi-daemon of H gives itself, asked on H's own system bus.
avahi_name() {
  local name
  name=$(host_run "$1" dbus-send --system --print-reply=literal --dest=org.freedesktop.Avahi \
    / org.freedesktop.Avahi.Server.GetHostNameFqdn) || return 1
  echo "${name//[[:space:]]/}"
}

# browse_log_has H KIND HOST — true when the long-running avahi-browse of H (log "browse") has
# resolved lanchat-HOST: KIND is = (resolved, with address) or - (removed).
browse_log_has() {
  grep -q "^$2;eth0;IPv4;lanchat-$3;_lanchat._tcp;" "$(host_log "$1" browse)"
}

# listening H — true when something in H accepts TCP on PORT.
listening() {
  [[ -n $(host_run "$1" ss -Hltn "sport = :$PORT") ]]
}

# tcp_echo FROM ADDRESS TEXT — send TEXT to the echo listener at ADDRESS and print the answer
# (fails when the connection cannot be made within 1 s).
tcp_echo() {
  printf '%s\n' "$3" | host_run "$1" timeout 3 socat -T1 - "$2:$PORT,connect-timeout=1"
}

# expect_echo FROM ADDRESS — the echo listener answers from FROM through ADDRESS.
expect_echo() {
  local text="ping from $1 to $2" answer
  answer=$(tcp_echo "$1" "$2" "$text") || fail "no TCP from $1 to $2"
  [[ $answer == "$text" ]] || fail "echo from $2 answered '$answer'"
}

# expect_no_tcp FROM ADDRESS — TCP from FROM to ADDRESS does not get through.
expect_no_tcp() {
  if tcp_echo "$1" "$2" "should not arrive" >/dev/null 2>&1; then
    fail "TCP from $1 to $2 got through"
  fi
}

# ---- hosts ----------------------------------------------------------------------------------
net_up 3
netsim_log "figure: net_up 3 = ${NETSIM_UP_MS} ms"
for host in "${NETSIM_HOSTS[@]}"; do
  [[ $(host_run "$host" hostname) == "$host" ]] || fail "$host has the wrong hostname"
  # avahi-daemon of this host answers on this host's own system bus, under this host's name.
  name=$(avahi_name "$host")
  [[ $name == "$host.local" ]] || fail "$host's avahi-daemon calls itself '$name'"
done
[[ $(host_run h1 cat /proc/self/cgroup) == *"/${NETSIM_PREFIX}h1/host" ]] ||
  fail "host_run does not put processes into h1's cgroup"

# ---- mDNS: publish on every host, resolve everywhere ------------------------------------------
host_bg h2 browse avahi-browse -rp _lanchat._tcp
index=0
for host in "${NETSIM_HOSTS[@]}"; do
  index=$((index + 1))
  published=$(now_ms)
  host_bg "$host" publish avahi-publish -s "lanchat-$host" _lanchat._tcp $((7000 + index)) \
    "id=$host-id" "v=1"
  if [[ $host == h1 ]]; then
    wait_until 5000 "h2 resolves h1's service" browse_log_has h2 = h1
    netsim_log "figure: avahi-publish on h1 -> resolved on h2 = $(($(now_ms) - published)) ms"
  fi
done
for host in "${NETSIM_HOSTS[@]}"; do
  wait_until 5000 "h2 resolves $host's service" browse_log_has h2 = "$host"
done

# Each host lists the other two, found over IPv4 and over IPv6 mDNS, with host name, port, TXT.
# The address avahi-browse -r prints for a row may be of either family whatever the row's
# protocol (it resolves with AVAHI_PROTO_UNSPEC), so rows are checked against both addresses
# and each family is resolved on its own with avahi-resolve.
for host in "${NETSIM_HOSTS[@]}"; do
  started=$(now_ms)
  listing=$(host_browse_once "$host" -rp _lanchat._tcp)
  netsim_log "avahi-browse -rtp on $host took $(($(now_ms) - started)) ms"
  index=0
  for other in "${NETSIM_HOSTS[@]}"; do
    index=$((index + 1))
    [[ $other != "$host" ]] || continue
    addr4=$(host_addr4 "$other")
    addr6=$(host_addr6 "$other")
    for protocol in IPv4 IPv6; do
      row=$(grep "^=;eth0;$protocol;lanchat-$other;_lanchat._tcp;local;" <<<"$listing") ||
        fail "$host does not list $other over $protocol: $listing"
      IFS=';' read -r _ _ _ _ _ _ hostname address port txt <<<"$row"
      [[ $hostname == "$other.local" && $port == $((7000 + index)) ]] ||
        fail "$host lists $other as $hostname port $port"
      [[ $address == "$addr4" || $address == "$addr6" ]] ||
        fail "$host lists $other at $address, not $addr4 or $addr6"
      [[ $txt == *'"id='"$other"'-id"'* ]] || fail "$host sees $other's TXT as $txt"
    done
    [[ $(host_run "$host" avahi-resolve -4 -n "$other.local") == "$other.local"$'\t'"$addr4" ]] ||
      fail "$host does not resolve $other.local to $addr4"
    [[ $(host_run "$host" avahi-resolve -6 -n "$other.local") == "$other.local"$'\t'"$addr6" ]] ||
      fail "$host does not resolve $other.local to $addr6"
  done
done

# ---- TCP between hosts, capture --------------------------------------------------------------
host_bg h2 echo socat "TCP6-LISTEN:$PORT,ipv6only=0,reuseaddr,fork" EXEC:cat
wait_until 2000 "h2 listens on $PORT" listening h2
h2_v4="TCP:$(host_addr4 h2)"
h2_v6="TCP6:[$(host_addr6 h2)%eth0]"
expect_echo h1 "$h2_v4"
expect_echo h3 "$h2_v4"
expect_echo h1 "$h2_v6"

capture="$(host_dir h2)/tmp/h2.pcap"
host_capture_start h2 "$capture"
marker="capture-marker-$RANDOM$RANDOM"
[[ $(tcp_echo h1 "$h2_v4" "$marker") == "$marker" ]] || fail "echo during the capture failed"
host_capture_stop h2
tcpdump -r "$capture" -A 2>/dev/null | grep -F "$marker" >/dev/null || fail "the capture misses the text"
[[ -z $(tcpdump -r "$capture" -n 'not tcp' 2>/dev/null) ]] || fail "the capture holds non-TCP"

# ---- packet loss -----------------------------------------------------------------------------
host_loss h2 100
expect_no_tcp h1 "$h2_v4"
expect_no_tcp h3 "$h2_v6"
host_loss h2 30 # replaces the 100 %: the rule must say so
rules=$(nsenter "--net=/run/netns/${NETSIM_PREFIX}h2" nft list ruleset)
grep -qF "numgen random mod 100 < 30 drop" <<<"$rules" || fail "30 % loss rule missing: $rules"
grep -qxF $'\t\tdrop' <<<"$rules" && fail "the 100 % rule was not replaced: $rules"
host_loss_clear h2
[[ -z $(nsenter "--net=/run/netns/${NETSIM_PREFIX}h2" nft list ruleset) ]] ||
  fail "host_loss_clear left rules behind"
expect_echo h1 "$h2_v4"

# ---- a pulled cable ----------------------------------------------------------------------------
browse_log=$(host_log h2 browse)
host_link h2 down
expect_no_tcp h1 "$h2_v4"
expect_no_tcp h1 "$h2_v6"
wait_until 3000 "h2's avahi-daemon leaves eth0" \
  grep -qF "Interface eth0.IPv4 no longer relevant for mDNS" "$(host_log h2 avahi)"
[[ -z $(host_browse_once h2 -rp _lanchat._tcp) ]] || fail "h2 still sees services offline"
: >"$browse_log" # from here on, only what h2 sees after the cable is back
plugged=$(now_ms)
host_link h2 up
wait_until 3000 "TCP from h1 to h2 again" tcp_echo h1 "$h2_v4" again
expect_echo h1 "$h2_v6"
wait_until 5000 "h2 resolves h1's service again" browse_log_has h2 = h1
netsim_log "figure: cable back on h2 -> h1 resolved again on h2 = $(($(now_ms) - plugged)) ms"

# ---- avahi-daemon restart on h1: withdrawn, then published again -----------------------------
: >"$browse_log" # from here on, only what h2 sees after the restart
host_avahi_restart h1
wait_until 3000 "h2 saw h1's service withdrawn" browse_log_has h2 - h1
# avahi-publish gives up when its daemon goes away, as any client without a reconnect loop.
host_bg_wait h1 publish 3000 >/dev/null
restarted=$(now_ms)
host_bg h1 publish avahi-publish -s lanchat-h1 _lanchat._tcp 7001 "id=h1-id" "v=1"
wait_until 5000 "h2 resolves h1's service again" browse_log_has h2 = h1
netsim_log "figure: avahi restart on h1 -> resolved again on h2 = $(($(now_ms) - restarted)) ms"

# A crash: SIGKILL leaves the pid file behind; the next start must still work.
host_avahi_kill h1
host_avahi_start h1
[[ $(avahi_name h1) == h1.local ]] || fail "h1's avahi-daemon does not answer after the crash"

# ---- systemd user manager with a Type=notify unit --------------------------------------------
started=$(now_ms)
host_user_manager_start h1
netsim_log "figure: systemd --user running in h1 = $(($(now_ms) - started)) ms"
units="$(host_dir h1)/home/.config/systemd/user"
mkdir -p "$units"
# READY=1 comes from a child of the main process, hence NotifyAccess=all. The marker file proves
# that `systemctl start` waited for READY=1 rather than returning at once.
cat >"$units/netsim-notify.service" <<'EOF'
[Service]
Type=notify
NotifyAccess=all
ExecStart=/bin/sh -c 'sleep 0.3; touch "$HOME/notify-ready"; systemd-notify --ready; exec sleep infinity'
EOF
host_systemctl h1 daemon-reload
host_systemctl h1 start netsim-notify.service
[[ -e "$(host_dir h1)/home/notify-ready" ]] || fail "systemctl start returned before READY=1"
[[ $(host_systemctl h1 is-active netsim-notify.service) == active ]] || fail "unit not active"
main_pid=$(host_systemctl h1 show -p MainPID --value netsim-notify.service)
[[ $(nsenter -t "$main_pid" -u hostname) == h1 ]] || fail "the unit does not run inside h1"
grep -qF "/${NETSIM_PREFIX}h1/user@0/app.slice/netsim-notify.service" "/proc/$main_pid/cgroup" ||
  fail "the unit is not in h1's user manager cgroup: $(cat "/proc/$main_pid/cgroup")"
host_systemctl h1 stop netsim-notify.service
[[ $(host_systemctl h1 is-active netsim-notify.service || true) == inactive ]] ||
  fail "unit not stopped"

# ---- nothing is left behind ------------------------------------------------------------------
net_down
if ! leftovers=$(netsim_leftovers "$NETSIM_PREFIX"); then
  fail "net_down left things behind: $leftovers"
fi
netsim_log "net_down left nothing behind"
