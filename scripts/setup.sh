#!/usr/bin/env bash
# setup.sh — install the Debian 12 packages BookSync needs.
#   scripts/setup.sh           to build, run and test everything (CI, scripts/test.sh)
#   scripts/setup.sh runtime   to build and run booksd/booksctl only (scripts/run.sh): no editors,
#                              benchmark peers or test tools
# The lists live in scripts/packages-runtime.txt and scripts/packages.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lists=("$here/packages-runtime.txt")
case "${1:-all}" in
    runtime) ;;
    all) lists+=("$here/packages.txt") ;;
    *) echo "usage: setup.sh [runtime]" >&2; exit 2 ;;
esac
mapfile -t packages < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "${lists[@]}" | grep -v '^$')
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
# Python packages from PyPI for interoperability tests (nats-py: issue 14's independent client);
# not for `runtime`.
install_python_packages() {
    [ "${1:-all}" = runtime ] && return 0
    python3 -c 'import nats' 2>/dev/null && return 0
    python3 -m pip install -q --break-system-packages nats-py || echo "setup.sh: nats-py not installed (its test is skipped)"
}
if [ "${#missing[@]}" -eq 0 ]; then
    echo "setup.sh: all ${#packages[@]} packages are installed"
    install_python_packages "${1:-all}"
    exit 0
fi
echo "setup.sh: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" < /dev/null
install_python_packages "${1:-all}"
