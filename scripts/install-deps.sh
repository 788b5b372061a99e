#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what building and testing ump needs, with apt-get, when missing.
# Usage: scripts/install-deps.sh [extra Debian packages...]
set -euo pipefail

need=(gcc g++ make cmake pkg-config libcmocka-dev uthash-dev iproute2 procps libpmix-dev libsodium-dev
      libfabric-dev libfabric-bin pandoc openjdk-17-jdk-headless clang libclang-rt-14-dev "$@")
missing=()
for p in "${need[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo="sudo"
    else
        echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
# The package lists of a fresh machine may be empty or stale.
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
