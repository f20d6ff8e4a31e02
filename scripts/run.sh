#!/usr/bin/env bash
# Start booksd on a sample books.txt, from a fresh clone.
#
# Installs the system packages the daemon needs (apt-get; through sudo when not root), builds the
# release binaries, copies config/sample-books.txt to ./run/books.txt on first use and runs booksd
# in the foreground. The socket goes to $XDG_RUNTIME_DIR/booksd.sock when that directory exists,
# else next to the data (./run/.booksd.sock). The daemon itself needs no root.
#
#   BOOKS_DIR=DIR scripts/run.sh     use another data directory
#   scripts/run.sh --log-level debug any further flags go to booksd (see booksd --help)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh runtime
swift build -c release --product booksd
swift build -c release --product booksctl

data="${BOOKS_DIR:-$PWD/run}"
mkdir -p "$data"
[ -e "$data/books.txt" ] || cp config/sample-books.txt "$data/books.txt"
if [ -n "${XDG_RUNTIME_DIR:-}" ] && [ -d "${XDG_RUNTIME_DIR}" ] && [ -w "${XDG_RUNTIME_DIR}" ]; then
  socket="$XDG_RUNTIME_DIR/booksd.sock"
else
  socket="$data/.booksd.sock"
fi
bin="$(swift build -c release --show-bin-path)"
cat >&2 <<MSG
booksd: watching $data/books.txt, socket $socket
In another terminal:
  $bin/booksctl --socket $socket subscribe        # live changes
  $bin/booksctl --socket $socket list             # the books
  \$EDITOR $data/books.txt                         # edit by hand
Stop with Ctrl-C.
MSG
exec "$bin/booksd" --file "$data/books.txt" --socket "$socket" "$@"
