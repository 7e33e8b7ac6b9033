#!/bin/sh
# Docs move with the code: every man page is clean under mandoc's linter, every lanchatd
# option in --help is in lanchatd(8) (lanchat's own check is a Swift test), and the sources
# follow the repository's swift-format configuration.
set -eu
cd "$(dirname "$0")/.."
status=0

for page in man/*.[0-9]; do
    if ! mandoc -T lint -W warning "$page"; then
        echo "check-docs: mandoc reports problems in $page" >&2
        status=1
    fi
done

for option in $(.build/debug/lanchatd --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    if ! grep -q -- "Fl -${option#--}" man/lanchatd.8; then
        echo "check-docs: lanchatd $option is missing from man/lanchatd.8" >&2
        status=1
    fi
done

lint=$(swift format lint --recursive Package.swift Sources Tests Benchmarks Fuzz 2>&1 || true)
if [ -n "$lint" ]; then
    echo "$lint" | head -40 >&2
    echo "check-docs: swift format lint found problems (run: make format)" >&2
    status=1
fi

[ "$status" -eq 0 ] && echo "docs and formatting: ok"
exit "$status"
