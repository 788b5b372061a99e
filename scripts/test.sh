#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs every test, in the builds users make and one that checks memory:
#   build/        GCC, Release (what users and the benchmarks get)
#   build-clang/  clang, Release
#   build-asan/   GCC, Debug with AddressSanitizer + UndefinedBehaviorSanitizer
# Warnings are errors here (UMP_WERROR), never in a user's default build.
# TEST_VARIANTS="build build-asan" picks a subset.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh

jobs=$(nproc)
status=0
for variant in ${TEST_VARIANTS:-build build-clang build-asan}; do
    flags=(-DUMP_WERROR=ON)
    case "$variant" in
    # The libFuzzer runs (clang, their own build) take a few minutes: once.
    build) flags+=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc -DUMP_FUZZ_RUN=OFF) ;;
    build-clang) flags+=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang -DUMP_FUZZ_RUN=ON) ;;
    build-asan) flags+=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc -DUMP_SANITIZE=ON
                        -DUMP_FUZZ_RUN=OFF) ;;
    *) echo "test.sh: unknown variant $variant" >&2; exit 2 ;;
    esac
    echo "=== $variant: configure and build (${flags[*]})"
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
