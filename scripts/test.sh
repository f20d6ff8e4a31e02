#!/usr/bin/env bash
# test.sh — build every product, then run every test (unit and integration).
#   scripts/test.sh [extra swift test arguments]
# The integration tests run the built booksd/booksctl from .build; they need the tools in
# scripts/packages.txt (scripts/setup.sh installs them). Exit status is swift's: non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
swift build
swift test "$@"
