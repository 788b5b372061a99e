#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs every test: builds ump (build/) and an AddressSanitizer +
# UndefinedBehaviorSanitizer tree (build-asan/), and runs the whole ctest
# suite in both.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh

jobs=$(nproc)
status=0
for variant in build build-asan; do
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
    [ "$variant" = build-asan ] && flags+=(-DUMP_SANITIZE=ON)
    echo "=== $variant: configure and build"
    cmake -S . -B "$variant" "${flags[@]}" >/dev/null
    cmake --build "$variant" -j"$jobs" >/dev/null
    echo "=== $variant: ctest"
    # Two at a time: the multi-process tests already start more ranks than
    # this 2-core machine has cores, and their waits sleep rather than spin.
    if ! ASAN_OPTIONS=detect_leaks=1 ctest --test-dir "$variant" -j2 --output-on-failure; then
        status=1
    fi
done
exit $status
