#!/bin/sh
# package-deb.sh — build the Debian package booksd_<version>_<arch>.deb with dpkg-deb.
#
#   [OUT=build] [VERSION=0.1.0] [BUILT_BINDIR=DIR] scripts/package-deb.sh
#
# OUT        folder the .deb is written to (default build/, created)
# VERSION    package version (default: what the built `booksctl --version` prints, i.e.
#            BookSyncVersion in Sources/BooksCore/Version/BookSyncVersion.swift)
# BUILT_BINDIR  take booksd/booksctl from DIR instead of building them (e.g. to package the
#            same binaries twice). Without it: a build (CONFIGURATION, default release; the test
#            scripts/deb-e2e.sh uses debug, which only relinks the existing debug build) linked
#            with the Swift standard library built in and no local rpath, so the package needs
#            only Debian's libraries (listed in Depends:, found with dpkg -S); the ordinary
#            binaries in .build are relinked afterwards.
# BINDIR_OUT when set, the packaged (statically linked) binaries are also copied there.
#
# Contents: the tree scripts/install.sh stages with PREFIX=/usr (binaries, system and user units,
# sysusers.d/tmpfiles.d entries, man pages, /etc/booksd/booksd.conf as a conffile, bash/zsh/fish
# completion), plus /usr/share/doc/booksd (copyright, changelog, the guides docs/*.md gzipped) and the maintainer scripts in
# packaging/debian (postinst: create the books user, /var/lib/booksd, daemon-reload, restart on
# upgrade; prerm: stop; postrm: daemon-reload, purge removes the saved history).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
OUT=${OUT:-build}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

restore=
if [ -z "${BUILT_BINDIR:-}" ]; then
    config=${CONFIGURATION:-release}
    link="--static-swift-stdlib --disable-local-rpath -Xlinker -l_FoundationCShims -Xlinker -l_FoundationCollections"
    # Compile with the usual flags first, so that the static link below only relinks: an object
    # compiled with --static-swift-stdlib carries autolink entries for the static libraries and
    # would break the next ordinary build, which does not recompile it.
    swift build -c "$config" --product booksd
    swift build -c "$config" --product booksctl
    for product in booksd booksctl; do
        # shellcheck disable=SC2086
        swift build -c "$config" $link --product "$product"
    done
    BUILT_BINDIR=$(mktemp -d)
    cp "$(swift build -c "$config" --show-bin-path)/booksd" "$(swift build -c "$config" --show-bin-path)/booksctl" \
        "$BUILT_BINDIR/"
    restore=$BUILT_BINDIR
    # Relink the ordinary binaries again (tests and benchmarks use them).
    swift build -c "$config" --product booksd
    swift build -c "$config" --product booksctl
fi

work=$(mktemp -d)
trap 'rm -rf "$work" $restore' EXIT INT TERM
root=$work/root
# Debian 12 keeps system units in /lib/systemd/system (lintian: systemd-service-file-outside-lib).
DESTDIR=$root PREFIX=/usr SYSCONFDIR=/etc UNITDIR=/lib/systemd/system BUILT_BINDIR=$BUILT_BINDIR \
    sh scripts/install.sh > "$work/install.log"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/booksd" "$root/usr/bin/booksctl"
find "$root/usr/share/man" -type f -exec gzip -9n {} +

VERSION=${VERSION:-$("$root/usr/bin/booksctl" --version | cut -d' ' -f2)}
ARCH=$(dpkg --print-architecture)
doc=$root/usr/share/doc/booksd
install -d -m 0755 "$doc"
install -m 0644 packaging/debian/copyright "$doc/copyright"
# The guides the man pages cite (docs/*.md), compressed like dh_compress does.
for guide in docs/*.md; do gzip -9n < "$guide" > "$doc/$(basename "$guide").gz"; done
{
    echo "booksd ($VERSION) unstable; urgency=medium"
    echo
    echo "  * Built by scripts/package-deb.sh from the BookSync repository."
    echo
    echo " -- BookSync Dev <dev@booksync.example.com>  $(date -R -u -d @"${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n > "$doc/changelog.gz"

# Depends: the Debian package of every shared library the binaries name (DT_NEEDED) or load (dlopen).
depends=$({ for exe in "$root/usr/bin/booksd" "$root/usr/bin/booksctl"; do
    for name in $(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        ldd "$exe" | awk -v n="$name" '$1 == n && $3 ~ /^\// { print $3 }'
    done
done
# Libraries loaded with dlopen (not in DT_NEEDED): libnats, by Sources/CNats/shim.h.
ldconfig -p | awk '$1 == "libnats.so.3.4" { print $NF; exit }'
} | sort -u | while read -r lib; do
    dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "$lib" 2>/dev/null || true
done | cut -d: -f1 | sort -u | paste -sd, - | sed 's/,/, /g')

mkdir -p "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s|@VERSION@|$VERSION|" -e "s|@ARCH@|$ARCH|" -e "s|@SIZE@|$size|" -e "s|@DEPENDS@|$depends|" \
    packaging/debian/control.in > "$root/DEBIAN/control"
echo /etc/booksd/booksd.conf > "$root/DEBIAN/conffiles"
for script in postinst prerm postrm; do install -m 0755 "packaging/debian/$script" "$root/DEBIAN/$script"; done
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | grep -v '^etc/' | sort \
    | xargs md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 0755 {} +

[ -n "${BINDIR_OUT:-}" ] && mkdir -p "$BINDIR_OUT" && cp "$BUILT_BINDIR/booksd" "$BUILT_BINDIR/booksctl" "$BINDIR_OUT/"
deb=$OUT/booksd_${VERSION}_${ARCH}.deb
dpkg-deb --root-owner-group -Zgzip -z6 --build "$root" "$deb" >/dev/null
echo "package-deb: $deb ($(du -k "$deb" | cut -f1) KiB; Depends: $depends)"
