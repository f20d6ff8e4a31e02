#!/bin/sh
# sandbox-smoke.sh — run booksd.socket + booksd.service (all hardening kept) under a
# private systemd system manager (PID 1 of new PID/mount/net namespaces; the host
# is not modified: /run and /var/lib are tmpfs, /etc/passwd and /etc/group are
# bind-mounted copies with a "books" user). Needs root, unshare, python3.
#
#   scripts/sandbox-smoke.sh [EXECSTART]
#
# EXECSTART defaults to a python3 stub that behaves like booksd towards systemd
# (fd 3 from socket activation, READY=1, echoes the SO_PEERCRED uid). Pass e.g.
# "/path/to/booksd --file /var/lib/booksd/books.txt" to try the real daemon (the
# binary must be readable inside the sandbox). Checks: the service reaches
# "active" with READY=1, a client in group books gets an answer with its real
# uid, a client outside the group is refused, and the socket survives
# "systemctl stop booksd.service". Exit status 0 when all hold.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/booksd-smoke.XXXXXX)
mkdir "$work/units"
cat > "$work/stub.py" <<'PY'
import os, socket, struct
s = socket.socket(fileno=3)
n = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
n.connect(os.environ["NOTIFY_SOCKET"])
n.send(b"READY=1\nSTATUS=stub serving")
while True:
    c, _ = s.accept()
    pid, uid, gid = struct.unpack("3i", c.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    c.sendall(b"hello peer uid=%d\n" % uid); c.close()
    n.send(b"WATCHDOG=1")
PY
exec_start=${1:-/usr/bin/python3 /run/stub.py}   # /tmp is private to the service
sed -e "s|^ExecStart=.*|ExecStart=$exec_start|" -e 's|^\[Unit\]|[Unit]\nDefaultDependencies=no|' \
    -e "s|^\[Service\]|[Service]\nStandardOutput=file:/run/smoke.log\nStandardError=file:/run/smoke.log|" \
    -e "s|@SYSCONFDIR@|/etc|g" "$repo/systemd/booksd.service" > "$work/units/booksd.service"
sed -e 's|^\[Unit\]|[Unit]\nDefaultDependencies=no|' "$repo/systemd/booksd.socket" > "$work/units/booksd.socket"
printf '[Unit]\nDefaultDependencies=no\nWants=booksd.socket\n' > "$work/units/smoke.target"
cat > "$work/inner.sh" <<SH
#!/bin/sh
set -e
mount -t tmpfs tmpfs /run
mkdir -p /run/systemd/system /run/etc
cp $work/stub.py /run/stub.py
cp /etc/passwd /etc/group /run/etc/
echo 'books:x:60999:60999:BookSync daemon:/var/lib/booksd:/usr/sbin/nologin' >> /run/etc/passwd
echo 'books:x:60999:' >> /run/etc/group
mount --bind /run/etc/passwd /etc/passwd
mount --bind /run/etc/group /etc/group
mount -t tmpfs tmpfs /var/lib
mkdir -m 0750 /var/lib/booksd && chown 60999:60999 /var/lib/booksd
exec env -i container=booksd-smoke SYSTEMD_UNIT_PATH=$work/units /lib/systemd/systemd --system --unit=smoke.target
SH
chmod +x "$work/inner.sh"
unshare --pid --fork --mount-proc -m --propagation private --uts --net "$work/inner.sh" > "$work/systemd.log" 2>&1 &
unshare_pid=$!
sleep 3
pid=$(ps -o pid= --ppid "$unshare_pid" | tr -d ' ')
ns() { nsenter -t "$pid" -m -p "$@"; }
client='import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect("/run/booksd/booksd.sock"); sys.stdout.write(s.recv(100).decode())'
status=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1" >&2; status=1; fi; }
check "socket listening" '[ "$(ns systemctl is-active booksd.socket)" = active ]'
check "group member served with real uid" \
    '[ "$(ns setpriv --reuid=60998 --regid=60998 --groups=60999 /usr/bin/python3 -c "$client")" = "hello peer uid=60998" ]'
check "service active after READY=1" '[ "$(ns systemctl is-active booksd.service)" = active ]'
check "non-member refused" '! ns setpriv --reuid=60997 --regid=60997 --clear-groups /usr/bin/python3 -c "$client" 2>/dev/null'
ns systemctl stop booksd.service 2>/dev/null
check "socket survives service stop" 'ns test -S /run/booksd/booksd.sock'
check "re-activated on next connection" '[ "$(ns /usr/bin/python3 -c "$client")" = "hello peer uid=0" ]'
ns cat /run/smoke.log 2>/dev/null || true
kill -s RTMIN+14 "$pid" 2>/dev/null || true
sleep 1
kill -9 "$pid" 2>/dev/null || true
wait "$unshare_pid" 2>/dev/null || true
rm -rf "$work"
exit $status
