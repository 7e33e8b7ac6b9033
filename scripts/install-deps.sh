#!/bin/sh
# Installs the Debian packages given as arguments that are not installed yet: with apt-get
# as root, through sudo otherwise. Installs nothing when everything is present, so `make run`
# and `make test` stay fast after the first time.
set -eu

missing=""
for package in "$@"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
    [ "$status" = "installed" ] || missing="$missing $package"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    run=""
elif command -v sudo >/dev/null 2>&1; then
    run="sudo"
else
    echo "lanchat needs these Debian packages:$missing" >&2
    echo "install them as root: apt-get install -y$missing" >&2
    exit 1
fi

echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! $run apt-get install -y -q --no-install-recommends $missing >/dev/null; then
    # A fresh machine may not have package lists yet.
    $run apt-get update -q >/dev/null
    # shellcheck disable=SC2086
    $run apt-get install -y -q --no-install-recommends $missing >/dev/null
fi
