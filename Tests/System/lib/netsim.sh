# shellcheck shell=bash source-path=SCRIPTDIR
#
# netsim — simulated hosts for lanchat's system tests.
#
# A scenario is a standalone bash script that sources this file, calls `net_up N` and drives the
# hosts h1…hN through the functions below. Each host is a network namespace plus its own mount and
# UTS namespaces (its own /run, system D-Bus, avahi-daemon, hostname, cgroup subtree), all on one
# bridge that lives in a private "switch" namespace. Nothing touches the machine's own network.
#
# Who owns what:
# * The scenario's shell owns the run: `net_up` must be called from the top-level shell (not in a
#   `$(…)` or a pipeline) because it installs the EXIT/INT/TERM trap that calls `net_down`.
# * Per-host state lives in files under "$NETSIM_DIR/hX/state", so every function works the same
#   from a subshell (e.g. `t=$(host_daemon_start h1)`).
# * Background programs (lanchatd, avahi-daemon, tcpdump, …) are watched by a small wrapper
#   subshell that records their PID and, when they end, their exit status.
#
# Conventions: every function returns non-zero on failure and prints why on stderr, so scenarios
# run with `set -euo pipefail`. Values meant to be captured (timestamps, JSON) go to stdout;
# progress lines go to stderr. Times are milliseconds since the epoch (`now_ms`).
# Under pipefail a reader that stops early (`grep -q`, `grep -m`, `head`) fails its pipeline
# whenever the writer's next write dies of SIGPIPE (exit 141), found line or not; readers
# read to the end instead (`grep … >/dev/null`, `sed -n 1p`).
#
# Configuration (environment):
#   LANCHAT_BIN_DIR   where `lanchatd` and `lanchat` are (default: <repo>/.build/debug)
#   NETSIM_PREFIX     prefix of every namespace, cgroup and nft table of this run
#                     (default: lcs<PID>-; the runner sets lcs<runner PID>-<n>-)
#   NETSIM_LOG_DIR    if set, host logs are copied there when the run fails
#   NETSIM_KEEP=1     keep the run's temp dir (logs, homes) after net_down

if [[ -n ${_NETSIM_SOURCED:-} ]]; then
  return 0
fi
_NETSIM_SOURCED=1

_NETSIM_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_NETSIM_REPO_DIR=$(cd "$_NETSIM_LIB_DIR/../../.." && pwd)

: "${LANCHAT_BIN_DIR:=$_NETSIM_REPO_DIR/.build/debug}"
: "${NETSIM_PREFIX:=lcs$$-}"
export LANCHAT_BIN_DIR

if [[ ! $NETSIM_PREFIX =~ ^[a-z][a-z0-9-]*$ ]]; then
  echo "netsim: NETSIM_PREFIX must match [a-z][a-z0-9-]*, got '$NETSIM_PREFIX'" >&2
  return 1
fi

# Set by net_up; empty when no network is up.
NETSIM_DIR=${NETSIM_DIR:-}
# shellcheck disable=SC2034 # for scenarios: the hosts of the run (h1 … hN)
NETSIM_HOSTS=()

_NETSIM_T0=${EPOCHREALTIME//[!0-9]/}

# ---------------------------------------------------------------------------------------------
# Logging, failure and time
# ---------------------------------------------------------------------------------------------

# netsim_log MSG… — one progress line on stderr, stamped with the time since the script started.
netsim_log() {
  local now=${EPOCHREALTIME//[!0-9]/}
  local ms=$(((now - _NETSIM_T0) / 1000))
  printf '[%4d.%03ds] %s\n' $((ms / 1000)) $((ms % 1000)) "$*" >&2
}

# fail MSG… — report a failed expectation and end the script (the EXIT trap cleans up).
fail() {
  netsim_log "FAIL: $*"
  exit 1
}

# now_ms — milliseconds since the epoch, from bash's clock (no fork).
now_ms() {
  local us=${EPOCHREALTIME//[!0-9]/}
  echo $((us / 1000))
}

# _netsim_wait TIMEOUT_MS DESCRIPTION ABORT CMD… — poll CMD every 10 ms until it succeeds.
# ABORT is a command (or `:none`) checked after each miss: when it succeeds, waiting is pointless
# (the process we wait for died) and we fail at once. Sets WAITED_MS; returns 1 on timeout/abort.
_netsim_wait() {
  local timeout_ms=$1 description=$2 abort=$3
  shift 3
  local start=${EPOCHREALTIME//[!0-9]/} now elapsed
  while true; do
    if "$@" >/dev/null 2>&1; then
      now=${EPOCHREALTIME//[!0-9]/}
      WAITED_MS=$(((now - start) / 1000))
      netsim_log "ok after ${WAITED_MS} ms: $description"
      return 0
    fi
    now=${EPOCHREALTIME//[!0-9]/}
    elapsed=$(((now - start) / 1000))
    if [[ $abort != :none ]] && $abort >/dev/null 2>&1; then
      WAITED_MS=$elapsed
      netsim_log "FAIL: gave up after ${elapsed} ms waiting for: $description"
      return 1
    fi
    if ((elapsed >= timeout_ms)); then
      WAITED_MS=$elapsed
      netsim_log "FAIL: timed out after ${timeout_ms} ms waiting for: $description"
      return 1
    fi
    sleep 0.01
  done
}

# wait_until TIMEOUT_MS DESCRIPTION CMD… — poll CMD (output discarded) every 10 ms until it exits
# 0. Prints the elapsed time on stderr and leaves it in WAITED_MS (when called in this shell).
# On timeout prints the description and returns 1, which ends a `set -e` scenario.
wait_until() {
  if (($# < 3)); then
    netsim_log "usage: wait_until TIMEOUT_MS DESCRIPTION CMD…"
    return 64
  fi
  local timeout_ms=$1 description=$2
  shift 2
  _netsim_wait "$timeout_ms" "$description" :none "$@"
}

# ---------------------------------------------------------------------------------------------
# The rest of the library
# ---------------------------------------------------------------------------------------------

# shellcheck source=netsim-hosts.sh
source "$_NETSIM_LIB_DIR/netsim-hosts.sh"
# shellcheck source=netsim-lifecycle.sh
source "$_NETSIM_LIB_DIR/netsim-lifecycle.sh"
# shellcheck source=netsim-faults.sh
source "$_NETSIM_LIB_DIR/netsim-faults.sh"
# shellcheck source=netsim-services.sh
source "$_NETSIM_LIB_DIR/netsim-services.sh"
# shellcheck source=netsim-json.sh
source "$_NETSIM_LIB_DIR/netsim-json.sh"
