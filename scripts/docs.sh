#!/usr/bin/env bash
# docs.sh — build the BooksClient documentation (DocC) and check that its code listings compile.
#   scripts/docs.sh [OUTPUT_DIR]     (default: .build/docs/BooksClient)
#
# 1. scripts/doc-listings.py extracts the Swift listings of Sources/BooksClient/BooksClient.docc
#    into Tests/Fixtures/ClientConsumer/Sources/DocListings (generated, not checked in).
# 2. `swift build` of Tests/Fixtures/ClientConsumer — a package outside BookSync's targets that
#    depends on the BooksClient product by path, as a user's would — compiles its program and the
#    listings with nothing but `import BooksClient`, and emits the symbol graphs. One build of the
#    library serves all three (scratch path .build/client-consumer, kept between runs).
# 3. The toolchain's own `docc convert --warnings-as-errors` renders the catalog with the
#    BooksClient symbol graphs into a static site (no SwiftPM plugin).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
root=$(pwd)
out=${1:-$root/.build/docs/BooksClient}
scratch=$root/.build/client-consumer
graphs=$scratch/symbol-graphs
fixture=Tests/Fixtures/ClientConsumer
docc=$(command -v docc || echo /opt/swift/usr/bin/docc)

python3 scripts/doc-listings.py Sources/BooksClient/BooksClient.docc "$fixture/Sources/DocListings"
mkdir -p "$graphs"
swift build --package-path "$fixture" --scratch-path "$scratch" \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"
# Only the BooksClient module's graphs (and its extensions of other modules' types): one module
# per catalog.
selected=$scratch/booksclient-graphs
rm -rf "$selected" && mkdir -p "$selected"
cp "$graphs"/BooksClient.symbols.json "$graphs"/BooksClient@*.symbols.json "$selected"/ 2>/dev/null || true
[ -f "$selected/BooksClient.symbols.json" ] || { echo "docs.sh: no BooksClient symbol graph in $graphs" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$(dirname "$out")"
"$docc" convert Sources/BooksClient/BooksClient.docc \
    --additional-symbol-graph-dir "$selected" \
    --fallback-display-name BooksClient --fallback-bundle-identifier org.booksync.BooksClient \
    --transform-for-static-hosting --warnings-as-errors --output-path "$out"
echo "docs.sh: site in $out (open documentation/booksclient/index.html through an HTTP server)"
