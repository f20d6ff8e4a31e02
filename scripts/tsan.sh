#!/usr/bin/env bash
# tsan.sh — the unit tests and the concurrency integration suites under ThreadSanitizer.
#   scripts/tsan.sh                 # what CI runs (scripts/test.sh's `tsan` phase)
#   scripts/tsan.sh --filter X      # other tests (swift test arguments), same build and checks
# Builds into .build-tsan with -sanitize=thread and -DBOOKS_TSAN: with that flag BooksPlatform's
# `Locked` (every module's lock) is a pthread mutex, which ThreadSanitizer models, instead of
# Synchronization.Mutex (a futex it does not see, which made it report every pair of accesses
# inside withLock as a race). No report is suppressed. The integration tests find the sanitized
# booksd/booksctl next to the test bundle (BuildProducts), and every process — the test runner,
# each booksd and booksctl — writes its reports to .build-tsan/tsan-reports/report.PID
# (TSAN_OPTIONS log_path; ChildProcess passes TSAN_OPTIONS on even to children with their own
# environment). Exit status: non-zero when a build or a test fails or any process reported.
# Which integration suites run, and why: docs/RELIABILITY.md ("Sanitizers").
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
flags=(--build-path .build-tsan -Xswiftc -sanitize=thread -Xswiftc -DBOOKS_TSAN)
reports="$PWD/.build-tsan/tsan-reports"
rm -rf "$reports"
mkdir -p "$reports"
export TSAN_OPTIONS="log_path=$reports/report second_deadlock_stack=1 history_size=4"
# No Swift backtracer under TSan: after a crash in a sanitized test process it was seen waiting
# forever on a socket the dead process had left open, so the phase hung instead of failing.
export SWIFT_BACKTRACE="enable=no"
swift build "${flags[@]}" --build-tests
status=0
if [ "$#" -gt 0 ]; then
    swift test --skip-build "${flags[@]}" "$@" || status=$?
else
    echo "-- unit tests"
    swift test --skip-build "${flags[@]}" --skip IntegrationTests --skip BooksTestSupportTests || status=$?
    # Alone: two of them time the cooperative pool (a child's timeout, `eventually`'s polls), which
    # the sanitized suite, slower and blocking its threads in synchronous tests, starved for 50 s
    # and more in 3 of 7 runs.
    echo "-- test-support unit tests"
    swift test --skip-build "${flags[@]}" --filter BooksTestSupportTests || status=$?
    # Named one by one (not the whole fault suite), so that a suite added later runs here only
    # once it is known to work under the sanitizer (LD_PRELOAD fault injection, for one, cannot
    # reach a sanitized binary's intercepted libc calls).
    echo "-- integration suites: feed, daemon behaviour, signals, crash safety, lost update, hostile clients, query budget"
    swift test --skip-build "${flags[@]}" --filter \
        'IntegrationTests\.(FeedTests|DaemonBehaviourTests|SignalTests|ReliabilitySuite/(CrashSafetyTests|LostUpdateTests|HostileClientTests|QueryBudgetTests))' \
        || status=$?
    echo "-- integration suites: the client library's live list and feeds (reader thread, main actor)"
    swift test --skip-build "${flags[@]}" --filter 'IntegrationTests\.(LiveBookListTests|ClientFeedTests)' || status=$?
fi
shopt -s nullglob
found=("$reports"/report.*)
if [ "${#found[@]}" -gt 0 ]; then
    echo "tsan.sh: ThreadSanitizer reports from ${#found[@]} process(es):"
    for report in "${found[@]}"; do
        echo "---- $report"
        cat "$report"
    done
    status=1
fi
if [ "$status" -ne 0 ]; then echo "tsan.sh: FAILED (status $status)" >&2; fi
exit "$status"
