#!/bin/sh
# Core parse/diff benchmark: builds the release product and runs `BooksBenchmarks core`, which
# generates Benchmarks/work/books-*.txt, runs the Python peer (Benchmarks/peers/parse_peer.py) in
# the same run, prints a Markdown report and rewrites "## Core: parse and diff" in docs/BENCHMARKS.md.
#
#   Benchmarks/run-core.sh            1k, 10k, 100k, 1M rows (N = 7, 5 at 1M); a few minutes
#   Benchmarks/run-core.sh --quick    1k and 10k rows, N = 3: a CI smoke run of a few seconds
#
# Other flags are passed through: --no-docs, --docs FILE, --work-dir DIR, --python PATH.
set -eu
cd "$(dirname "$0")/.."
swift build -c release --product BooksBenchmarks >&2
exec "$(swift build -c release --show-bin-path)/BooksBenchmarks" core "$@"
