#!/bin/sh
# check-units.sh — static checks of the systemd files in systemd/ (used by CI).
#
#   scripts/check-units.sh [BOOKSD_BINARY]
#
# 1. systemd-analyze verify on booksd.service + booksd.socket. verify needs
#    ExecStart='s binary to exist, so a temporary copy of the unit has @BINDIR@
#    replaced by the directory of BOOKSD_BINARY (default: the debug or release
#    build in .build/, else /bin/true's directory as a stand-in).
# 2. systemd-analyze security --offline=yes: fails if the exposure score is
#    above MAX_SCORE (default 1.5).
#    Then the same unit with the NATS drop-in (systemd/booksd-nats.conf) in booksd.service.d/:
#    verify, it must apply, and the score must stay at most MAX_NATS_SCORE (default 2.5).
# 3. sysusers.d and tmpfiles.d entries applied to a scratch root directory.
# 4. systemd-analyze --user verify on the user units in systemd/user/ (the per-user service,
#    systemctl --user enable --now booksd.socket), with a scratch XDG_RUNTIME_DIR.
# Exit status: 0 all checks passed, 1 a check failed.
set -eu

MAX_SCORE=${MAX_SCORE:-1.5}
# With systemd/booksd-nats.conf (network for NATS) the exposure may be higher, but bounded.
MAX_NATS_SCORE=${MAX_NATS_SCORE:-2.5}
repo=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-}
if [ -z "$binary" ]; then
    for candidate in "$repo/.build/release/booksd" "$repo/.build/debug/booksd" /bin/true; do
        if [ -x "$candidate" ]; then binary=$candidate; break; fi
    done
fi
bindir=$(cd "$(dirname "$binary")" && pwd)
if [ "$(basename "$binary")" != booksd ]; then
    # Stand-in: a directory holding an executable called booksd.
    bindir=$(mktemp -d); cp "$binary" "$bindir/booksd"; cleanup_bindir=$bindir
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch" ${cleanup_bindir:-}' EXIT INT TERM
sed -e "s|@BINDIR@|$bindir|g" -e "s|@SYSCONFDIR@|/etc|g" "$repo/systemd/booksd.service" > "$scratch/booksd.service"
cp "$repo/systemd/booksd.socket" "$scratch/booksd.socket"

status=0
echo "== systemd-analyze verify (ExecStart in $bindir)"
if systemd-analyze verify --man=no "$scratch/booksd.service" "$scratch/booksd.socket"; then
    echo "ok"
else
    echo "FAIL: systemd-analyze verify" >&2; status=1
fi

echo "== systemd-analyze security --offline=yes (max $MAX_SCORE)"
report=$(systemd-analyze security --offline=yes "$scratch/booksd.service" 2>&1) || true
printf '%s\n' "$report" | grep -E '✗' || true
score=$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for booksd.service: \([0-9.]*\).*/\1/p')
if [ -z "$score" ]; then
    printf '%s\n' "$report" >&2; echo "FAIL: no exposure score in the output" >&2; status=1
elif awk -v s="$score" -v m="$MAX_SCORE" 'BEGIN { exit !(s <= m) }'; then
    echo "ok: exposure score $score"
else
    echo "FAIL: exposure score $score > $MAX_SCORE" >&2; status=1
fi

echo "== booksd.service with the NATS drop-in (systemd/booksd-nats.conf; max $MAX_NATS_SCORE)"
mkdir -p "$scratch/booksd.service.d"
cp "$repo/systemd/booksd-nats.conf" "$scratch/booksd.service.d/nats.conf"
if systemd-analyze verify --man=no "$scratch/booksd.service" "$scratch/booksd.socket"; then
    echo "ok: verify"
else
    echo "FAIL: systemd-analyze verify with the drop-in" >&2; status=1
fi
report=$(systemd-analyze security --offline=yes "$scratch/booksd.service" 2>&1) || true
score=$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for booksd.service: \([0-9.]*\).*/\1/p')
if printf '%s\n' "$report" | grep -q '✗ PrivateNetwork=' \
   && [ -n "$score" ] && awk -v s="$score" -v m="$MAX_NATS_SCORE" 'BEGIN { exit !(s <= m) }'; then
    echo "ok: the drop-in applies (PrivateNetwork= off), exposure score $score"
else
    printf '%s\n' "$report" | grep -E '✗' >&2; echo "FAIL: with the drop-in: score ${score:-none} (max $MAX_NATS_SCORE)" >&2; status=1
fi
rm -rf "$scratch/booksd.service.d"

echo "== sysusers.d / tmpfiles.d in a scratch root"
root="$scratch/root"
mkdir -p "$root/etc" "$root/usr/lib/sysusers.d" "$root/usr/lib/tmpfiles.d"
cp "$repo/systemd/booksd.sysusers" "$root/usr/lib/sysusers.d/booksd.conf"
cp "$repo/systemd/booksd.tmpfiles" "$root/usr/lib/tmpfiles.d/booksd.conf"
if systemd-sysusers --root="$root" >/dev/null && grep -q '^books:' "$root/etc/passwd" \
   && systemd-tmpfiles --root="$root" --create >/dev/null && [ -d "$root/var/lib/booksd" ]; then
    echo "ok"
else
    echo "FAIL: sysusers/tmpfiles entries" >&2; status=1
fi
echo "== systemd-analyze --user verify (systemd/user: per-user booksd.service + booksd.socket)"
mkdir -p "$scratch/user" "$scratch/runtime"
sed -e "s|@BINDIR@|$bindir|g" "$repo/systemd/user/booksd.service" > "$scratch/user/booksd.service"
cp "$repo/systemd/user/booksd.socket" "$scratch/user/booksd.socket"
if XDG_RUNTIME_DIR="$scratch/runtime" systemd-analyze --user verify --man=no \
        "$scratch/user/booksd.service" "$scratch/user/booksd.socket"; then
    echo "ok"
else
    echo "FAIL: systemd-analyze --user verify" >&2; status=1
fi
exit $status
