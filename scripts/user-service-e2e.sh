#!/bin/bash
# user-service-e2e.sh — the per-user units (systemd/user/) under a REAL systemd user manager
# (systemd --user) in a private mount namespace: /run is a tmpfs there, XDG_RUNTIME_DIR is
# /run/user/0 and HOME a scratch directory, so the host is not touched.
#
#   scripts/user-service-e2e.sh [BINDIR]   BINDIR holds booksd + booksctl (default .build/debug)
#
# Steps (PASS/FAIL each): systemctl --user enable --now booksd.socket; booksctl without --socket
# finds $XDG_RUNTIME_DIR/booksd.sock and activates booksd --user, which read
# ~/.config/booksd/booksd.conf; a write lands in the configured file; without that configuration
# the book file is ~/.local/share/booksd/books.txt (its directory created); the saved history is
# beside the book file. Exit status: 0 all passed, 1 a step failed, 77 skipped.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
bindir=$(cd "${1:-$repo/.build/debug}" && pwd)
. "$repo/scripts/e2e-lib.sh"
require_sandbox
require_binaries "$bindir"
begin_run user
manager_pid=
cleanup() {
    if [ -n "$manager_pid" ]; then
        kill -TERM "$manager_pid" 2>/dev/null
        for _ in $(seq 30); do kill -0 "$manager_pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$manager_pid" 2>/dev/null
    fi
    rm -rf "$work"
}
with_deadline 90 user-service-e2e.sh cleanup

home=$work/home
mkdir -p "$home/.config/systemd/user" "$home/.config/booksd" "$work/bin"
sed -e "s|@BINDIR@|$bindir|g" "$repo/systemd/user/booksd.service" > "$home/.config/systemd/user/booksd.service"
cp "$repo/systemd/user/booksd.socket" "$home/.config/systemd/user/booksd.socket"
printf 'file = %s/mybooks.txt\n' "$home" > "$home/.config/booksd/booksd.conf"
printf 'u-1|Dune|Frank Herbert\nu-2|Emma|Jane Austen\n' > "$home/mybooks.txt"

cat > "$work/inner.sh" <<SH
#!/bin/sh
set -e
mount -t tmpfs tmpfs /run
mkdir -p /run/systemd/system /run/user/0
chmod 0700 /run/user/0
exec env -i HOME=$home XDG_RUNTIME_DIR=/run/user/0 PATH=/usr/bin:/bin /lib/systemd/systemd --user
SH
chmod +x "$work/inner.sh"
unshare -m --propagation private "$work/inner.sh" > "$work/manager.log" 2>&1 &
manager_pid=$!
# "us CMD…": CMD in the manager's mount namespace with the user's environment.
printf '#!/bin/sh\nexec nsenter -t %s -m env -i HOME=%s XDG_RUNTIME_DIR=/run/user/0 PATH=/usr/bin:/bin "$@"\n' \
    "$manager_pid" "$home" > "$work/bin/us"
chmod +x "$work/bin/us"
export PATH="$work/bin:$PATH"
if ! wait_for 20 us test -S /run/user/0/systemd/private; then
    fail "systemd --user started"; cat "$work/manager.log"; exit 1
fi
pass "systemd $(systemctl --version | head -1 | cut -d' ' -f2) --user runs in a private mount namespace (pid $manager_pid)"

printf '#!/bin/sh\nexec us %s/booksctl "$@"\n' "$bindir" > "$work/bin/ctl"   # booksctl as the user
chmod +x "$work/bin/ctl"
step "systemctl --user enable --now booksd.socket" us systemctl --user enable --now booksd.socket
step "the socket is \$XDG_RUNTIME_DIR/booksd.sock (0600)" sh -c "[ \"\$(us stat -c %a /run/user/0/booksd.sock)\" = 600 ]"
step "booksctl (no --socket) finds it, activates booksd --user, which read ~/.config/booksd/booksd.conf" \
    sh -c "ctl list | grep -q Emma"
step "booksd.service active under the user manager" \
    wait_for 10 sh -c "[ \"\$(us systemctl --user is-active booksd.service)\" = active ]"
step "a write lands in the configured file" sh -c "ctl add Middlemarch 'George Eliot' >/dev/null && grep -q Middlemarch '$home/mybooks.txt'"
step "the saved history is beside the book file (~/.mybooks.txt.history)" test -d "$home/.mybooks.txt.history"

rm "$home/.config/booksd/booksd.conf"
step "without a configuration: systemctl --user restart booksd.service" us systemctl --user restart booksd.service
step "the book file is ~/.local/share/booksd/books.txt (directory created 0700)" \
    sh -c "ctl add Piranesi 'Susanna Clarke' >/dev/null && grep -q Piranesi '$home/.local/share/booksd/books.txt' && [ \"\$(stat -c %a '$home/.local/share/booksd')\" = 700 ]"
step "systemctl --user stop booksd.socket booksd.service removes the socket" \
    sh -c "us systemctl --user stop booksd.socket booksd.service && ! us test -e /run/user/0/booksd.sock"

if [ "$failures" -gt 0 ]; then
    echo "--- manager"; tail -20 "$work/manager.log"
    us systemctl --user status --no-pager booksd.service booksd.socket 2>&1 | tail -30
fi
echo "user-service-e2e: $failures failure(s) in $(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"
[ "$failures" -eq 0 ]
