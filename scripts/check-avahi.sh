#!/bin/sh
# `make run`: says, in one line, when avahi-daemon is installed but not running, with the
# command that starts it. lanchatd runs without it (static peers only), so this only informs.
set -u

command -v avahi-daemon >/dev/null 2>&1 || exit 0
avahi-daemon --check 2>/dev/null && exit 0
if [ -d /run/systemd/system ]; then
    start="sudo systemctl start avahi-daemon"
else
    start="sudo avahi-daemon --daemonize"
fi
[ "$(id -u)" -eq 0 ] && start=${start#sudo }
echo "avahi-daemon is installed but not running: peers are not discovered over mDNS until you run: $start"
