#!/usr/bin/env bash
#
# Runs lanchat's system scenarios (Tests/System/scenarios/*.sh), one at a time, each on its own
# simulated LAN (lib/netsim.sh). `make test` calls it after the unit and in-process layers.
#
# Usage: Tests/System/run.sh [--only PATTERN] [--repeat N] [--verbose] [--list]
#   --only PATTERN  run the scenarios whose file name contains PATTERN (repeatable)
#   --repeat N      run the selection N times (to catch flaky scenarios)
#   --verbose       stream each scenario's output instead of keeping it in its log
#   --list          print the scenario names and exit
#
# Without root or a needed tool it prints "SKIPPED: <reason>" and exits 0, unless
# LANCHAT_REQUIRE_SYSTEM_TESTS=1 (CI), where a skip is a failure (exit 1).
# Environment: LANCHAT_BIN_DIR (default <repo>/.build/debug), LANCHAT_SCENARIO_TIMEOUT (seconds
# per scenario, default 900), LANCHAT_SYSTEM_LOG_DIR (where logs go; default a temp dir, removed
# when everything passed).

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
export LANCHAT_BIN_DIR=${LANCHAT_BIN_DIR:-$repo/.build/debug}
# ip, nft and avahi-daemon live in sbin, which a non-login PATH may lack.
export PATH=$PATH:/usr/sbin:/sbin

usage() {
  sed -n '5,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 64
}

patterns=()
repeat=1
verbose=0
list=0
while (($# > 0)); do
  case $1 in
  --only)
    (($# >= 2)) || usage
    patterns+=("$2")
    shift 2
    ;;
  --repeat)
    [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage
    repeat=$2
    shift 2
    ;;
  --verbose | -v)
    verbose=1
    shift
    ;;
  --list)
    list=1
    shift
    ;;
  *) usage ;;
  esac
done

scenarios=()
for file in "$here"/scenarios/*.sh; do
  [[ -e $file ]] || continue
  name=$(basename "$file" .sh)
  if ((${#patterns[@]} > 0)); then
    selected=0
    for pattern in "${patterns[@]}"; do
      [[ $name == *"$pattern"* ]] && selected=1
    done
    ((selected)) || continue
  fi
  scenarios+=("$file")
done
if ((${#scenarios[@]} == 0)); then
  echo "no scenario matches: ${patterns[*]:-(none in $here/scenarios)}" >&2
  exit 1
fi
if ((list)); then
  for file in "${scenarios[@]}"; do
    basename "$file" .sh
  done
  exit 0
fi

# skip REASON — the system layer cannot run here.
skip() {
  if [[ ${LANCHAT_REQUIRE_SYSTEM_TESTS:-0} == 1 ]]; then
    echo "FAILED: system tests are required (LANCHAT_REQUIRE_SYSTEM_TESTS=1) but $1" >&2
    exit 1
  fi
  echo "SKIPPED: $1"
  exit 0
}

[[ $(id -u) == 0 ]] || skip "needs root for network namespaces"
((BASH_VERSINFO[0] >= 5)) || skip "needs bash 5 (EPOCHREALTIME)"
for need in ip:iproute2 ss:iproute2 nsenter:util-linux unshare:util-linux \
  dbus-daemon:dbus dbus-send:dbus avahi-daemon:avahi-daemon avahi-browse:avahi-utils \
  avahi-publish:avahi-utils avahi-resolve:avahi-utils nft:nftables tcpdump:tcpdump jq:jq \
  socat:socat systemctl:systemd systemd-notify:systemd timeout:coreutils; do
  command -v "${need%%:*}" >/dev/null ||
    skip "needs ${need%%:*} (apt-get install -y ${need#*:})"
done
[[ -x /lib/systemd/systemd ]] || skip "needs /lib/systemd/systemd (apt-get install -y systemd)"
env --default-signal true 2>/dev/null || skip "needs env --default-signal (coreutils ≥ 8.31)"
unshare -n -m true 2>/dev/null || skip "cannot create network and mount namespaces here"

# shellcheck source-path=SCRIPTDIR source=lib/netsim.sh
source "$here/lib/netsim.sh"

log_dir=${LANCHAT_SYSTEM_LOG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/lanchat-system-XXXXXX")}
mkdir -p "$log_dir"
timeout_s=${LANCHAT_SCENARIO_TIMEOUT:-900}
run_prefix="lcs$$-"
current=''

# On Ctrl-C or TERM: stop the running scenario (its own trap cleans up), then sweep its prefix.
# The trap may run while stderr points to /dev/null (see the wait below): report on fd 3.
exec 3>&2
interrupted() {
  if [[ -n $current ]]; then
    kill -TERM "$current" 2>/dev/null || true
    wait "$current" 2>/dev/null || true
  fi
  netsim_purge "$run_prefix" --dirs 2>&3 || true
  echo "interrupted: logs in $log_dir" >&3
  exit 130
}
trap interrupted INT TERM

passed=0
failed=0
failures=()
suite_start=$(now_ms)
number=0
for ((round = 1; round <= repeat; round++)); do
  for file in "${scenarios[@]}"; do
    number=$((number + 1))
    name=$(basename "$file" .sh)
    label=$name
    ((repeat == 1)) || label="$name [$round/$repeat]"
    log="$log_dir/$name.$round.log"
    prefix="$run_prefix$number-"
    start=$(now_ms)
    status=0
    {
      if ((verbose)); then
        NETSIM_PREFIX=$prefix NETSIM_LOG_DIR="$log_dir/$name.$round" \
          timeout -k 20 "$timeout_s" bash "$file" 2>&1 | tee "$log"
        exit "${PIPESTATUS[0]}"
      else
        NETSIM_PREFIX=$prefix NETSIM_LOG_DIR="$log_dir/$name.$round" \
          exec timeout -k 20 "$timeout_s" bash "$file" >"$log" 2>&1
      fi
    } &
    current=$!
    # (stderr: no "Killed" job report; the FAIL line says it)
    { wait "$current" || status=$?; } 2>/dev/null
    current=''
    elapsed=$(($(now_ms) - start))
    # A scenario that was killed, or cleaned up badly, must not leave its hosts behind.
    if leftovers=$(netsim_leftovers "$prefix"); then
      :
    else
      echo "$leftovers" >>"$log"
      netsim_purge "$prefix" --dirs || true
      ((status != 0)) || status=1
      echo "the scenario left things behind (removed now):" >>"$log"
    fi
    seconds=$(printf '%d.%d s' $((elapsed / 1000)) $((elapsed % 1000 / 100)))
    if ((status == 0)); then
      passed=$((passed + 1))
      printf 'PASS  %-40s %8s\n' "$label" "$seconds"
    else
      failed=$((failed + 1))
      failures+=("$label")
      reason="exit $status"
      ((status == 124)) && reason="timed out after ${timeout_s} s"
      printf 'FAIL  %-40s %8s  (%s; log: %s)\n' "$label" "$seconds" "$reason" "$log"
      if ((!verbose)); then
        tail -n 40 "$log" | sed 's/^/      | /'
      fi
    fi
  done
done

total=$(($(now_ms) - suite_start))
printf 'system tests: %d passed, %d failed in %d.%d s\n' "$passed" "$failed" \
  $((total / 1000)) $((total % 1000 / 100))
if ((failed > 0)); then
  printf '  failed: %s\n' "${failures[@]}"
  echo "  logs: $log_dir"
  exit 1
fi
if [[ -z ${LANCHAT_SYSTEM_LOG_DIR:-} ]]; then
  rm -rf "$log_dir"
fi
