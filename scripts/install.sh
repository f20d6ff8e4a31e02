#!/bin/sh
# install.sh — build booksd/booksctl in release mode and install them with their
# systemd units, sysusers/tmpfiles entries, man pages and default configuration.
#
#   [DESTDIR=/tmp/stage] [PREFIX=/usr/local] [SKIP_BUILD=1 | BUILT_BINDIR=DIR] scripts/install.sh
#
# Paths and variables: see scripts/install-paths.sh. An existing
# $SYSCONFDIR/booksd/booksd.conf is never overwritten. On a live systemd system
# (no DESTDIR, run as root) it also creates the "books" user (systemd-sysusers),
# /var/lib/booksd (systemd-tmpfiles) and runs "systemctl daemon-reload"; it does
# not enable or start anything. Undo with scripts/uninstall.sh (same variables).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/scripts/install-paths.sh"

cd "$repo"
# BUILT_BINDIR: install booksd/booksctl from this directory instead (no build; e.g. .build/debug
# for scripts/systemd-e2e.sh).
if [ -n "${BUILT_BINDIR:-}" ]; then
    bin=$BUILT_BINDIR
else
    if [ "${SKIP_BUILD:-0}" != 1 ]; then
        swift build -c release --product booksd
        swift build -c release --product booksctl
    fi
    bin=$(swift build -c release --show-bin-path)
fi
for exe in booksd booksctl; do
    [ -x "$bin/$exe" ] || { echo "install.sh: $bin/$exe not built" >&2; exit 1; }
done

say() { echo "install: $*"; }
put() { # put MODE SOURCE TARGET
    install -D -m "$1" "$2" "$DESTDIR$3"; say "$3"
}

put 0755 "$bin/booksd" "$BINDIR/booksd"
put 0755 "$bin/booksctl" "$BINDIR/booksctl"

scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT INT TERM
sed -e "s|@BINDIR@|$BINDIR|g" -e "s|@SYSCONFDIR@|$SYSCONFDIR|g" systemd/booksd.service > "$scratch/booksd.service"
put 0644 "$scratch/booksd.service" "$UNITDIR/booksd.service"
put 0644 systemd/booksd.socket "$UNITDIR/booksd.socket"
put 0644 systemd/booksd.sysusers "$SYSUSERSDIR/booksd.conf"
put 0644 systemd/booksd.tmpfiles "$TMPFILESDIR/booksd.conf"

put 0644 docs/man/booksd.8 "$MANDIR/man8/booksd.8"
put 0644 docs/man/booksctl.1 "$MANDIR/man1/booksctl.1"
put 0644 docs/man/booksd.conf.5 "$MANDIR/man5/booksd.conf.5"

if [ -e "$DESTDIR$CONFFILE" ]; then
    say "$CONFFILE exists: kept (compare with config/booksd.conf for new settings)"
else
    put 0644 config/booksd.conf "$CONFFILE"
fi

if live_systemd; then
    systemd-sysusers "$SYSUSERSDIR/booksd.conf"
    systemd-tmpfiles --create "$TMPFILESDIR/booksd.conf"
    systemctl daemon-reload
    say "next: systemctl enable --now booksd.socket"
fi
