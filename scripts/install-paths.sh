# install-paths.sh — shared by install.sh and uninstall.sh (sourced, not run).
# Computes every installation path from the environment so that uninstall.sh
# removes exactly what install.sh installed when given the same variables.
#
#   DESTDIR      staging root prepended to every path (default: empty)
#   PREFIX       default /usr/local
#   BINDIR       default $PREFIX/bin
#   MANDIR       default $PREFIX/share/man
#   SYSCONFDIR   default /etc (the configuration goes to $SYSCONFDIR/booksd/booksd.conf)
#   UNITDIR      default $PREFIX/lib/systemd/system for PREFIX /usr or /usr/local
#                (both are on systemd's unit search path), else /etc/systemd/system
#   SYSUSERSDIR  default $PREFIX/lib/sysusers.d (PREFIX /usr, /usr/local), else /etc/sysusers.d
#   TMPFILESDIR  default $PREFIX/lib/tmpfiles.d (PREFIX /usr, /usr/local), else /etc/tmpfiles.d
#   USERUNITDIR  per-user units: default $PREFIX/lib/systemd/user (PREFIX /usr, /usr/local),
#                else /etc/systemd/user
#   BASHCOMPDIR  default $PREFIX/share/bash-completion/completions
#   ZSHCOMPDIR   default /usr/share/zsh/vendor-completions for PREFIX /usr (Debian's),
#                else $PREFIX/share/zsh/site-functions
#   FISHCOMPDIR  default $PREFIX/share/fish/vendor_completions.d
DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
BINDIR=${BINDIR:-$PREFIX/bin}
MANDIR=${MANDIR:-$PREFIX/share/man}
SYSCONFDIR=${SYSCONFDIR:-/etc}
case "$PREFIX" in
    /usr|/usr/local)
        UNITDIR=${UNITDIR:-$PREFIX/lib/systemd/system}
        SYSUSERSDIR=${SYSUSERSDIR:-$PREFIX/lib/sysusers.d}
        TMPFILESDIR=${TMPFILESDIR:-$PREFIX/lib/tmpfiles.d}
        USERUNITDIR=${USERUNITDIR:-$PREFIX/lib/systemd/user} ;;
    *)
        UNITDIR=${UNITDIR:-/etc/systemd/system}
        SYSUSERSDIR=${SYSUSERSDIR:-/etc/sysusers.d}
        TMPFILESDIR=${TMPFILESDIR:-/etc/tmpfiles.d}
        USERUNITDIR=${USERUNITDIR:-/etc/systemd/user} ;;
esac
BASHCOMPDIR=${BASHCOMPDIR:-$PREFIX/share/bash-completion/completions}
if [ "$PREFIX" = /usr ]; then
    ZSHCOMPDIR=${ZSHCOMPDIR:-/usr/share/zsh/vendor-completions}
else
    ZSHCOMPDIR=${ZSHCOMPDIR:-$PREFIX/share/zsh/site-functions}
fi
FISHCOMPDIR=${FISHCOMPDIR:-$PREFIX/share/fish/vendor_completions.d}
CONFFILE=$SYSCONFDIR/booksd/booksd.conf
# The NATS drop-in example (systemd/booksd-nats.conf), enabled by copying it into booksd.service.d/.
NATSDROPIN=${NATSDROPIN:-$PREFIX/share/booksd/booksd-nats.conf}
# The HTTP drop-in example (systemd/booksd-http.conf), enabled the same way (for http_listen).
HTTPDROPIN=${HTTPDROPIN:-$PREFIX/share/booksd/booksd-http.conf}

# Files owned by the package (without DESTDIR); the configuration file is handled apart.
installed_files() {
    printf '%s\n' \
        "$BINDIR/booksd" "$BINDIR/booksctl" \
        "$UNITDIR/booksd.service" "$UNITDIR/booksd.socket" \
        "$SYSUSERSDIR/booksd.conf" "$TMPFILESDIR/booksd.conf" \
        "$MANDIR/man8/booksd.8" "$MANDIR/man1/booksctl.1" "$MANDIR/man5/booksd.conf.5" \
        "$USERUNITDIR/booksd.service" "$USERUNITDIR/booksd.socket" \
        "$BASHCOMPDIR/booksctl" "$ZSHCOMPDIR/_booksctl" "$FISHCOMPDIR/booksctl.fish" \
        "$NATSDROPIN" "$HTTPDROPIN"
}

# True when installing into the live system with systemd as init and root privileges.
live_systemd() {
    [ -z "$DESTDIR" ] && [ "$(id -u)" = 0 ] && [ -d /run/systemd/system ]
}
