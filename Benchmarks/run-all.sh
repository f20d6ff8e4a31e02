#!/bin/sh
# All benchmarks against their peers, in one run (issue "Benchmarks against peers in one run").
#
#   Benchmarks/run-all.sh           core (parse/diff vs Python), edit-to-subscriber latency at 1k, 10k,
#                                   100k and 1M rows vs inotifywait / watchdog / watchman, fan-out to
#                                   1, 100, 1,000 and 10,000 subscribers (first change after joining, also
#                                   on a booksd that had no change before they joined,
#                                   and later ones; churn; 50 filters; the benchmark raises its
#                                   RLIMIT_NOFILE to the hard limit, which must be >= 10,100),
#                                   durable writes (1 and 32 writers), context saves beside inserts (1 and 32),
#                                   start-up at 1M rows, subscriber and list cost (10k, 100k, 1M rows),
#                                   NATS (when nats-server is installed: edit -> remote vs local
#                                   subscriber at 10k and 1M rows, fan-out to 1-10,000 NATS
#                                   subscribers, 32 writers), targets; ~25-35 minutes on 2 shared cores
#   Benchmarks/run-all.sh --quick   CI smoke run: 1k and 10k rows, 5 edits per cell, 1 and 10
#                                   subscribers (churn and filters: 20), 1 s write runs (NATS: 10k
#                                   rows, 1 and 100 subscribers); about 2-3 minutes after the build.
#                                   Leaves docs/BENCHMARKS.md alone unless --docs is given.
#   --edits N                       edits per latency cell (default 30; e.g. 200 for a long run)
#
# The responsiveness run (hello + ping round trips and hand edits while 2 writers keep the file
# under durable rewrites; 1M rows for 20 s, --quick: 20k rows for 3 s) also measures the booksd
# from before the engine change when BOOKS_BEFORE_BOOKSD names it (see docs/BENCHMARKS.md,
# "Responsiveness under durable rewrites", for how to build it).
#
# Installs what the peers need (Debian: inotify-tools, watchman, python3-watchdog,
# python3-pywatchman, python3-matplotlib) when missing, builds the release products, rewrites the
# "## Core: …", "## Live: …" and "## Responsiveness …" sections of docs/BENCHMARKS.md and draws docs/benchmarks/*.png
# (skipped with a note when matplotlib is unavailable). Work files: Benchmarks/work/.
set -eu
cd "$(dirname "$0")/.."

quick=no; edits=""; docs=""
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=yes ;;
        --edits) edits="$2"; shift ;;
        --docs) docs="$2"; shift ;;
        *) echo "usage: Benchmarks/run-all.sh [--quick] [--edits N] [--docs FILE]" >&2; exit 2 ;;
    esac
    shift
done

PY=/usr/bin/python3
need=""
command -v inotifywait >/dev/null 2>&1 || need="$need inotify-tools"
command -v watchman >/dev/null 2>&1 || need="$need watchman"
$PY -c 'import watchdog.observers' 2>/dev/null || need="$need python3-watchdog"
$PY -c 'import pywatchman' 2>/dev/null || need="$need python3-pywatchman"
$PY -c 'import matplotlib' 2>/dev/null || need="$need python3-matplotlib"
if [ -n "$need" ]; then
    echo "installing:$need" >&2
    if [ "$(id -u)" = 0 ]; then
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need) >&2 \
            || echo "warning: could not install$need; affected peers will be reported as not run" >&2
    else
        echo "warning: not root; install$need to run every peer" >&2
    fi
fi

swift build -c release --product BooksBenchmarks >&2
swift build -c release --product booksd >&2
swift build -c release --product booksctl >&2
bin="$(swift build -c release --show-bin-path)/BooksBenchmarks"

if [ "$quick" = yes ]; then
    docs_args="--no-docs"; [ -n "$docs" ] && docs_args="--docs $docs"
    command_text="Benchmarks/run-all.sh --quick"
else
    docs_args="--docs ${docs:-docs/BENCHMARKS.md}"
    command_text="Benchmarks/run-all.sh"
fi
live_args="$docs_args --python $PY"
[ "$quick" = yes ] && live_args="$live_args --quick"
[ -n "$edits" ] && { live_args="$live_args --edits $edits"; command_text="$command_text --edits $edits"; }

rm -rf Benchmarks/work/results
if [ "$quick" = yes ]; then "$bin" core --quick $docs_args; else "$bin" core $docs_args; fi
for sub in latency fanout writes saves startup stream nats history targets; do
    "$bin" "$sub" $live_args --command "$command_text"
done
quick_flag=""; [ "$quick" = yes ] && quick_flag="--quick"
before="${BOOKS_BEFORE_BOOKSD:-}"
if [ -n "$before" ]; then
    "$bin" responsiveness $quick_flag $docs_args --booksd-before "$before" \
        --command "BOOKS_BEFORE_BOOKSD=$before $command_text"
else
    "$bin" responsiveness $quick_flag $docs_args --command "$command_text"
fi

if [ "$docs_args" != "--no-docs" ] || [ "$quick" = no ]; then
    out=docs/benchmarks
else
    out=Benchmarks/work/plots
fi
if $PY -c 'import matplotlib' 2>/dev/null; then
    $PY Benchmarks/plot_results.py Benchmarks/work/results "$out"
else
    echo "note: matplotlib missing; no plots" >&2
fi
