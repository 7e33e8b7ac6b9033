# shellcheck shell=bash
#
# netsim hosts: bring the simulated LAN up and down, run commands and background programs inside a
# host. Sourced by netsim.sh; see there for the conventions.
#
# Layout of one run (NETSIM_PREFIX=lcs1234-, 3 hosts):
#   namespaces   lcs1234-sw (bridge br0, ports h1…h3), lcs1234-h1 … lcs1234-h3 (eth0, lo)
#   cgroups      <caller's cgroup>/lcs1234-hX/{host,user@0}  (processes of hX; its user manager)
#   files        $NETSIM_DIR/hX/{home,tmp,log,state}, $NETSIM_DIR/hX/avahi-daemon.conf
# Host hX has 169.254.0.X/16 and an IPv6 link-local address on eth0 (DAD off, so it is usable at
# once). Its holder process keeps the mount/UTS namespaces alive and is the target of nsenter.

# The holder: runs in the host's fresh mount and UTS namespaces, gives them a private /run and a
# cgroup2 tree, moves itself into the host's cgroup, reports readiness, then only waits.
# Arguments: host name, ready file, cgroup path of the host. Writes "ok" or "none" (no cgroup2:
# everything but the systemd user manager still works) to the ready file.
# shellcheck disable=SC2016 # expanded by the holder's own shell
_NETSIM_HOLDER_SCRIPT='
set -eu
host=$1 ready=$2 cgroup=$3
hostname "$host"
mount -t tmpfs -o mode=0755,size=64m "netsim-$host" /run
mkdir -p /run/dbus /run/avahi-daemon /run/systemd/system /run/user/0 /run/lock
chmod 0700 /run/user/0
cgroups=none
if mount -t cgroup2 cgroup2 /sys/fs/cgroup &&
  mkdir -p "/sys/fs/cgroup$cgroup/host" "/sys/fs/cgroup$cgroup/user@0" &&
  echo $$ >"/sys/fs/cgroup$cgroup/host/cgroup.procs"; then
  cgroups=ok
fi
echo "$cgroups" >"$ready.tmp"
mv "$ready.tmp" "$ready"
exec sleep infinity
'

# _netsim_ns H — the namespace name of host H (or of the switch, "sw").
_netsim_ns() {
  echo "${NETSIM_PREFIX}$1"
}

# _netsim_host_dir H — the run directory of host H; fails for an unknown host.
_netsim_host_dir() {
  if [[ -z $NETSIM_DIR || ! -d $NETSIM_DIR/$1/state ]]; then
    netsim_log "no such host: '$1' (is the network up?)"
    return 1
  fi
  echo "$NETSIM_DIR/$1"
}

# host_dir H — the host's directory in the run's temp dir (home/, tmp/, log/, state/).
host_dir() {
  _netsim_host_dir "$1"
}

# host_log H NAME — path of the host's log file NAME.log (lanchatd, avahi, holder, …).
host_log() {
  local dir
  dir=$(_netsim_host_dir "$1") || return 1
  echo "$dir/log/$2.log"
}

# host_addr4 H — the host's IPv4 address (169.254.0.X).
host_addr4() {
  local dir
  dir=$(_netsim_host_dir "$1") || return 1
  cat "$dir/state/addr4"
}

# host_addr6 H — the host's IPv6 link-local address on eth0 (without the %eth0 scope). Empty
# while the cable is pulled (the kernel drops it); the same address comes back on `up`.
host_addr6() {
  ip -n "$(_netsim_ns "$1")" -6 -o addr show dev eth0 scope link |
    awk '{ sub("/.*", "", $4); print $4; exit }'
}

# _netsim_host_path — PATH inside the hosts: the lanchat binaries first.
_netsim_host_path() {
  echo "$LANCHAT_BIN_DIR:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
}

# _netsim_command H CGROUP_LEAF CMD… — set _NETSIM_CMD to the command line that runs CMD inside
# host H, in the host's cgroup leaf (host or user@0), with the host's clean environment and
# default signal dispositions (a background job of a script would otherwise inherit SIGINT
# ignored). Every stage execs the next, so the PID of that command line is CMD's PID.
_netsim_command() {
  local host=$1 leaf=$2
  shift 2
  local dir holder
  dir=$(_netsim_host_dir "$host") || return 1
  holder=$(<"$dir/state/holder.pid")
  local -a environment=(
    "HOME=$dir/home" "USER=root" "LOGNAME=root" "SHELL=/bin/bash" "LANG=C.UTF-8"
    "PATH=$(_netsim_host_path)"
    "XDG_DATA_HOME=$dir/home/.local/share" "XDG_CONFIG_HOME=$dir/home/.config"
    "XDG_STATE_HOME=$dir/home/.local/state" "XDG_CACHE_HOME=$dir/home/.cache"
    "XDG_RUNTIME_DIR=/run/user/0" "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/0/bus"
    "TMPDIR=$dir/tmp" "NETSIM_HOST=$host"
  )
  if [[ -n ${TERM:-} ]]; then
    environment+=("TERM=$TERM")
  fi
  # A scenario may add variables for every host command, e.g. NETSIM_ENV=(LANCHAT_DEAD_TIMEOUT=4).
  if [[ -n ${NETSIM_ENV+set} ]]; then
    environment+=("${NETSIM_ENV[@]}")
  fi
  _NETSIM_CMD=(nsenter -t "$holder" -m -u -n --)
  if [[ -s $dir/state/cgroup ]]; then
    local procs
    procs="/sys/fs/cgroup$(<"$dir/state/cgroup")/$leaf/cgroup.procs"
    # shellcheck disable=SC2016 # $$ and $@ belong to the inner shell
    _NETSIM_CMD+=(/bin/sh -c 'echo $$ >"$0" && exec "$@"' "$procs")
  fi
  _NETSIM_CMD+=(env -i --default-signal "${environment[@]}" "$@")
}

# host_run H CMD… — run CMD inside host H (its network, /run, hostname and cgroup) with HOME,
# XDG_DATA_HOME, XDG_CONFIG_HOME, TMPDIR of the host, XDG_RUNTIME_DIR=/run/user/0 and
# $LANCHAT_BIN_DIR first in PATH. The environment is otherwise clean: pass more with `env K=V`.
host_run() {
  local host=$1
  shift
  _netsim_command "$host" host "$@" || return 1
  "${_NETSIM_CMD[@]}"
}

# host_browse_once H ARGS… — `avahi-browse -t ARGS…` inside H (a one-shot browse: it ends once
# avahi-daemon has said "all for now", about 1 s in), stopped after 3 s. avahi-browse -t -r never
# ends when a record is withdrawn while it is still resolving it (remove_service() frees that
# resolver without counting it finished), which happens whenever a record goes while we look:
# one such hang held scenario 12 for 11 minutes. The rows it resolved are printed all the same
# (it flushes each one), and a browse cut short this way returns 0.
host_browse_once() {
  local host=$1 status=0
  shift
  host_run "$host" timeout -k 1 3 avahi-browse -t "$@" || status=$?
  ((status == 0 || status == 124)) || return "$status"
}

# _netsim_bg H NAME CGROUP_LEAF CMD… — start CMD in the background inside H, stdout and stderr
# appended to log/NAME.log; a wrapper subshell records state/NAME.pid and, when CMD ends,
# state/NAME.exit (its exit status, 128+N for signal N). Returns once the PID is known.
_netsim_bg() {
  local host=$1 name=$2 leaf=$3
  shift 3
  local dir
  dir=$(_netsim_host_dir "$host") || return 1
  local state=$dir/state/$name log=$dir/log/$name.log
  rm -f "$state.pid" "$state.exit"
  touch "$log"
  stat -c %s "$log" >"$state.offset"
  printf '=== %s start: %s\n' "$(date '+%T.%3N')" "$*" >>"$log"
  _netsim_command "$host" "$leaf" "$@" || return 1
  (
    set +e
    "${_NETSIM_CMD[@]}" </dev/null >>"$log" 2>&1 &
    pid=$!
    echo "$pid" >"$state.pid.tmp" && mv "$state.pid.tmp" "$state.pid"
    wait "$pid"
    status=$?
    echo "$status" >"$state.exit.tmp" && mv "$state.exit.tmp" "$state.exit"
    printf '=== %s exit status %s\n' "$(date '+%T.%3N')" "$status" >>"$log"
  ) </dev/null >/dev/null 2>&1 &
  echo "$!" >>"$dir/state/wrappers"
  local i
  for ((i = 0; i < 500; i++)); do
    [[ -s $state.pid ]] && return 0
    sleep 0.01
  done
  netsim_log "$host: could not start $name"
  return 1
}

# _netsim_bg_ended H NAME — true once the background program NAME of H has ended.
_netsim_bg_ended() {
  [[ -e $NETSIM_DIR/$1/state/$2.exit ]]
}

# _netsim_bg_log_has H NAME PATTERN — true when NAME's log, since NAME was last started,
# contains the fixed string PATTERN.
_netsim_bg_log_has() {
  local state=$NETSIM_DIR/$1/state/$2
  tail -c "+$(($(<"$state.offset") + 1))" "$NETSIM_DIR/$1/log/$2.log" | grep -F -- "$3" >/dev/null
}

# _netsim_bg_wait_log H NAME PATTERN TIMEOUT_MS — wait until the program NAME (started with
# _netsim_bg) has logged PATTERN; fail at once if it ends first.
_netsim_bg_wait_log() {
  local host=$1 name=$2 pattern=$3 timeout_ms=$4
  if ! _netsim_wait "$timeout_ms" "$host: $name logged '$pattern'" \
    "_netsim_bg_ended $host $name" _netsim_bg_log_has "$host" "$name" "$pattern"; then
    tail -n 20 "$NETSIM_DIR/$host/log/$name.log" >&2
    return 1
  fi
}

# host_bg H NAME CMD… — start a helper program (avahi-publish, a listener, …) in the background
# inside H, output to log/NAME.log. NAME identifies it for host_bg_pid/host_bg_stop/host_bg_wait.
host_bg() {
  local host=$1 name=$2
  shift 2
  _netsim_bg "$host" "$name" host "$@"
}

# host_bg_pid H NAME — PID of the background program NAME while it runs; returns 1 once it ended.
host_bg_pid() {
  local dir
  dir=$(_netsim_host_dir "$1") || return 1
  local state=$dir/state/$2
  [[ -s $state.pid && ! -e $state.exit ]] || return 1
  cat "$state.pid"
}

# host_bg_wait H NAME TIMEOUT_MS — wait until NAME has ended and print its exit status.
host_bg_wait() {
  local host=$1 name=$2 timeout_ms=$3 dir
  dir=$(_netsim_host_dir "$host") || return 1
  _netsim_wait "$timeout_ms" "$host: $name ended" :none test -s "$dir/state/$name.exit" || return 1
  cat "$dir/state/$name.exit"
}

# host_bg_stop H NAME [SIGNAL] [TIMEOUT_MS] — send SIGNAL (TERM) and wait (3000 ms) for the end;
# prints the exit status. If it does not end in time it is killed (and waited for) and the call
# fails. Fails too when NAME is not running.
host_bg_stop() {
  local host=$1 name=$2 signal=${3:-TERM} timeout_ms=${4:-3000} pid
  pid=$(host_bg_pid "$host" "$name") || {
    netsim_log "$host: $name is not running"
    return 1
  }
  kill -s "$signal" "$pid" 2>/dev/null || true
  if ! host_bg_wait "$host" "$name" "$timeout_ms"; then
    kill -s KILL "$pid" 2>/dev/null || true
    host_bg_wait "$host" "$name" 3000 >/dev/null || true
    return 1
  fi
}
