# shellcheck shell=bash
#
# netsim services: the programs a host runs — avahi-daemon, lanchatd, the systemd user manager.
# Each runs in the background through _netsim_bg (netsim-hosts.sh), which records its PID and
# exit status under the host's state/ dir. Sourced by netsim.sh.

# ---------------------------------------------------------------------------------------------
# avahi-daemon (one per host, on the host's own system D-Bus)
# ---------------------------------------------------------------------------------------------

# _netsim_avahi_spawn H — write H's avahi-daemon.conf and start avahi-daemon in the foreground
# (so it logs to log/avahi.log), without waiting for it.
_netsim_avahi_spawn() {
  local host=$1 dir
  dir=$(_netsim_host_dir "$host") || return 1
  cat >"$dir/avahi-daemon.conf" <<EOF
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
  # A killed daemon leaves its pid file; the next one would refuse to start if that PID is
  # reused meanwhile.
  host_run "$host" rm -f /run/avahi-daemon/pid
  _netsim_bg "$host" avahi host avahi-daemon -f "$dir/avahi-daemon.conf" \
    --no-drop-root --no-chroot --no-proc-title
}

# _netsim_avahi_wait_started H — wait until avahi-daemon of H has established its host name.
_netsim_avahi_wait_started() {
  _netsim_bg_wait_log "$1" avahi "Server startup complete" 10000
}

# host_avahi_start H — start avahi-daemon in H and wait until it has established its host name
# (it then answers on D-Bus and publishes).
host_avahi_start() {
  if host_bg_pid "$1" avahi >/dev/null; then
    netsim_log "$1: avahi-daemon is already running"
    return 1
  fi
  _netsim_avahi_spawn "$1" && _netsim_avahi_wait_started "$1"
}

# host_avahi_stop H — stop avahi-daemon in H cleanly (SIGTERM: it sends goodbye packets).
host_avahi_stop() {
  local status
  status=$(host_bg_stop "$1" avahi TERM 5000) || return 1
  netsim_log "$1: avahi-daemon stopped (status $status)"
}

# host_avahi_kill H — kill avahi-daemon in H with SIGKILL (a crash: no goodbye packets).
host_avahi_kill() {
  host_bg_stop "$1" avahi KILL 3000 >/dev/null || return 1
  netsim_log "$1: avahi-daemon killed"
}

# host_avahi_restart H — stop avahi-daemon in H cleanly and start it again.
host_avahi_restart() {
  host_avahi_stop "$1" && host_avahi_start "$1"
}

# ---------------------------------------------------------------------------------------------
# lanchatd
# ---------------------------------------------------------------------------------------------

# _netsim_require_lanchat — fail unless both programs are in LANCHAT_BIN_DIR.
_netsim_require_lanchat() {
  local program
  for program in lanchatd lanchat; do
    if [[ ! -x $LANCHAT_BIN_DIR/$program ]]; then
      netsim_log "no $program in LANCHAT_BIN_DIR=$LANCHAT_BIN_DIR (build first: swift build)"
      return 1
    fi
  done
}

# host_daemon_start H [ARGS…] — start `lanchatd ARGS…` in H (stdout and stderr appended to
# log/lanchatd.log) and wait until `lanchat status` exits 0 (polled every 10 ms, 15 s at most;
# fails at once if the daemon exits). Prints the readiness time (now_ms), also kept for
# host_daemon_ready_ms.
host_daemon_start() {
  local host=$1 dir ready
  shift
  dir=$(_netsim_host_dir "$host") || return 1
  _netsim_require_lanchat || return 1
  if host_daemon_pid "$host" >/dev/null; then
    netsim_log "$host: lanchatd is already running"
    return 1
  fi
  _netsim_bg "$host" lanchatd host lanchatd "$@" || return 1
  if ! _netsim_wait 15000 "$host: lanchatd ready (lanchat status exits 0)" \
    "_netsim_bg_ended $host lanchatd" host_run "$host" lanchat status; then
    tail -n 20 "$dir/log/lanchatd.log" >&2
    return 1
  fi
  ready=$(now_ms)
  echo "$ready" >"$dir/state/lanchatd.ready_ms"
  echo "$ready"
}

# host_daemon_ready_ms H — the readiness time printed by the last host_daemon_start of H.
host_daemon_ready_ms() {
  local dir
  dir=$(_netsim_host_dir "$1") || return 1
  cat "$dir/state/lanchatd.ready_ms"
}

# host_daemon_pid H — PID of H's lanchatd while it runs; returns 1 when it does not.
host_daemon_pid() {
  host_bg_pid "$1" lanchatd
}

# host_daemon_stop H — SIGTERM to H's lanchatd; it must exit with status 0 within 3 s (else it
# is killed and the call fails). Prints the time SIGTERM was sent (now_ms).
host_daemon_stop() {
  local host=$1 sent status
  sent=$(now_ms)
  if ! status=$(host_bg_stop "$host" lanchatd TERM 3000); then
    netsim_log "$host: lanchatd did not stop within 3 s of SIGTERM"
    return 1
  fi
  if [[ $status != 0 ]]; then
    netsim_log "$host: lanchatd exited with status $status after SIGTERM, expected 0"
    tail -n 20 "$(host_log "$host" lanchatd)" >&2
    return 1
  fi
  echo "$sent"
}

# host_daemon_kill H — SIGKILL to H's lanchatd (a crash) and wait until it is gone. Prints the
# time of the kill (now_ms).
host_daemon_kill() {
  local host=$1 sent
  sent=$(now_ms)
  host_bg_stop "$host" lanchatd KILL 3000 >/dev/null || return 1
  echo "$sent"
}

# ---------------------------------------------------------------------------------------------
# systemd user manager
# ---------------------------------------------------------------------------------------------

# host_systemctl H ARGS… — `systemctl --user ARGS…` inside H.
host_systemctl() {
  local host=$1
  shift
  host_run "$host" systemctl --user "$@"
}

# _netsim_user_manager_state H — what `systemctl --user is-system-running` answers in H.
_netsim_user_manager_state() {
  host_systemctl "$1" is-system-running 2>/dev/null || true
}

# _netsim_user_manager_broken H — true when waiting for "running" is pointless.
_netsim_user_manager_broken() {
  _netsim_bg_ended "$1" systemd-user || [[ $(_netsim_user_manager_state "$1") == degraded ]]
}

# _netsim_user_manager_running H — true once the user manager of H answers "running".
_netsim_user_manager_running() {
  [[ $(_netsim_user_manager_state "$1") == running ]]
}

# host_user_manager_start H — a session D-Bus at /run/user/0/bus and `systemd --user` in H (in
# the host's own user@0 cgroup, as user@0.service would be), then wait until it is running. Unit
# files go to "$(host_dir H)/home/.config/systemd/user/". Units get the host_run environment;
# the manager resets PATH, so it is set again to put LANCHAT_BIN_DIR first (ExecStart= still
# needs an absolute path: systemd does not search PATH for it).
host_user_manager_start() {
  local host=$1 dir
  dir=$(_netsim_host_dir "$host") || return 1
  if [[ ! -s $dir/state/cgroup ]]; then
    netsim_log "$host: no cgroup2 tree, systemd --user cannot run there"
    return 1
  fi
  host_run "$host" dbus-daemon --session --address=unix:path=/run/user/0/bus --fork \
    --nopidfile >>"$dir/log/dbus-session.log" 2>&1 || return 1
  _netsim_bg "$host" systemd-user user@0 /lib/systemd/systemd --user || return 1
  if ! _netsim_wait 10000 "$host: systemd --user running" "_netsim_user_manager_broken $host" \
    _netsim_user_manager_running "$host"; then
    tail -n 20 "$dir/log/systemd-user.log" >&2
    host_systemctl "$host" --failed --no-pager >&2 || true
    return 1
  fi
  host_systemctl "$host" set-environment "PATH=$(_netsim_host_path)"
}
