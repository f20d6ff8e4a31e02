#!/usr/bin/env bash
# Builds and runs a libFuzzer target (SwiftPM cannot build fuzzers): the target file in Fuzz/ is
# compiled with the BooksCore (and BooksProtocol) sources as one module.
#
#   scripts/fuzz.sh parser [SECONDS]     # file parser + incremental/full diff agreement
#   scripts/fuzz.sh protocol [SECONDS]   # LineFramer + RequestDecoder
#   scripts/fuzz.sh decoder [SECONDS]    # the client's FastMessageDecoder against JSONDecoder
#   scripts/fuzz.sh all [SECONDS]        # all three (CI: 20 s each)
#
# Long run: scripts/fuzz.sh parser 3600 (JOBS=2 to use -jobs). The corpus grows in
# .build/fuzz/corpus/TARGET (seeds in Fuzz/corpus/TARGET); crashing inputs are written to
# .build/fuzz/artifacts/TARGET/ and the script exits non-zero: turn each one into a regression
# test in Tests/ (see Tests/BooksCoreTests/FuzzRegressionTests.swift).
set -euo pipefail
TARGET=${1:?usage: scripts/fuzz.sh parser|protocol|decoder|all [seconds]}
TIME=${2:-20}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SWIFTC=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
if [ "$TARGET" = all ]; then
    "$0" parser "$TIME" && "$0" protocol "$TIME" && "$0" decoder "$TIME"
    exit
fi
case "$TARGET" in
    parser) FILE=FuzzParser.swift; MODULES="BooksCore" ;;
    protocol) FILE=FuzzProtocol.swift; MODULES="BooksCore BooksProtocol" ;;
    decoder) FILE=FuzzDecoder.swift; MODULES="BooksCore BooksProtocol" ;;
    *) echo "unknown target $TARGET" >&2; exit 2 ;;
esac
OUT=$ROOT/.build/fuzz
SRC=$OUT/src/$TARGET
rm -rf "$SRC"; mkdir -p "$SRC" "$OUT/corpus/$TARGET" "$OUT/artifacts/$TARGET"
for module in $MODULES; do
    find "$ROOT/Sources/$module" -name '*.swift' | while read -r f; do
        # One module: drop the cross-module imports.
        sed -e '/^import BooksCore$/d' -e '/^@_exported import BooksCore$/d' "$f" > "$SRC/$module-$(basename "$f")"
    done
done
BIN=$OUT/fuzz-$TARGET
"$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -g -module-name "Fuzz_$TARGET" -package-name BookSync \
    -I "$ROOT/Sources/CBooksSupport" -I "$ROOT/Sources/CLinux" \
    "$SRC"/*.swift "$ROOT/Fuzz/$FILE" -o "$BIN"
ARGS=(-max_total_time="$TIME" -artifact_prefix="$OUT/artifacts/$TARGET/" -print_final_stats=1)
[ -n "${JOBS:-}" ] && ARGS+=(-jobs="$JOBS" -workers="$JOBS")
exec "$BIN" "${ARGS[@]}" "$OUT/corpus/$TARGET" "$ROOT/Fuzz/corpus/$TARGET"
