#!/usr/bin/env bash
#
# 25-store-failures — issue 4 item 5, the store under a failing disk (PRODUCT.md §7: nothing
# loses a message that was acknowledged or delivers one twice):
# * a second lanchatd on a data directory in use exits 75 naming the first one's PID, and the
#   first keeps serving;
# * receiver (h2, data directory on a 4 MiB tmpfs) whose disk fills while receiving: every
#   message the sender lists as delivered is on the receiver's disk; the receiver holds what it
#   cannot store on the same session, trying again, and once space is freed all arrive exactly
#   once, without a restart;
# * sender (h3, data directory on a small ext4 image) with a full disk: `lanchat send` fails
#   with exit 74 and a message saying the disk is full, and nothing of a failed send is stored;
#   restarted on that full disk, lanchatd starts and shows the same history;
# * the same disk turning read-only under the running daemon (ext4 errors=remount-ro, what a
#   failing disk does; `mount -o remount,ro` itself is refused while the store is open for
#   writing): `send` fails clearly, and after a file system check the store holds exactly what
#   it held before, and delivers it.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/netsim.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/netsim-delivery.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/netsim-delivery.sh"

readonly RECEIVED=2000 BIG=65000

net_up 3

# data_dir H — H's default lanchat data directory.
data_dir() {
  echo "$(host_dir "$1")/home/.local/share/lanchat"
}

# fill_disk H DIR [LEAVE_KB] — fill the file system of DIR (inside H) with a ballast file,
# then give LEAVE_KB back. Prints nothing; free_disk undoes it.
fill_disk() {
  # shellcheck disable=SC2016 # expanded by the inner shell
  host_run "$1" sh -c 'dd if=/dev/zero of="$0/ballast" bs=64k 2>/dev/null; sync -f "$0"
    [ "$1" = 0 ] || truncate -s "-$1K" "$0/ballast"' "$2" "${3:-0}"
}

# free_disk H DIR — remove the ballast of fill_disk.
free_disk() {
  host_run "$1" rm -f "$2/ballast"
}

# free_kb H DIR — kilobytes available on the file system of DIR inside H.
free_kb() {
  host_run "$1" df -k --output=avail "$2" | tail -1 | tr -d ' '
}

# read_only H DIR — true when nothing can be written in DIR inside H (ext4 shows its emergency
# read-only state as the mount option "emergency_ro", not "ro").
read_only() {
  ! host_run "$1" touch "$2/probe" 2>/dev/null
}

# run_capture H OUT ERR CMD… — run CMD on H (at most 20 s; standard input passed on) with
# stdout and stderr in the files OUT and ERR; prints its exit status and never fails.
run_capture() {
  local host=$1 out=$2 err=$3 status=0
  shift 3
  host_run "$host" timeout 20 "$@" >"$out" 2>"$err" || status=$?
  echo "$status"
}

# history_snapshot H PEER FILE — id, seq, direction and text of every message of H's
# conversation with PEER, one a line, into FILE (statuses change as ACKs arrive; these do not).
history_snapshot() {
  json_history_all "$1" "$2" | jq -r '.[] | [.id, .seq, .direction, .text] | @tsv' >"$3"
}

# h2 receives on a 4 MiB tmpfs; h3 keeps its store on a 16 MiB ext4 image that turns read-only
# on an error, as a root file system usually does. Both are mounted inside the host only.
h2_data=$(data_dir h2)
host_run h2 mkdir -p "$h2_data"
host_run h2 mount -t tmpfs -o size=4m,mode=0700 lanchat-h2 "$h2_data"
h3_data=$(data_dir h3)
h3_image=$(host_dir h3)/tmp/data.img
truncate -s 16M "$h3_image"
mkfs.ext4 -q -F -m 0 -b 4096 "$h3_image"
host_run h3 mkdir -p "$h3_data"
host_run h3 mount -o loop,errors=remount-ro "$h3_image" "$h3_data"

for host in h1 h2 h3; do host_daemon_start "$host" --name "$host" >/dev/null; done
wait_until 5000 "h1 sees h2 online" json_peer_is h1 h2 online >/dev/null
wait_until 5000 "h3 sees h1 online" json_peer_is h3 h1 online >/dev/null

# ---- a second daemon on the same data directory -------------------------------------------------
first=$(host_daemon_pid h1)
dir=$NETSIM_DIR
for socket in /run/user/0/second.sock ''; do
  args=(lanchatd --name second)
  [[ -z $socket ]] || args+=(--socket "$socket")
  status=$(run_capture h1 "$dir/second.out" "$dir/second.err" "${args[@]}")
  netsim_log "second lanchatd (${socket:-same socket}): exit $status: $(tail -1 "$dir/second.err")"
  [[ $status == 75 ]] || fail "a second lanchatd on h1's data directory exited $status, expected 75"
  grep -q "PID $first\b" "$dir/second.err" || fail "the second lanchatd does not name PID $first"
  [[ $(host_daemon_pid h1) == "$first" ]] || fail "h1's first lanchatd is gone"
  host_run h1 lanchat status >/dev/null ||
    fail "h1's first lanchatd no longer answers on its socket"
done

# ---- the receiver's disk fills while it receives -------------------------------------------------
fill_disk h2 "$h2_data" 256
netsim_log "h2's data directory has $(free_kb h2 "$h2_data") KiB free"
DELIVERY_PAD=" $(printf 'x%.0s' {1..400})"
delivery_stream_start h1 h2 stream 1 "$RECEIVED"
wait_until 20000 "h2 fails to store a received batch" \
  grep -q "cannot store received messages" "$(host_log h2 lanchatd)" >/dev/null
status=$(host_bg_wait h1 stream 30000)
[[ $status == 0 ]] || fail "lanchat send --lines on h1 exited $status (h1's disk is fine)"
# Sender first: h2's store only grows, so anything h1 lists as delivered must already be in it.
json_history_all h1 h2 | jq -r '.[] | select(.status == "delivered") | .id' | sort >"$dir/acked"
json_history_all h2 h1 | jq -r '.[] | .id' | sort >"$dir/stored"
acked=$(wc -l <"$dir/acked") stored=$(wc -l <"$dir/stored")
netsim_log "disk full on h2: it stored $stored of $RECEIVED messages, h1 lists $acked as delivered"
((stored > 0 && stored < RECEIVED)) ||
  fail "h2's disk did not fill part-way through ($stored stored)"
unstored=$(comm -23 "$dir/acked" "$dir/stored" | wc -l)
((unstored == 0)) || fail "h2 acknowledged $unstored messages it has not stored"

# h2 holds what it cannot store on the session it came on: no ending, reconnecting and failing
# again (the presence flapping on both sides). Its retries are logged, the first failure once,
# and h1 sees the same session up all along.
h1_sessions=$(grep -c "session up" "$(host_log h1 lanchatd)")
wait_until 20000 "h2 tries again to store what it holds" \
  grep -q "still cannot store the held messages; next try in 4" "$(host_log h2 lanchatd)" \
  >/dev/null
json_peer_is h1 h2 online || fail "h1 no longer sees h2 online while h2's disk is full"
(($(grep -c "session up" "$(host_log h1 lanchatd)") == h1_sessions)) ||
  fail "the session ended and came up again while h2's disk was full"
(($(grep -c "cannot store received messages" "$(host_log h2 lanchatd)") == 1)) ||
  fail "h2 logged its failure to store more than once"

free_disk h2 "$h2_data"
freed=$(now_ms)
wait_until 45000 "all $RECEIVED messages delivered" \
  delivery_all_delivered h1 h2 "$RECEIVED" >/dev/null
netsim_log "space freed: h2 stored what it held and the rest came," \
  "all delivered $(($(now_ms) - freed)) ms later, on the same session"
grep -q "stored the received messages held since the store failed" "$(host_log h2 lanchatd)" ||
  fail "h2 did not say it stored what it held"
delivery_verify_stream h1 h2 "$RECEIVED" ||
  fail "a full disk on the receiver broke exactly-once, in-order delivery"

# ---- the sender's disk is full -------------------------------------------------------------------
host_run h3 lanchat send h1 "before the disk filled" >/dev/null
fill_disk h3 "$h3_data"
netsim_log "h3's data directory has $(free_kb h3 "$h3_data") KiB free"
# SQLite reuses the room its WAL file already has, so a few big messages may still be stored
# (and must then be delivered); sooner or later a send must fail, cleanly.
printf 'big %s\n' "$(head -c "$BIG" /dev/zero | tr '\0' y)" >"$dir/big.txt"
for ((attempt = 1; attempt <= 100; attempt++)); do
  status=$(run_capture h3 "$dir/send.out" "$dir/send.err" lanchat send h1 - <"$dir/big.txt")
  [[ $status == 0 ]] || break
done
netsim_log "send with a full disk: $((attempt - 1)) big messages still fitted," \
  "then exit $status: $(cat "$dir/send.err")"
[[ $status == 74 ]] ||
  fail "lanchat send with a full disk exited $status, expected 74 (store unavailable)"
grep -qi "disk is full" "$dir/send.err" ||
  fail "lanchat send with a full disk does not say the disk is full"
[[ ! -s $dir/send.out ]] || fail "a failed send printed an id: $(cat "$dir/send.out")"
history_snapshot h3 h1 "$dir/h3-before"
# A batch of several messages in one call fails as a whole, and so does --lines.
# From a file, not a pipe: lanchat may stop reading at the first batch that fails, and a
# writer still at it would die of SIGPIPE, which `set -o pipefail` made the scenario's exit
# (141, seen once in a fresh-clone `make test`).
cat "$dir/big.txt" "$dir/big.txt" "$dir/big.txt" >"$dir/big3.txt"
status=$(run_capture h3 "$dir/send.out" "$dir/send.err" lanchat send h1 --lines <"$dir/big3.txt")
netsim_log "send --lines with a full disk: exit $status: $(head -1 "$dir/send.err")"
[[ $status == 74 ]] || fail "lanchat send --lines with a full disk exited $status, expected 74"
[[ ! -s $dir/send.out ]] || fail "a failed send --lines printed ids: $(cat "$dir/send.out")"
# A backup onto the full disk fails saying why, and leaves nothing behind.
status=$(run_capture h3 "$dir/backup.out" "$dir/backup.err" lanchat backup "$h3_data/copy.sqlite3")
netsim_log "backup onto the full disk: exit $status: $(cat "$dir/backup.err")"
[[ $status == 1 ]] || fail "lanchat backup onto a full disk exited $status, expected 1"
grep -qi "disk is full" "$dir/backup.err" ||
  fail "lanchat backup onto a full disk does not say the disk is full: $(cat "$dir/backup.err")"
host_run h3 test ! -e "$h3_data/copy.sqlite3" || fail "a failed backup left its file"
# Restarted on the full disk, lanchatd still starts and shows what it holds: the new store
# generation it cannot record is a warning, not a refusal (it exited 73 when first written).
host_daemon_stop h3 >/dev/null
host_daemon_start h3 --name h3 >/dev/null || fail "lanchatd does not start on a full disk"
history_snapshot h3 h1 "$dir/h3-restarted"
cmp -s "$dir/h3-before" "$dir/h3-restarted" ||
  fail "h3's history changed across a restart on a full disk"
free_disk h3 "$h3_data"
history_snapshot h3 h1 "$dir/h3-after"
cmp -s "$dir/h3-before" "$dir/h3-after" ||
  fail "h3's history changed across the failed sends:" \
    "$(diff "$dir/h3-before" "$dir/h3-after" | cut -c1-80 | sed -n 1,3p)"
host_run h3 lanchat send h1 "after space was freed" >/dev/null ||
  fail "send fails although space was freed"

# ---- the sender's disk turns read-only under the running daemon ----------------------------------
wait_until 10000 "h3's messages delivered" delivery_queued_is h3 0 >/dev/null
history_snapshot h3 h1 "$dir/h3-before"
device=$(host_run h3 findmnt -no SOURCE "$h3_data")
echo "lanchat system test: disk turning read-only" >"/sys/fs/ext4/${device#/dev/}/trigger_fs_error"
wait_until 5000 "h3's data directory is read-only" read_only h3 "$h3_data" >/dev/null
netsim_log "h3's data directory is mounted $(host_run h3 findmnt -no OPTIONS "$h3_data")"
status=$(run_capture h3 "$dir/send.out" "$dir/send.err" lanchat send h1 "on a read-only disk")
netsim_log "send on a read-only data directory: exit $status: $(cat "$dir/send.err")"
[[ $status == 74 ]] || fail "lanchat send on a read-only data directory exited $status, expected 74"
grep -q "not stored" "$dir/send.err" ||
  fail "lanchat send on a read-only disk does not say the message was not stored"
[[ ! -s $dir/send.out ]] || fail "a failed send printed an id: $(cat "$dir/send.out")"
history_snapshot h3 h1 "$dir/h3-after"
cmp -s "$dir/h3-before" "$dir/h3-after" || fail "h3's history changed across the failed send"
# The user must learn what to fix: the data directory is read-only, not "an I/O error". Checked
# at the end, so that the recovery below is still tested when this fails.
read_only_error=$(cat "$dir/send.err")

# After a check of the file system, the store holds exactly what it held, and still delivers.
host_daemon_stop h3 >/dev/null
host_run h3 umount "$h3_data"
e2fsck -fy "$h3_image" >/dev/null 2>&1 || (($? <= 1)) || fail "e2fsck cannot repair h3's data image"
host_run h3 mount -o loop,errors=remount-ro "$h3_image" "$h3_data"
host_daemon_start h3 --name h3 >/dev/null
history_snapshot h3 h1 "$dir/h3-after"
cmp -s "$dir/h3-before" "$dir/h3-after" ||
  fail "h3's history after the read-only episode differs from before"
host_run h3 lanchat send h1 "after the disk was repaired" >/dev/null
wait_until 15000 "h3's messages delivered" delivery_queued_is h3 0 >/dev/null
delivered=$(delivery_verify h3 h1) || fail "h3's messages did not reach h1 exactly once"
netsim_log "h3's $delivered messages (the failed sends not among them) reached h1 exactly once"
grep -qi "read-only" <<<"$read_only_error" ||
  fail "lanchat send on a read-only data directory does not say it is read-only: $read_only_error"
