#!/usr/bin/env bash
# test.sh — build every product, then run every test (unit and integration).
#   scripts/test.sh [extra swift test arguments]
# The integration tests run the built booksd/booksctl from .build and drive the editors and tools
# in scripts/packages.txt; if any of them (or a library header) is missing, scripts/setup.sh
# installs them first. Exit status is swift's: non-zero on any build or test failure.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
missing=""
for tool in inotifywait vim nano emacs ed sed perl python3 rsync git tmux truncate systemd-analyze; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
for header in /usr/include/inotifytools/inotifytools.h /usr/include/systemd/sd-daemon.h; do
    [ -f "$header" ] || missing="$missing $header"
done
if [ -n "$missing" ]; then
    echo "test.sh: missing:$missing — running scripts/setup.sh" >&2
    scripts/setup.sh
fi
swift build
swift test "$@"
