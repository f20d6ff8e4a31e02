#!/bin/bash
# systemd-e2e.sh — booksd end to end under a REAL systemd system manager, run as PID 1 of private
# PID/mount/UTS/network namespaces. The host is not modified: /run is a tmpfs and /etc, /usr/local
# and /var/lib are overlays (upper layers on a tmpfs) inside the namespace, so the "books" user
# created by systemd-sysusers and everything scripts/install.sh installs vanish with it.
#
#   scripts/systemd-e2e.sh [BINDIR]     BINDIR holds booksd + booksctl (default .build/debug,
#                                        else .build/release)
#
# Steps (each prints PASS/FAIL): install with scripts/install.sh (live mode: sysusers, tmpfiles,
# daemon-reload), start booksd.socket, booksctl activates the service, a hand edit reaches
# "booksctl subscribe", "systemctl reload" keeps the subscriber, kill -9 is followed by a restart
# and the subscriber resumes with no gap and no duplicate, "systemctl stop" ends cleanly; with a
# nats-server on loopback: the packaged unit blocks it (the log names the drop-in), the NATS
# drop-in (systemd/booksd-nats.conf) lets booksd connect and publish.
# Exit status: 0 all passed, 1 a step failed, 77 skipped (prints why: not root, no unshare, ...).
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
bindir=${1:-}
if [ -z "$bindir" ]; then
    for d in "$repo/.build/debug" "$repo/.build/release"; do
        if [ -x "$d/booksd" ] && [ -x "$d/booksctl" ]; then bindir=$d; break; fi
    done
fi
bindir=$(cd "${bindir:-.}" && pwd)
. "$repo/scripts/e2e-lib.sh"
require_sandbox
require_binaries "$bindir"
begin_run e2e
subscriber_pid=

cleanup() {
    [ -n "$subscriber_pid" ] && kill "$subscriber_pid" 2>/dev/null
    stop_sandbox
    rm -rf "$work"
}
with_deadline 190 systemd-e2e.sh cleanup
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# --- the sandbox -----------------------------------------------------------------------------
cat > "$work/inner.sh" <<SH
#!/bin/sh
set -e
mount -t tmpfs tmpfs /run
mkdir -p /run/systemd/system /run/booksd-e2e
mkdir -p $work/ov && mount -t tmpfs tmpfs $work/ov
for d in /etc /usr/local /var/lib; do
    mkdir -p $work/ov\$d/upper $work/ov\$d/work
    mount -t overlay overlay -o lowerdir=\$d,upperdir=$work/ov\$d/upper,workdir=$work/ov\$d/work \$d
done
hostname booksd-e2e
printf '[Unit]\nDescription=booksd e2e\nDefaultDependencies=no\n' > /run/systemd/system/booksd-e2e.target
exec env -i container=booksd-e2e SYSTEMD_UNIT_PATH=/run/systemd/system:/usr/local/lib/systemd/system \
    /lib/systemd/systemd --system --unit=booksd-e2e.target
SH
start_sandbox "$work/inner.sh"

# --- install (scripts/install.sh in live mode inside the sandbox) ----------------------------
if ns env BUILT_BINDIR="$bindir" PREFIX=/usr/local sh "$repo/scripts/install.sh" > "$work/install.log" 2>&1; then
    pass "scripts/install.sh (PREFIX=/usr/local, live: systemd-sysusers, systemd-tmpfiles, daemon-reload)"
else
    fail "scripts/install.sh"; cat "$work/install.log"
fi
step "the books user exists only inside the sandbox" \
    sh -c "ns getent passwd books >/dev/null && ! getent passwd books >/dev/null"
step "/var/lib/booksd created by tmpfiles (0750 books:books)" \
    sh -c "[ \"\$(ns stat -c '%a %U:%G' /var/lib/booksd)\" = '750 books:books' ]"

# Adjustments for the namespace only (drop-ins, not edits of the shipped units): no default
# dependencies (there is no sysinit.target here), logs to a file (there is no journal) and a
# short WatchdogSec= so the watchdog is exercised within the run.
ns mkdir -p /run/systemd/system/booksd.socket.d /run/systemd/system/booksd.service.d
ns sh -c 'printf "[Unit]\nDefaultDependencies=no\n" > /run/systemd/system/booksd.socket.d/e2e.conf'
ns sh -c 'printf "[Unit]\nDefaultDependencies=no\n[Service]\nStandardOutput=append:/run/booksd-e2e/booksd.log\nStandardError=inherit\nWatchdogSec=2s\n" > /run/systemd/system/booksd.service.d/e2e.conf'
ns sh -c 'printf "e2e-1|Leviathan Wakes|James S. A. Corey\ne2e-2|Piranesi|Susanna Clarke\n" > /var/lib/booksd/books.txt && chown books:books /var/lib/booksd/books.txt && chmod 0640 /var/lib/booksd/books.txt'
ns systemctl daemon-reload

edit() { ns sh -c "printf '%s\n' '$1' >> /var/lib/booksd/books.txt"; }
main_pid() { ns systemctl show -p MainPID --value booksd.service; }
sock=/run/booksd/booksd.sock
ctl() { ns /usr/local/bin/booksctl --socket "$sock" "$@"; }

# --- socket activation -----------------------------------------------------------------------
step "systemctl start booksd.socket" ns systemctl start booksd.socket
step "booksd.socket active, booksd.service not yet started" \
    sh -c "[ \"\$(ns systemctl is-active booksd.socket)\" = active ] && [ \"\$(ns systemctl is-active booksd.service)\" = inactive ]"
t0=$(date +%s%N)
if ctl list > "$work/list.out" 2>&1 && grep -q Piranesi "$work/list.out"; then
    pass "booksctl list connects and activates booksd ($(ms_since "$t0") ms to the answer)"
else
    fail "booksctl list through the socket"; cat "$work/list.out"
fi
step "booksd.service active (READY=1 reached, Type=notify)" wait_for 10 sh -c "[ \"\$(ns systemctl is-active booksd.service)\" = active ]"
status_line=$(ns systemctl show -p StatusText --value booksd.service)
step "STATUS= shown by systemd: '$status_line'" sh -c "echo '$status_line' | grep -q '^2 books, 0 bad lines, '"

w1=$(ns systemctl show -p WatchdogTimestampMonotonic --value booksd.service)
sleep 2.5
w2=$(ns systemctl show -p WatchdogTimestampMonotonic --value booksd.service)
step "WATCHDOG=1 pings reach systemd (WatchdogSec=2s; last ping $w1 -> $w2 us), no watchdog restart" \
    sh -c "[ '${w2:-0}' -gt '${w1:-0}' ] && [ \"\$(ns systemctl show -p NRestarts --value booksd.service)\" = 0 ] && [ \"\$(ns systemctl is-active booksd.service)\" = active ]"

# --- subscriber, hand edit -------------------------------------------------------------------
# --mirror: the edit made while booksd is down reaches the subscriber as a change computed from the
# new daemon's snapshot (a subscriber without mirror would print one "resync" line instead).
ns /usr/local/bin/booksctl --socket "$sock" subscribe --json --mirror > "$work/sub.out" 2> "$work/sub.err" &
subscriber_pid=$!
wait_for 10 sh -c "ns systemctl show -p StatusText --value booksd.service | grep -q ' 1 subscribers'"
edit "e2e-3|Hand Edit One|Tester"
step "a hand edit reaches booksctl subscribe" wait_for 10 grep -q "Hand Edit One" "$work/sub.out"

# --- reload ----------------------------------------------------------------------------------
pid_before=$(main_pid)
step "systemctl reload booksd (SIGHUP, RELOADING=1 ... READY=1)" timeout 20 ns systemctl reload booksd.service
step "same main pid after reload, subscriber still connected" \
    sh -c "[ \"\$(ns systemctl show -p MainPID --value booksd.service)\" = '$pid_before' ] && kill -0 $subscriber_pid && ! grep -q reconnecting '$work/sub.err'"
step "the log says the configuration was reloaded" wait_for 5 ns grep -q "configuration reloaded" /run/booksd-e2e/booksd.log
edit "e2e-4|After Reload|Tester"
step "the subscriber keeps receiving after the reload" wait_for 10 grep -q "After Reload" "$work/sub.out"

# --- kill -9, Restart=on-failure, resume -----------------------------------------------------
ns kill -9 "$pid_before"
edit "e2e-5|While Down|Tester"
t0=$(date +%s%N)
step "kill -9 is followed by a restart (Restart=on-failure)" \
    wait_for 20 sh -c "p=\$(ns systemctl show -p MainPID --value booksd.service); [ -n \"\$p\" ] && [ \"\$p\" != 0 ] && [ \"\$p\" != '$pid_before' ] && [ \"\$(ns systemctl is-active booksd.service)\" = active ]"
echo "      restarted in $(ms_since "$t0") ms (RestartSec=2s), NRestarts=$(ns systemctl show -p NRestarts --value booksd.service)"
step "the socket stayed in place across the crash" ns test -S "$sock"
edit "e2e-6|After Restart|Tester"
step "the subscriber resumes: the edit made while down and the one after the restart arrive" \
    wait_for 15 sh -c "grep -q 'While Down' '$work/sub.out' && grep -q 'After Restart' '$work/sub.out'"
sleep 1
dups=""
for name in "Hand Edit One" "After Reload" "While Down" "After Restart"; do
    n=$(grep -c "\"$name\"" "$work/sub.out")
    [ "$n" = 1 ] || dups="$dups $name=$n"
done
step "no gap, no duplicate (each edit reported exactly once)${dups:+:$dups}" test -z "$dups"
step "booksctl subscribe reported the reconnect" grep -q "reconnect" "$work/sub.err"
step "the saved history is in /var/lib/booksd-history (StateDirectory=, 0700 books:books)" \
    sh -c "[ \"\$(ns stat -c '%a %U:%G' /var/lib/booksd-history)\" = '700 books:books' ]"
step "the restart continued the epoch (saved history restored; the edit made while down is no resync)" \
    sh -c "ns grep -q 'saved history restored' /run/booksd-e2e/booksd.log && ! grep -q '\"source\":\"resync\"' '$work/sub.out'"

# --- stop ------------------------------------------------------------------------------------
t0=$(date +%s%N)
step "systemctl stop booksd.service" timeout 30 ns systemctl stop booksd.service
stop_ms=$(ms_since "$t0")
result=$(ns systemctl show -p Result --value booksd.service)
code=$(ns systemctl show -p ExecMainStatus --value booksd.service)
step "stopped cleanly in $stop_ms ms (Result=$result, exit status $code)" sh -c "[ '$result' = success ] && [ '$code' = 0 ]"
step "the log shows an orderly stop" ns grep -q "stopping" /run/booksd-e2e/booksd.log
step "the socket survives the service stop (owned by booksd.socket)" ns test -S "$sock"
step "systemctl stop booksd.socket removes it" sh -c "ns systemctl stop booksd.socket && ! ns test -e $sock"

# --- NATS: the packaged unit allows no network; the drop-in opens what NATS needs --------------
# A nats-server on the sandbox's loopback; nats_url in booksd.conf. Without the drop-in booksd
# cannot open an AF_INET socket and its log says which drop-in to enable; with
# /usr/local/share/booksd/booksd-nats.conf (installed by install.sh) in booksd.service.d/ it
# connects and publishes. The drop-in goes to /run/systemd/system/booksd.service.d/ here (the unit
# path of this sandbox); on a host, /etc/systemd/system/booksd.service.d/.
if command -v nats-server >/dev/null; then
    nats=nats://127.0.0.1:4222
    ns ip link set lo up
    ns sh -c "mkdir -p /run/booksd-e2e/nats && nats-server -js -a 127.0.0.1 -p 4222 -sd /run/booksd-e2e/nats > /run/booksd-e2e/nats.log 2>&1 &"
    ns sh -c "printf 'nats_url = $nats\n' >> /etc/booksd/booksd.conf"
    ns systemctl start booksd.socket booksd.service
    step "without the NATS drop-in, booksd's log names it" \
        wait_for 15 ns grep -q "may not open network sockets.*booksd-nats.conf" /run/booksd-e2e/booksd.log
    step "booksd-nats.conf installed (not active) by install.sh" ns test -f /usr/local/share/booksd/booksd-nats.conf
    ns cp /usr/local/share/booksd/booksd-nats.conf /run/systemd/system/booksd.service.d/nats.conf
    ns systemctl daemon-reload
    step "systemctl restart booksd.service with the drop-in" timeout 30 ns systemctl restart booksd.service
    step "with the drop-in, booksd connects to nats-server on loopback and publishes" \
        wait_for 15 ns grep -q "snapshot marker at seq" /run/booksd-e2e/booksd.log
    edit "e2e-7|Over NATS|Tester"
    step "requests over NATS reach booksd (booksctl --nats list)" \
        wait_for 15 sh -c "ns /usr/local/bin/booksctl --nats $nats list | grep -q 'Over NATS'"
    ns systemctl stop booksd.service booksd.socket
else
    echo "SKIP NATS steps: nats-server not installed"
fi

if [ "$failures" -gt 0 ]; then
    echo "--- booksd log (sandbox /run/booksd-e2e/booksd.log)"; ns ls -la /run/booksd-e2e /run/systemd/journal 2>&1; ns cat /run/booksd-e2e/booksd.log 2>/dev/null | tail -40
    echo "--- subscriber"; tail -20 "$work/sub.out"; tail -20 "$work/sub.err"
    echo "--- systemctl status"; ns systemctl status --no-pager booksd.service booksd.socket 2>&1 | tail -30
fi
echo "systemd-e2e: $failures failure(s) in $(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"
[ "$failures" -eq 0 ]
