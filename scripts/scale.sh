#!/bin/sh
# `make scale`: scenario 30-scale with 50 hosts (PRODUCT.md §8 "nodes on one LAN"), on release
# binaries. Root.
#
# Fifty hosts' avahi-daemons share this machine's cores instead of having one each, and for
# the first two minutes every one of them receives every host's queries: with the kernel's
# default UDP receive buffer (208 KiB) each dropped some 900 mDNS packets it was too busy to
# read (Udp RcvbufErrors in every host namespace), and a browse that lost its answers stays
# blind until its next query, minutes later (docs/benchmarks.md, "Nodes on one LAN"). A LAN of
# real machines does not lose them, so the run raises the default receive buffer, which only
# the machine's own network namespace can set, for its duration and puts it back after,
# however it ends.
set -eu
cd "$(dirname "$0")/.."
bin=${1:?usage: scripts/scale.sh BIN_DIR}
buffer=8388608
previous=$(sysctl -n net.core.rmem_default)
restore() { sysctl -qw net.core.rmem_default="$previous" || true; }
trap restore EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ "$previous" -lt "$buffer" ]; then
    sysctl -qw net.core.rmem_default="$buffer"
    echo "scale: net.core.rmem_default $previous -> $buffer for this run" >&2
fi
LANCHAT_BIN_DIR=$bin LANCHAT_SCALE_HOSTS=50 Tests/System/run.sh --only 30-scale
