#!/usr/bin/env bash
#
# 02-harness-cleanup — a scenario that fails must leave nothing behind. Runs a child scenario
# with every kind of resource (hosts, a background program, a systemd user manager, packet loss,
# a capture, a daemon log) and ends it four ways: a failing command under set -e, `fail`, SIGTERM
# while it waits, and SIGKILL (no trap can run: netsim_purge, the runner's safety net, must then
# remove everything). Also checks the failure report: the tail of each host's lanchatd log and a
# copy of the host logs in NETSIM_LOG_DIR.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/${NETSIM_PREFIX}cleanup-XXXXXX")
trap 'rm -rf "$work"' EXIT

cat >"$work/child.sh" <<EOF
set -euo pipefail
source "$_NETSIM_LIB_DIR/netsim.sh"
net_up 2
echo "\${NETSIM_NETNS_INODES[*]}" >"$work/inodes.\$MODE"
host_bg h1 sleeper sleep 1000
host_user_manager_start h1
host_loss h2 10
host_capture_start h2 "\$(host_dir h2)/tmp/capture.pcap"
echo "the last words of h1's daemon" >>"\$(host_log h1 lanchatd)"
touch "$work/ready.\$MODE"
case \$MODE in
error) false ;;
fail) fail "on purpose" ;;
*) wait_until 60000 "a signal from the parent" false ;;
esac
EOF

# run_child MODE — run the child in the background with its own prefix; sets child_pid.
run_child() {
  NETSIM_PREFIX="${NETSIM_PREFIX}$1-" NETSIM_LOG_DIR="$work/logs.$1" MODE=$1 \
    bash "$work/child.sh" >"$work/output.$1" 2>&1 &
  child_pid=$!
}

# finish_child — wait for the child (in this shell: it is our child); sets status.
finish_child() {
  status=0
  wait "$child_pid" || status=$?
}

# expect_clean MODE — nothing of the child's run remains.
expect_clean() {
  local leftovers inodes
  read -r -a inodes <"$work/inodes.$1"
  if ! leftovers=$(netsim_leftovers "${NETSIM_PREFIX}$1-" "${inodes[@]}"); then
    fail "the child ended by '$1' left things behind: $leftovers"
  fi
  netsim_log "the child ended by '$1' left nothing behind"
}

for mode in error fail; do
  run_child "$mode"
  finish_child
  [[ $status == 1 ]] || fail "the child ended by '$mode' exited with $status: $(cat "$work/output.$mode")"
  expect_clean "$mode"
  grep -qF -- "---- h1: last 40 lines of lanchatd.log ----" "$work/output.$mode" ||
    fail "no lanchatd log tail in the failure report"
  grep -qF "the last words of h1's daemon" "$work/output.$mode" || fail "the log tail is missing"
  grep -qF "the last words of h1's daemon" "$work/logs.$mode/h1/lanchatd.log" ||
    fail "the host logs were not copied to NETSIM_LOG_DIR"
done
grep -qF "FAIL: on purpose" "$work/output.fail" || fail "fail did not report its message"

run_child term
wait_until 10000 "the child is ready for SIGTERM" test -e "$work/ready.term"
kill -TERM "$child_pid"
finish_child
[[ $status == 143 ]] || fail "the child ended by SIGTERM exited with $status"
expect_clean term

run_child kill
wait_until 10000 "the child is ready for SIGKILL" test -e "$work/ready.kill"
kill -KILL "$child_pid"
finish_child
[[ $status == 137 ]] || fail "the child ended by SIGKILL exited with $status"
if netsim_leftovers "${NETSIM_PREFIX}kill-" >/dev/null; then
  fail "a child killed with SIGKILL left nothing: this test would prove nothing"
fi
netsim_purge "${NETSIM_PREFIX}kill-" --dirs
expect_clean kill
