#!/bin/sh
# `make scale`: scenario 30-scale with 50 hosts (PRODUCT.md §8 "nodes on one LAN"), on release
# binaries. Root.
#
# Fifty simulated hosts share this machine's kernel, and two of its limits are made for one
# host, not fifty; a LAN of real machines has neither problem, so the run raises them and puts
# the old values back when it ends, however it ends (docs/benchmarks.md, "Nodes on one LAN"):
#
# - The neighbour tables (ARP and IPv6 neighbour discovery) are one per kernel, shared by all
#   network namespaces, and gc_thresh3 (1 024 entries) bounds all of them together. Each host
#   needs an entry per peer: 50 × 49 = 2 450 per family. Over the limit the kernel logs
#   "neighbor table overflow!", drops the packets that needed a new entry (SYNs that never
#   leave the dialling host, answers that never come back) and evicts entries of live
#   sessions, which then go silent until the dead timeout.
# - The default UDP receive buffer (208 KiB): fifty avahi-daemons on two cores each dropped
#   some 900 mDNS packets they were too busy to read, and a browse that lost its answers
#   stays blind until its next query, minutes later.
#
# Only the machine's own namespace can set either.
set -eu
cd "$(dirname "$0")/.."
bin=${1:?usage: scripts/scale.sh BIN_DIR}

settings="net.ipv4.neigh.default.gc_thresh1=4096 net.ipv4.neigh.default.gc_thresh2=8192
net.ipv4.neigh.default.gc_thresh3=16384 net.ipv6.neigh.default.gc_thresh1=4096
net.ipv6.neigh.default.gc_thresh2=8192 net.ipv6.neigh.default.gc_thresh3=16384
net.core.rmem_default=8388608"
saved=""
restore() {
    for setting in $saved; do sysctl -qw "$setting" || true; done
}
trap restore EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
for setting in $settings; do
    key=${setting%%=*}
    wanted=${setting#*=}
    previous=$(sysctl -n "$key")
    if [ "$previous" -lt "$wanted" ]; then
        saved="$saved $key=$previous"
        sysctl -qw "$setting"
        echo "scale: $key $previous -> $wanted for this run" >&2
    fi
done
LANCHAT_BIN_DIR=$bin LANCHAT_SCALE_HOSTS=50 Tests/System/run.sh --only 30-scale
