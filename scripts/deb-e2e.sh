#!/bin/bash
# deb-e2e.sh — the Debian package end to end: scripts/package-deb.sh builds it (from the debug
# build, relinked with the Swift runtime built in: no recompilation), lintian must report no
# error, then inside private PID/mount/UTS/network namespaces with a REAL systemd as PID 1 and
# overlays on /etc, /usr and /var (the host is not modified):
#   apt-get install ./booksd_V_ARCH.deb   user, /var/lib/booksd, units, conffile, completion;
#                                         booksd.socket activates the service; booksctl answers
#   apt-get install ./booksd_V+1_ARCH.deb the upgrade: the edited conffile is kept, the running
#                                         service is restarted on the new package
#   apt-get purge booksd                  files, conffile, units and saved history gone,
#                                         the socket closed; the books are kept
# The same binaries are packaged twice (the second with a bumped version): built once.
# Each step prints PASS/FAIL. Exit status: 0 all passed, 1 a step failed, 77 skipped (not root,
# no namespaces, ...).
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. "$repo/scripts/e2e-lib.sh"
require_sandbox
for tool in dpkg-deb apt-get lintian; do
    command -v $tool >/dev/null || skip "$tool not installed (scripts/setup.sh installs it)"
done

begin_run deb
cleanup() { stop_sandbox; rm -rf "$work"; }
with_deadline 240 deb-e2e.sh cleanup

# --- build the two packages ------------------------------------------------------------------
t0=$(date +%s)
if CONFIGURATION=debug BINDIR_OUT="$work/static" OUT="$work/v1" scripts/package-deb.sh > "$work/package1.log" 2>&1; then
    pass "scripts/package-deb.sh: $(tail -1 "$work/package1.log")"
else
    fail "scripts/package-deb.sh"; cat "$work/package1.log"; exit 1
fi
deb1=$(ls "$work"/v1/booksd_*.deb)
version1=$(dpkg-deb -f "$deb1" Version)
version2="$version1+deb.e2e.1"
if VERSION=$version2 BUILT_BINDIR="$work/static" OUT="$work/v2" scripts/package-deb.sh \
        > "$work/package2.log" 2>&1; then
    pass "the same binaries packaged again as $version2 (both packages in $(( $(date +%s) - t0 )) s)"
else
    fail "second package"; cat "$work/package2.log"; exit 1
fi
deb2=$(ls "$work"/v2/booksd_*.deb)

t0=$(date +%s)
lintian --no-tag-display-limit "$deb1" > "$work/lintian.log" 2>&1
errors=$(grep -c '^E: ' "$work/lintian.log")
seconds=$(( $(date +%s) - t0 ))
step "lintian reports no error ($(grep -c '^W: ' "$work/lintian.log") warnings, $seconds s)" test "$errors" = 0
grep -E '^[EW]: ' "$work/lintian.log" | sed 's/^/      /'

rm -rf "$work/static"

# --- the sandbox: systemd as PID 1, overlays on /etc, /usr, /var -------------------------------
cp "$deb1" "$deb2" "$work/"
cat > "$work/inner.sh" <<SH
#!/bin/sh
set -e
mount -t tmpfs tmpfs /run
mkdir -p /run/systemd/system
mkdir -p $work/ov && mount -t tmpfs tmpfs $work/ov
for d in /etc /usr /var; do
    mkdir -p $work/ov\$d/upper $work/ov\$d/work
    mount -t overlay overlay -o lowerdir=\$d,upperdir=$work/ov\$d/upper,workdir=$work/ov\$d/work \$d
done
hostname booksd-deb
printf '[Unit]\nDescription=booksd deb e2e\nDefaultDependencies=no\n' > /run/systemd/system/booksd-deb.target
exec env -i container=booksd-deb /lib/systemd/systemd --system --unit=booksd-deb.target
SH
start_sandbox "$work/inner.sh"
# No sysinit.target or journal in the sandbox: drop-ins (not edits of the package's units).
ns sh -c 'mkdir -p /run/systemd/system/booksd.socket.d /run/systemd/system/booksd.service.d
    printf "[Unit]\nDefaultDependencies=no\n" > /run/systemd/system/booksd.socket.d/e2e.conf
    printf "[Unit]\nDefaultDependencies=no\n[Service]\nStandardOutput=append:/run/booksd.log\nStandardError=inherit\n" > /run/systemd/system/booksd.service.d/e2e.conf'

apt() { ns env DEBIAN_FRONTEND=noninteractive apt-get -y -q -o Dpkg::Options::=--force-confdef \
    -o Dpkg::Options::=--force-confold "$@" > "$work/apt.log" 2>&1 || { cat "$work/apt.log"; return 1; }; }
sock=/run/booksd/booksd.sock
ctl() { ns /usr/bin/booksctl --socket "$sock" "$@"; }
installed_version() { ns dpkg-query -W -f='${Status} ${Version}' booksd 2>/dev/null; }

# --- install -------------------------------------------------------------------------------------
step "apt-get install ./$(basename "$deb1")" apt install "$work/$(basename "$deb1")"
step "dpkg: installed $version1" sh -c "[ \"\$(ns dpkg-query -W -f='\${Status} \${Version}' booksd)\" = 'install ok installed $version1' ]"
step "postinst created the books user and /var/lib/booksd (0750 books:books)" \
    sh -c "ns getent passwd books >/dev/null && [ \"\$(ns stat -c '%a %U:%G' /var/lib/booksd)\" = '750 books:books' ]"
step "/etc/booksd/booksd.conf is a conffile" sh -c "ns dpkg-query -W -f='\${Conffiles}' booksd | grep -q /etc/booksd/booksd.conf"
step "system and user units installed, systemd sees them (daemon-reload)" \
    sh -c "ns test -f /usr/lib/systemd/user/booksd.socket && ns systemctl cat booksd.socket >/dev/null"
step "bash-completion loads booksctl's completion on demand" \
    sh -c "ns bash -c '. /usr/share/bash-completion/bash_completion; _completion_loader booksctl; complete -p booksctl' | grep -q _booksctl"
step "the NATS and HTTP drop-ins shipped (not active)" ns sh -c 'test -f /usr/share/booksd/booksd-nats.conf && test -f /usr/share/booksd/booksd-http.conf && ! test -e /etc/systemd/system/booksd.service.d/http.conf'
step "zsh and fish completion, man pages in place" ns sh -c 'test -f /usr/share/zsh/vendor-completions/_booksctl && test -f /usr/share/fish/vendor_completions.d/booksctl.fish && test -f /usr/share/man/man1/booksctl.1.gz && test -f /usr/share/man/man8/booksd.8.gz'
ns sh -c 'printf "deb-1|Dune|Frank Herbert\ndeb-2|Emma|Jane Austen\n" > /var/lib/booksd/books.txt && chown books:books /var/lib/booksd/books.txt'
step "systemctl start booksd.socket" ns systemctl start booksd.socket
step "booksctl list activates booksd through the socket" sh -c "ns /usr/bin/booksctl --socket $sock list | grep -q Dune"
step "booksd.service active" wait_for 10 sh -c "[ \"\$(ns systemctl is-active booksd.service)\" = active ]"
step "booksctl --version and booksd --version agree: $(ns /usr/bin/booksctl --version)" \
    sh -c "[ \"\$(ns_v=\$(ns /usr/bin/booksd --version); echo \${ns_v#booksd })\" = \"$version1\" ]"
pid1=$(ns systemctl show -p MainPID --value booksd.service)
ns sh -c 'echo "# edited by the administrator" >> /etc/booksd/booksd.conf'

# --- upgrade -------------------------------------------------------------------------------------
step "apt-get install ./$(basename "$deb2") (upgrade)" apt install "$work/$(basename "$deb2")"
step "dpkg: installed $version2" sh -c "[ \"\$(ns dpkg-query -W -f='\${Version}' booksd)\" = '$version2' ]"
step "the edited conffile was kept" ns grep -q "edited by the administrator" /etc/booksd/booksd.conf
step "the running service was restarted on the new package (pid $pid1 -> another) and answers" \
    wait_for 10 sh -c "p=\$(ns systemctl show -p MainPID --value booksd.service); [ -n \"\$p\" ] && [ \"\$p\" != 0 ] && [ \"\$p\" != '$pid1' ] && ns /usr/bin/booksctl --socket $sock list | grep -q Emma"

# --- purge ---------------------------------------------------------------------------------------
step "apt-get purge booksd" apt purge booksd
step "dpkg: not installed any more" sh -c "! ns dpkg-query -W -f='\${Status}' booksd 2>/dev/null | grep -q 'ok installed'"
step "binaries, units, completion and conffile removed" ns sh -c '! test -e /usr/bin/booksd && ! test -e /usr/bin/booksctl && ! test -e /lib/systemd/system/booksd.service && ! test -e /usr/lib/systemd/user/booksd.socket && ! test -e /usr/share/bash-completion/completions/booksctl && ! test -e /etc/booksd/booksd.conf'
step "the socket is closed and systemd forgot the units" \
    sh -c "! ns test -e $sock && [ \"\$(ns systemctl show -p LoadState --value booksd.service)\" = not-found ]"
step "the saved history is purged, the books are kept" ns sh -c '! test -e /var/lib/booksd-history && test -f /var/lib/booksd/books.txt'

if [ "$failures" -gt 0 ]; then
    echo "--- booksd log"; ns cat /run/booksd.log 2>/dev/null | tail -30
    echo "--- last apt-get"; tail -30 "$work/apt.log"
fi
echo "deb-e2e: $failures failure(s) in $(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"
[ "$failures" -eq 0 ]
