#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs every test, in the builds users make and one that checks memory:
#   build/        GCC, Release (what users and the benchmarks get)
#   build-clang/  clang, Release
#   build-asan/   GCC, Debug with AddressSanitizer + UndefinedBehaviorSanitizer
#   build-tsan/   clang, RelWithDebInfo with ThreadSanitizer: the tests of label
#                 `threads` only (every test that runs threads); skipped, with
#                 the reason printed, where ThreadSanitizer cannot run
# Warnings are errors here (UMP_WERROR), never in a user's default build.
# TEST_VARIANTS="build build-asan" picks a subset.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh

jobs=$(nproc)
status=0
# Whether a ThreadSanitizer program runs here, and how: some kernels (a
# large vm.mmap_rnd_bits) map memory where TSan's shadow must go, which it
# survives with address randomization off (setarch -R, inherited by every
# process ctest starts). Sets tsan_prefix, or tsan_skip to the reason.
tsan_probe() {
    tsan_prefix=() tsan_skip=""
    local dir out
    dir=$(mktemp -d)
    printf '#include <pthread.h>\nstatic int x;\nstatic void *f(void *a) { __atomic_add_fetch(&x, 1, __ATOMIC_RELAXED); return a; }\nint main(void) { pthread_t t; if (pthread_create(&t, 0, f, 0)) return 1; pthread_join(t, 0); return x != 1; }\n' >"$dir/t.c"
    if ! out=$(clang -fsanitize=thread "$dir/t.c" -o "$dir/t" -lpthread 2>&1); then
        tsan_skip="clang cannot build with -fsanitize=thread: ${out%%$'\n'*}"
    elif out=$("$dir/t" 2>&1); then
        :
    elif setarch "$(uname -m)" -R "$dir/t" >/dev/null 2>&1; then
        tsan_prefix=(setarch "$(uname -m)" -R)
    else
        tsan_skip="a ThreadSanitizer program fails here even with setarch -R: ${out%%$'\n'*}"
    fi
    rm -rf "$dir"
}

for variant in ${TEST_VARIANTS:-build build-clang build-asan build-tsan}; do
    flags=(-DUMP_WERROR=ON)
    case "$variant" in
    # The libFuzzer runs (clang, their own build) take a few minutes: once.
    build) flags+=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc -DUMP_FUZZ_RUN=OFF) ;;
    build-clang) flags+=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang -DUMP_FUZZ_RUN=ON) ;;
    build-asan) flags+=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc -DUMP_SANITIZE=ON
                        -DUMP_FUZZ_RUN=OFF) ;;
    build-tsan) flags+=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DUMP_TSAN=ON
                        -DUMP_FUZZ_RUN=OFF)
        tsan_probe
        if [ -n "$tsan_skip" ]; then
            echo "=== $variant: SKIPPED: $tsan_skip"
            continue
        fi ;;
    *) echo "test.sh: unknown variant $variant" >&2; exit 2 ;;
    esac
    echo "=== $variant: configure and build (${flags[*]})"
    cmake -S . -B "$variant" "${flags[@]}" >/dev/null
    cmake --build "$variant" -j"$jobs" >/dev/null
    echo "=== $variant: ctest"
    # Two at a time: the multi-process tests already start more ranks than
    # this 2-core machine has cores, and their waits sleep rather than spin.
    if [ "$variant" = build-tsan ]; then
        # Any report fails the test (TSan's exit code 66); suppressions, each
        # explained, are for libraries that are not ump's only.
        echo "=== $variant: ctest -L threads ${tsan_prefix[*]:+(under ${tsan_prefix[*]})}"
        if ! TSAN_OPTIONS="halt_on_error=0 exitcode=66 suppressions=$root/scripts/tsan.supp" \
            UMPTEST_NO_TIMING=1 "${tsan_prefix[@]}" ctest --test-dir "$variant" -L threads -j2 \
            --output-on-failure; then
            status=1
        fi
    elif ! ASAN_OPTIONS=detect_leaks=1 ctest --test-dir "$variant" -j2 --output-on-failure; then
        status=1
    fi
done
exit $status
