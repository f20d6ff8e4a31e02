# e2e-lib.sh — shared by scripts/systemd-e2e.sh and scripts/deb-e2e.sh (sourced, not run):
# PASS/FAIL steps, waiting, and a real systemd as PID 1 of private PID/mount/UTS/network
# namespaces. begin_run sets $work (a scratch directory) and $failures.
sandbox_pid=
unshare_pid=

skip() { echo "SKIP: $*"; exit 77; }
# begin_run NAME: $started, a scratch directory $work (/tmp/booksd-NAME.XXXXXX), $failures=0.
begin_run() {
    started=$(date +%s.%N)
    work=$(mktemp -d "/tmp/booksd-$1.XXXXXX")
    failures=0
}
# require_binaries DIR: skips unless DIR holds booksd and booksctl.
require_binaries() {
    [ -x "$1/booksd" ] && [ -x "$1/booksctl" ] || skip "booksd/booksctl not built in $1 (run swift build)"
}

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
step() { # step NAME COMMAND...  (PASS/FAIL on the command's status)
    local name=$1; shift
    if "$@"; then pass "$name"; else fail "$name"; fi
}
wait_for() { # wait_for SECONDS COMMAND...
    local deadline=$(( $(date +%s%N) + $1 * 1000000000 )); shift
    until "$@"; do
        [ "$(date +%s%N)" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}

# Skips (exit 77) unless this user may create the namespaces and run systemd as their PID 1.
require_sandbox() {
    [ "$(id -u)" = 0 ] || skip "needs root to create PID/mount namespaces and run systemd as their PID 1"
    for tool in unshare nsenter mount; do command -v $tool >/dev/null || skip "$tool not installed"; done
    [ -x /lib/systemd/systemd ] || skip "/lib/systemd/systemd not installed"
    grep -qw overlay /proc/filesystems || skip "the kernel has no overlay filesystem (needed to keep the host untouched)"
    local probe
    if ! probe=$(timeout 10 unshare --pid --fork --mount-proc -m --propagation private --uts --net \
            sh -c 'mount -t tmpfs tmpfs /run && echo ok' 2>&1) || [ "$probe" != ok ]; then
        skip "this machine forbids the namespaces (unshare: $probe)"
    fi
}

# start_sandbox INNER_SCRIPT: runs INNER_SCRIPT (which mounts what it needs and execs systemd)
# as PID 1 of new namespaces; "ns CMD…" (an executable in $work/bin, on PATH, so that "sh -c"
# and "timeout" can use it) then runs CMD inside. Exits 1 when systemd does not come up.
start_sandbox() {
    mkdir -p "$work/bin"
    export PATH="$work/bin:$PATH"
    chmod +x "$1"
    unshare --pid --fork --mount-proc -m --propagation private --uts --net "$1" > "$work/systemd.log" 2>&1 &
    unshare_pid=$!
    wait_for 10 sh -c "ps -o pid= --ppid $unshare_pid | grep -q ." || true
    sandbox_pid=$(ps -o pid= --ppid "$unshare_pid" | tr -d ' ')
    printf '#!/bin/sh\nexec nsenter -t %s -m -p -u -n "$@"\n' "${sandbox_pid:-0}" > "$work/bin/ns"
    chmod +x "$work/bin/ns"
    if [ -z "$sandbox_pid" ] || ! wait_for 20 ns test -S /run/systemd/private; then
        fail "systemd started as PID 1 of the sandbox"; cat "$work/systemd.log"; exit 1
    fi
    wait_for 20 sh -c "ns systemctl is-system-running 2>/dev/null | grep -qE 'running|degraded'" || true
    pass "systemd $(ns systemctl --version | head -1 | cut -d' ' -f2) is PID 1 of a private PID namespace (host pid $sandbox_pid)"
}

# Powers the sandbox off (bounded: never blocks on a process that hangs).
stop_sandbox() {
    if [ -n "$sandbox_pid" ]; then
        kill -s RTMIN+14 "$sandbox_pid" 2>/dev/null   # systemd: immediate power-off
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$sandbox_pid" 2>/dev/null || break; sleep 0.2; done
        kill -9 "$sandbox_pid" 2>/dev/null
    fi
    if [ -n "$unshare_pid" ]; then
        for _ in $(seq 50); do kill -0 "$unshare_pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$unshare_pid" 2>/dev/null || wait "$unshare_pid" 2>/dev/null
    fi
}

# with_deadline SECONDS NAME CLEANUP: runs CLEANUP at exit and fails the run after SECONDS.
with_deadline() {
    local cleanup=$3
    trap "$cleanup" EXIT
    trap 'exit 1' INT TERM
    ( trap 'kill $s 2>/dev/null; exit 0' TERM; sleep "$1" & s=$!; wait $s; echo "FAIL: $2 timed out after $1 s"; kill -TERM $$ ) 2>/dev/null &
    watchdog_pid=$!
    trap "kill $watchdog_pid 2>/dev/null; $cleanup" EXIT
}
