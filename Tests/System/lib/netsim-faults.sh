# shellcheck shell=bash
#
# netsim faults and observation: cable, packet loss, packet capture. Sourced by netsim.sh.
# All of it acts inside one host's network namespace and dies with it.

# host_link H down|up — pull or plug H's cable (eth0 of the host). Addresses stay configured;
# the IPv6 link-local address comes back at once on `up` (DAD is off).
host_link() {
  local host=$1 state=${2:-}
  if [[ $state != up && $state != down ]]; then
    netsim_log "usage: host_link H down|up"
    return 64
  fi
  _netsim_host_dir "$host" >/dev/null || return 1
  ip -n "$(_netsim_ns "$host")" link set eth0 "$state" || return 1
  netsim_log "$host: link $state"
}

# _netsim_nft H — run `nft -f -` (script on stdin) in H's network namespace.
_netsim_nft() {
  nsenter "--net=/run/netns/$(_netsim_ns "$1")" nft -f -
}

# host_loss H PCT — drop PCT % (0…100) of H's packets at random, both ways (nftables
# `numgen random mod 100 < PCT` on the input and output hooks; loopback is spared). Replaces any
# loss set before. `tc netem` is not available on this kernel.
host_loss() {
  local host=$1 percent=${2:-} table
  if [[ ! $percent =~ ^[0-9]+$ ]] || ((percent > 100)); then
    netsim_log "usage: host_loss H PCT (0…100)"
    return 64
  fi
  _netsim_host_dir "$host" >/dev/null || return 1
  table=$(_netsim_nft_table)
  # nft checks `numgen … < N` against the range 0…99, so 100 % is a plain drop.
  local rule="numgen random mod 100 < $percent drop"
  if ((percent == 100)); then
    rule=drop
  elif ((percent == 0)); then
    rule=accept
  fi
  _netsim_nft "$host" <<EOF || return 1
table inet $table
delete table inet $table
table inet $table {
  chain input {
    type filter hook input priority -10; policy accept;
    iifname "lo" accept
    $rule
  }
  chain output {
    type filter hook output priority -10; policy accept;
    oifname "lo" accept
    $rule
  }
}
EOF
  netsim_log "$host: ${percent}% packet loss both ways"
}

# host_loss_clear H — remove the packet loss of H.
host_loss_clear() {
  local host=$1 table
  _netsim_host_dir "$host" >/dev/null || return 1
  table=$(_netsim_nft_table)
  printf 'table inet %s\ndelete table inet %s\n' "$table" "$table" | _netsim_nft "$host" ||
    return 1
  netsim_log "$host: packet loss cleared"
}

# host_capture_start H FILE — capture H's TCP traffic on eth0 into the pcap FILE (absolute
# path). Returns once tcpdump is listening. --immediate-mode matters: without it packets wait in
# the kernel ring and a stopped capture can hold none of them ("0 packets captured").
host_capture_start() {
  local host=$1 file=${2:-}
  if [[ $file != /* ]]; then
    netsim_log "usage: host_capture_start H /absolute/file.pcap"
    return 64
  fi
  _netsim_bg "$host" capture host tcpdump -i eth0 -n -U --immediate-mode -Z root -w "$file" tcp || return 1
  _netsim_bg_wait_log "$host" capture "listening on eth0" 5000
}

# host_capture_stop H — stop the capture of H (SIGINT) and wait until the file is complete.
host_capture_stop() {
  local host=$1 status
  status=$(host_bg_stop "$host" capture INT 3000) || return 1
  if [[ $status != 0 ]]; then
    netsim_log "$host: tcpdump exited with status $status"
    return 1
  fi
}
