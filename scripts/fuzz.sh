#!/usr/bin/env bash
# Builds the libFuzzer targets under Fuzz/ with -sanitize=fuzzer,address into .build-fuzz
# (the normal .build is untouched) and runs each for FUZZ_SECONDS, failing on any crash,
# sanitizer report or broken property. See docs/testing.md, "Fuzzing".
#
#   scripts/fuzz.sh                   build, then fuzz every target for FUZZ_SECONDS (30)
#   scripts/fuzz.sh AppCodec KeyFile  only those targets
#   scripts/fuzz.sh --build           build only
#   scripts/fuzz.sh --replay          run each target over its corpora only (no fuzzing)
#   scripts/fuzz.sh --seeds           rewrite the committed seeds from the real encoders
#   scripts/fuzz.sh --list            the targets and their -max_len
#
# Working corpora grow in fuzz-corpus-<target>/ (git-ignored); crash inputs land in
# .build-fuzz/artifacts/<target>/. A crash is reported with its input in hex and the log tail.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
SCRATCH=.build-fuzz
CONFIG=release

# target name (Fuzz/<name>, product Fuzz<name>) and the longest input worth generating.
TARGETS=(
    "AppCodec 1024"
    "WireFrames 4096"
    "FrameOpener 1024"
    "Handshake 2048"
    "HandshakeMachine 2048"
    "TXTRecord 2048"
    "KeyFile 256"
    "ControlRequest 4096"
)

mode=fuzz
selected=()
for argument in "$@"; do
    case "$argument" in
        --build) mode=build ;;
        --replay) mode=replay ;;
        --seeds) mode=seeds ;;
        --list) mode=list ;;
        -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $argument" >&2; exit 2 ;;
        *) selected+=("$argument") ;;
    esac
done

max_len_of() {
    local entry
    for entry in "${TARGETS[@]}"; do
        if [ "${entry% *}" = "$1" ]; then echo "${entry#* }"; return 0; fi
    done
    return 1
}

if [ "${#selected[@]}" -eq 0 ]; then
    for entry in "${TARGETS[@]}"; do selected+=("${entry% *}"); done
fi
for name in "${selected[@]}"; do
    max_len_of "$name" >/dev/null || { echo "fuzz.sh: no target $name (see --list)" >&2; exit 2; }
done

if [ "$mode" = list ]; then
    for entry in "${TARGETS[@]}"; do echo "Fuzz${entry% *} -max_len=${entry#* }"; done
    exit 0
fi

# The seeds come from the ordinary (unsanitized) build of the same targets, whose main writes
# them with the project's real encoders.
if [ "$mode" = seeds ]; then
    for name in "${selected[@]}"; do
        "$SWIFT" build --product "Fuzz$name"
        ".build/debug/Fuzz$name" --write-seeds "Fuzz/$name/corpus"
    done
    exit 0
fi

# What the toolchain needs (Swift 6.3): SwiftPM's own --sanitize options, so that the link
# takes libFuzzer's main instead of the executable's (with -Xswiftc alone the link fails on
# an undefined <Target>_main); and one combined -Xswiftc -sanitize=fuzzer,address, because
# SwiftPM passes its sanitizers as separate -sanitize= flags in no fixed order and the
# compiler keeps only the last one, so a build would randomly lack coverage or ASan.
# LANCHAT_LIBFUZZER drops the replay main of Fuzz/*.
build_started=$(date +%s)
mkdir -p "$SCRATCH/logs"
for name in "${selected[@]}"; do
    build_log="$SCRATCH/logs/build-$name.log"
    if ! "$SWIFT" build --scratch-path "$SCRATCH" -c "$CONFIG" --product "Fuzz$name" \
        --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address \
        -Xswiftc -DLANCHAT_LIBFUZZER \
        >"$build_log" 2>&1; then
        grep -v "Cannot export local symbol" "$build_log" | tail -n 40 >&2
        echo "fuzz.sh: building Fuzz$name failed (log: $build_log)" >&2
        exit 1
    fi
    # ld.gold warns about every ASan helper symbol; anything else is worth seeing.
    grep -E "warning:|error:" "$build_log" | grep -v "Cannot export local symbol" || true
    # A binary without coverage counters or ASan checks would "pass" while testing nothing.
    binary="$SCRATCH/$CONFIG/Fuzz$name"
    startup=$(SWIFT_BACKTRACE=enable=no "$binary" -runs=0 2>&1 || true)
    symbols=$(nm "$binary" 2>/dev/null || true)
    if [[ "$startup" != *"inline 8-bit counters"* || "$symbols" != *__asan_report_load* ]]; then
        echo "fuzz.sh: Fuzz$name is not instrumented (coverage and ASan); rm -rf $SCRATCH" >&2
        exit 1
    fi
done
echo "fuzz: built ${#selected[@]} targets in $(($(date +%s) - build_started)) s"
[ "$mode" = build ] && exit 0

# libFuzzer reports crashes itself; the Swift backtracer would only delay it.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
failed=()
run_started=$(date +%s)
for name in "${selected[@]}"; do
    binary="$SCRATCH/$CONFIG/Fuzz$name"
    artifacts="$SCRATCH/artifacts/$name/"
    log="$SCRATCH/logs/$name.log"
    work="fuzz-corpus-$name"
    mkdir -p "$artifacts" "$work"
    options=(-max_len="$(max_len_of "$name")" -timeout=20 -rss_limit_mb=3072
        -artifact_prefix="$artifacts" -print_final_stats=1)
    [ -f "Fuzz/$name/$name.dict" ] && options+=(-dict="Fuzz/$name/$name.dict")
    if [ "$mode" = replay ]; then
        options+=(-runs=0)
    else
        options+=(-max_total_time="$FUZZ_SECONDS")
    fi
    started=$(date +%s)
    status=0
    "$binary" "${options[@]}" "$work" "Fuzz/$name/corpus" >"$log" 2>&1 || status=$?
    seconds=$(($(date +%s) - started))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    coverage=$( (grep -o 'cov: [0-9]*' "$log" || true) | tail -n 1 | cut -d' ' -f2)
    if [ -z "$coverage" ] && [ "$status" -eq 0 ]; then
        # Not one input covered anything new: the binary is not instrumented.
        echo "fuzz.sh: Fuzz$name reports no coverage; is it built with --sanitize=fuzzer?" >&2
        status=1
    fi
    if [ "$status" -eq 0 ]; then
        printf 'PASS  Fuzz%-18s %4d s  %9s runs  %7s/s  cov %s\n' \
            "$name" "$seconds" "${runs:-?}" "${speed:-?}" "${coverage:-?}"
        continue
    fi
    failed+=("$name")
    printf 'FAIL  Fuzz%-18s %4d s  exit %d  (log: %s)\n' "$name" "$seconds" "$status" "$log"
    { grep -E 'FUZZ PROPERTY VIOLATED|Fatal error|ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|SUMMARY' \
        "$log" || true; } | head -n 5 | sed 's/^/      /'
    sed -n "s/^.*Test unit written to \(.*\)$/\1/p" "$log" | while IFS= read -r artifact; do
        echo "      input: $artifact"
        echo "      hex:   $(od -An -v -tx1 "$artifact" | tr -d ' \n' | cut -c1-400)"
        echo "      replay: swift build --product Fuzz$name && .build/debug/Fuzz$name $artifact"
    done
    tail -n 30 "$log" | sed 's/^/      | /'
done

total=$(($(date +%s) - run_started))
if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz: ${#failed[@]} of ${#selected[@]} targets failed (${failed[*]}) in $total s" >&2
    exit 1
fi
echo "fuzz: ${#selected[@]} targets passed in $total s"
