#!/bin/sh
# uninstall.sh — remove exactly the files scripts/install.sh installed.
#
#   [DESTDIR=...] [PREFIX=/usr/local] scripts/uninstall.sh
#
# Use the same variables as for install.sh (see scripts/install-paths.sh).
# Kept on purpose: the data in /var/lib/booksd, the "books" user and group, and
# $SYSCONFDIR/booksd/booksd.conf if it differs from the shipped default (an
# edited configuration); an unmodified default configuration is removed. On a
# live systemd system (no DESTDIR, root) the units are stopped and disabled first.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/scripts/install-paths.sh"

say() { echo "uninstall: $*"; }

if live_systemd; then
    systemctl disable --now booksd.socket booksd.service 2>/dev/null || true
fi

for file in $(installed_files); do
    if [ -e "$DESTDIR$file" ] || [ -L "$DESTDIR$file" ]; then
        rm -f "$DESTDIR$file"; say "removed $file"
    fi
done
rmdir "$DESTDIR$(dirname "$NATSDROPIN")" 2>/dev/null || true
rmdir "$DESTDIR$(dirname "$HTTPDROPIN")" 2>/dev/null || true

if [ -e "$DESTDIR$CONFFILE" ]; then
    if cmp -s "$DESTDIR$CONFFILE" "$repo/config/booksd.conf"; then
        rm -f "$DESTDIR$CONFFILE"; say "removed $CONFFILE (unmodified default)"
        rmdir "$DESTDIR$SYSCONFDIR/booksd" 2>/dev/null || true
    else
        say "kept $CONFFILE (edited)"
    fi
fi

if live_systemd; then systemctl daemon-reload; fi
say "kept /var/lib/booksd and the books user/group (remove them by hand if unwanted)"
