# shellcheck shell=bash
#
# netsim lifecycle: net_up builds the LAN, net_down takes every piece of it away again, and
# netsim_leftovers proves that nothing of the run remains. Sourced by netsim.sh.
#
# Cleanup never relies on what the scenario remembered: netsim_purge finds the run's namespaces
# and cgroups by NETSIM_PREFIX, so it also mends a run that failed half-way through net_up.

# Identities of this run's network namespaces (inode numbers), kept after net_down so that
# netsim_leftovers can look for processes still inside them.
NETSIM_NETNS_INODES=()
# _netsim_nft_table — the nft table name of this run (inside the hosts; the prefix makes it
# recognisable anywhere).
_netsim_nft_table() {
  local prefix=${NETSIM_PREFIX//-/_}
  echo "${prefix}loss"
}

# _netsim_dead PID — true once PID is gone.
_netsim_dead() {
  ! kill -0 "$1" 2>/dev/null
}

# _netsim_own_cgroup — this shell's cgroup v2 path ("" for the root); the hosts' cgroups go below.
_netsim_own_cgroup() {
  local line
  while IFS= read -r line; do
    if [[ $line == 0::* ]]; then
      line=${line#0::}
      echo "${line%/}"
      return 0
    fi
  done </proc/self/cgroup
}

# _netsim_switch_up — the switch namespace with bridge br0. IPv6 is off there so the bridge
# itself never talks on the segment; multicast snooping is off so mDNS always floods.
# (A subshell with set -e: any failing step fails the whole.)
_netsim_switch_up() (
  set -e
  local sw
  sw=$(_netsim_ns sw)
  ip netns add "$sw"
  ip netns exec "$sw" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
    net.ipv6.conf.default.disable_ipv6=1
  ip -n "$sw" link set lo up
  ip -n "$sw" link add br0 type bridge mcast_snooping 0
  ip -n "$sw" link set br0 up
)

# _netsim_host_add H INDEX — namespace, veth to the bridge, addresses and files of host H.
# DAD is off so the IPv6 link-local address is usable at once (avahi ignores tentative ones).
_netsim_host_add() (
  set -e
  local host=$1 index=$2 ns sw dir
  ns=$(_netsim_ns "$host")
  sw=$(_netsim_ns sw)
  dir=$NETSIM_DIR/$host
  mkdir -p "$dir"/{state,log,tmp} "$dir"/home/{.config,.cache} "$dir"/home/.local/{share,state}
  echo "169.254.0.$index" >"$dir/state/addr4"
  ip netns add "$ns"
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
    net.ipv6.conf.default.accept_dad=0
  ip -n "$ns" link set lo up
  ip -n "$sw" link add "$host" type veth peer name eth0 netns "$ns"
  ip -n "$sw" link set "$host" master br0 up
  ip -n "$ns" addr add "169.254.0.$index/16" dev eth0
  ip -n "$ns" link set eth0 up
)

# _netsim_holder_start H — start the holder of H (see _NETSIM_HOLDER_SCRIPT) in the background.
_netsim_holder_start() {
  local host=$1 dir=$NETSIM_DIR/$1 cgroup
  cgroup="$(_netsim_own_cgroup)/${NETSIM_PREFIX}$host"
  ip netns exec "$(_netsim_ns "$host")" unshare -m -u --propagation private \
    /bin/sh -c "$_NETSIM_HOLDER_SCRIPT" "netsim-holder" "$host" "$dir/state/ready" "$cgroup" \
    </dev/null >>"$dir/log/holder.log" 2>&1 &
  echo "$!" >"$dir/state/holder.pid"
  # net_down kills it with SIGKILL; no "Killed" job report for that.
  disown "$!"
  echo "$cgroup" >"$dir/state/cgroup.path"
}

# _netsim_holder_wait H — wait for the holder's report; remember the host's cgroup if it has one.
_netsim_holder_wait() {
  local host=$1 dir=$NETSIM_DIR/$1 holder
  holder=$(<"$dir/state/holder.pid")
  if ! _netsim_wait 5000 "$host: holder ready" "_netsim_dead $holder" test -s "$dir/state/ready"; then
    cat "$dir/log/holder.log" >&2
    return 1
  fi
  if [[ $(<"$dir/state/ready") == ok ]]; then
    mv "$dir/state/cgroup.path" "$dir/state/cgroup"
  else
    netsim_log "$host: no cgroup2 tree; the systemd user manager will not start there"
  fi
}

# net_up N — create hosts h1…hN (N ≤ 250) on one bridge, each with its holder, system D-Bus and
# avahi-daemon (host-name=hX, allow-interfaces=eth0), and install the cleanup trap. Call it from
# the scenario's top-level shell, once. It owns the EXIT/HUP/INT/TERM traps from then on: keep
# other things to clean up under $NETSIM_DIR, which goes with the run.
net_up() {
  local count=${1:-} start host i
  if [[ ! $count =~ ^[1-9][0-9]*$ ]] || ((count > 250)); then
    netsim_log "usage: net_up N (1 ≤ N ≤ 250)"
    return 64
  fi
  if [[ -n $NETSIM_DIR ]]; then
    netsim_log "net_up: a network is already up in $NETSIM_DIR"
    return 1
  fi
  start=$(now_ms)
  NETSIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/${NETSIM_PREFIX}XXXXXX")
  trap _netsim_exit_trap EXIT
  trap 'exit 129' HUP
  trap 'exit 130' INT
  trap 'exit 143' TERM

  _netsim_switch_up || return 1
  for ((i = 1; i <= count; i++)); do
    NETSIM_HOSTS+=("h$i")
    _netsim_host_add "h$i" "$i" || return 1
    NETSIM_NETNS_INODES+=("$(stat -L -c %i "/run/netns/$(_netsim_ns "h$i")")")
  done
  for host in "${NETSIM_HOSTS[@]}"; do
    _netsim_holder_start "$host"
  done
  for host in "${NETSIM_HOSTS[@]}"; do
    _netsim_holder_wait "$host" || return 1
    host_run "$host" dbus-daemon --system --fork >>"$NETSIM_DIR/$host/log/dbus.log" 2>&1 ||
      return 1
  done
  for host in "${NETSIM_HOSTS[@]}"; do
    _netsim_avahi_spawn "$host" || return 1
  done
  for host in "${NETSIM_HOSTS[@]}"; do
    _netsim_avahi_wait_started "$host" || return 1
  done
  NETSIM_UP_MS=$(($(now_ms) - start))
  netsim_log "net_up $count: ${NETSIM_UP_MS} ms (prefix $NETSIM_PREFIX, files in $NETSIM_DIR)"
}

# _netsim_exit_trap — the EXIT trap of net_up: tear down, keep the script's exit status (a
# failed cleanup turns success into failure).
_netsim_exit_trap() {
  local status=$?
  trap - EXIT HUP INT TERM
  if ! net_down "$status" && ((status == 0)); then
    status=1
  fi
  exit "$status"
}

# _netsim_report_failure — the tail of each host's lanchatd log, and a copy of all host logs in
# NETSIM_LOG_DIR when that is set (the runner sets it).
_netsim_report_failure() {
  local dir log
  for dir in "$NETSIM_DIR"/h*/; do
    log=${dir}log/lanchatd.log
    if [[ -s $log ]]; then
      echo "---- $(basename "$dir"): last 40 lines of lanchatd.log ----" >&2
      tail -n 40 "$log" >&2
    fi
    if [[ -n ${NETSIM_LOG_DIR:-} ]]; then
      mkdir -p "$NETSIM_LOG_DIR/$(basename "$dir")"
      cp -r "${dir}log/." "$NETSIM_LOG_DIR/$(basename "$dir")/" 2>/dev/null || true
    fi
  done
  if [[ -n ${NETSIM_LOG_DIR:-} ]]; then
    echo "---- host logs copied to $NETSIM_LOG_DIR ----" >&2
  fi
}

# _netsim_wait_wrappers — let the wrapper subshells of background programs finish (their
# programs were killed), so none of them outlives the run or writes into a deleted dir.
_netsim_wait_wrappers() {
  local file pid i
  for file in "$NETSIM_DIR"/h*/state/wrappers; do
    [[ -e $file ]] || continue
    while read -r pid; do
      for ((i = 0; i < 200; i++)); do
        _netsim_dead "$pid" && break
        sleep 0.01
      done
    done <"$file"
  done
}

# net_down [STATUS] — kill every process of the run's namespaces, delete the namespaces, cgroups
# and temp dir. With a non-zero STATUS, first print each host's lanchatd log tail. Idempotent;
# returns 1 if something could not be removed.
net_down() {
  local status=${1:-0} result=0
  if [[ -n $NETSIM_DIR && -d $NETSIM_DIR ]] && ((status != 0)); then
    _netsim_report_failure
  fi
  netsim_purge "$NETSIM_PREFIX" || result=1
  if [[ -n $NETSIM_DIR ]]; then
    _netsim_wait_wrappers
    if [[ ${NETSIM_KEEP:-0} == 1 ]]; then
      netsim_log "kept $NETSIM_DIR (NETSIM_KEEP=1)"
    else
      rm -rf "$NETSIM_DIR"
    fi
    NETSIM_DIR=
    NETSIM_HOSTS=()
  fi
  return $result
}

# _netsim_in_cgroup2 SCRIPT ARGS… — run an sh SCRIPT in a private mount namespace where the
# cgroup2 tree is mounted on /sys/fs/cgroup (whatever the machine mounts there itself).
_netsim_in_cgroup2() {
  local script=$1
  shift
  unshare -m --propagation private /bin/sh -c \
    "mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null || exit 0; $script" netsim-cgroup2 "$@"
}

# _netsim_find_cgroups PREFIX — the cgroups named PREFIX… (not those below them).
_netsim_find_cgroups() {
  # shellcheck disable=SC2016 # expanded by the inner shell
  _netsim_in_cgroup2 \
    'find /sys/fs/cgroup -mindepth 1 -maxdepth 8 -type d -name "$1*" -prune' "$1"
}

# netsim_purge PREFIX [--dirs] — remove everything named PREFIX…: kill the processes of those
# namespaces (by PID, SIGKILL), delete the namespaces, remove the cgroups and, with --dirs, the
# temp dirs. Used by net_down and by the runner after each scenario.
netsim_purge() {
  local prefix=$1 namespace pids i result=0
  local -a namespaces=()
  mapfile -t namespaces < <(ip netns list 2>/dev/null |
    awk -v p="$prefix" 'index($1, p) == 1 { print $1 }')
  for namespace in "${namespaces[@]}"; do
    for ((i = 0; i < 100; i++)); do
      pids=$(ip netns pids "$namespace" 2>/dev/null | tr '\n' ' ')
      [[ -z ${pids// /} ]] && break
      # shellcheck disable=SC2086 # a list of PIDs
      kill -KILL $pids 2>/dev/null || true
      sleep 0.02
    done
    if [[ -n ${pids// /} ]]; then
      netsim_log "net_down: processes still in $namespace: $pids"
      result=1
    fi
  done
  for namespace in "${namespaces[@]}"; do
    ip netns delete "$namespace" || result=1
  done
  local -a cgroups=()
  mapfile -t cgroups < <(_netsim_find_cgroups "$prefix")
  # Emptied cgroups can be busy for a moment after their last process died: retry rmdir.
  # shellcheck disable=SC2016 # expanded by the inner shell
  ((${#cgroups[@]} == 0)) || _netsim_in_cgroup2 '
    status=0
    for dir in "$@"; do
      tries=0
      until find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null; do
        tries=$((tries + 1))
        if [ $tries -ge 100 ]; then echo "net_down: cannot remove cgroup $dir" >&2; status=1; break; fi
        sleep 0.02
      done
    done
    exit $status' "${cgroups[@]}" || result=1
  if [[ ${2:-} == --dirs ]]; then
    local dir
    while read -r dir; do
      rm -rf "$dir"
    done < <(_netsim_run_dirs "$prefix")
  fi
  return $result
}

# _netsim_run_dirs PREFIX — the temp dirs of runs with that prefix.
_netsim_run_dirs() {
  compgen -G "${TMPDIR:-/tmp}/$1*" || true
}

# netsim_leftovers [PREFIX [NETNS_INODE…]] — print whatever of the run(s) named PREFIX… still
# exists: namespaces, processes in the given network namespaces (default: this run's), cgroups,
# nft tables, temp dirs (unless NETSIM_KEEP=1). Returns 1 if anything was found.
netsim_leftovers() {
  local prefix=${1:-$NETSIM_PREFIX} found=0 line inode table
  local -a inodes=("${NETSIM_NETNS_INODES[@]}")
  if (($# > 1)); then
    inodes=("${@:2}")
  fi
  table=${prefix//-/_}
  while read -r line; do
    echo "leftover namespace: $line"
    found=1
  done < <(ip netns list 2>/dev/null | awk -v p="$prefix" 'index($1, p) == 1 { print $1 }')
  if ((${#inodes[@]} > 0)); then
    while read -r line inode; do
      if [[ " ${inodes[*]} " == *" $inode "* ]]; then
        echo "leftover process in a network namespace of the run: ${line%/ns/net}"
        found=1
      fi
    done < <(stat -L -c '%n %i' /proc/[0-9]*/ns/net 2>/dev/null)
  fi
  while read -r line; do
    echo "leftover cgroup: $line"
    found=1
  done < <(_netsim_find_cgroups "$prefix")
  if nft list tables 2>/dev/null | grep -F -- "$table" >/dev/null; then
    echo "leftover nft table: $table…"
    found=1
  fi
  if [[ ${NETSIM_KEEP:-0} != 1 ]]; then
    while read -r line; do
      echo "leftover directory: $line"
      found=1
    done < <(_netsim_run_dirs "$prefix")
  fi
  return $found
}
