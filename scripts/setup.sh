#!/usr/bin/env bash
# setup.sh — install the system packages BookSync needs to build and test (Debian 12).
#   scripts/setup.sh
# The list lives in scripts/packages.txt (shared with .ci/run).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t packages < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$here/packages.txt" | grep -v '^$')
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
# Python packages from PyPI for interoperability tests (nats-py: issue 14's independent client).
install_python_packages() {
    python3 -c 'import nats' 2>/dev/null && return 0
    python3 -m pip install -q --break-system-packages nats-py || echo "setup.sh: nats-py not installed (its test is skipped)"
}
if [ "${#missing[@]}" -eq 0 ]; then
    echo "setup.sh: all ${#packages[@]} packages are installed"
    install_python_packages
    exit 0
fi
echo "setup.sh: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${packages[@]}" < /dev/null
install_python_packages
