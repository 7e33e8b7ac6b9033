#!/bin/sh
# `make bench`: builds release and measures the figures of PRODUCT.md §8 (TESTING.md, bench
# layer), printing them as a table and as JSON and writing the table into
# docs/benchmarks.md. Everything runs on 127.0.0.1; as root (or where unprivileged user
# namespaces are allowed) inside a private network namespace that has nothing but loopback,
# so no packet can leave the machine. Not part of `make test`; takes a few minutes.
#
#   scripts/bench.sh            the full run (what docs/benchmarks.md records)
#   scripts/bench.sh --quick    reduced sizes, to check the harness (figures not meaningful)
#   scripts/bench.sh --only 1,5 some figures only (numbers as in docs/benchmarks.md)
#   scripts/bench.sh --memory-dir none
#                               without the context rows that run figures 1 and 2 again with
#                               the stores on a tmpfs (default: /dev/shm when it is one)
set -eu
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}

# hyperfine times the CLI when it can be had; without it the benchmark times it itself.
scripts/install-deps.sh hyperfine || echo "bench: hyperfine not installed; timing the CLI with posix_spawn" >&2

# Build output goes to stderr: standard output carries the results only.
# shellcheck disable=SC2086 # RELEASE holds several options
$SWIFT build ${RELEASE:--c release} >&2
# shellcheck disable=SC2086
bin=$($SWIFT build ${RELEASE:--c release} --show-bin-path)

work="$PWD/.build/bench"
mkdir -p "$work"
command="make bench${*:+ (scripts/bench.sh $*)}"
set -- "$bin/LanChatBench" --bin-dir "$bin" --work-dir "$work" \
    --markdown docs/benchmarks.md --json "$work/results.json" --command "$command" "$@"

# A network namespace of our own: only `lo`, brought up inside.
if [ "$(id -u)" -eq 0 ] && unshare --net true 2>/dev/null; then
    exec unshare --net sh -c 'ip link set lo up && exec "$@"' bench "$@"
elif unshare --net --map-root-user true 2>/dev/null; then
    exec unshare --net --map-root-user sh -c 'ip link set lo up && exec "$@"' bench "$@"
else
    echo "bench: no network namespace available; running on the host's 127.0.0.1" >&2
    exec "$@"
fi
