#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the libFuzzer harnesses with clang (ASan + UBSan) into their own
# build directory and runs each for a while, one at a time.
#
# Usage: tests/fuzz/run.sh [--build-dir D] [--time S | --runs N] [--build-only]
#                          [--no-build] [harness...]
#   --build-dir D  where to build (default: build-fuzz at the repo root)
#   --time S       seconds per harness (default 30)
#   --runs N       stop a harness after N executions (or the time, if first)
#   --build-only   build and stop; --no-build: run what is built
# Harnesses default to all of tests/fuzz/harnesses.cmake. New inputs the
# fuzzer finds go to D/corpus/<harness>, crashes to D/artifacts/<harness>-*;
# the log of each run is D/logs/<harness>.log. Prints one line per harness:
# executions, coverage, features, crashes. Exit status 0 when no harness
# crashed, 1 otherwise, 77 when clang or its fuzzer runtime is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$root/build-fuzz"
time_s=30
runs=""
do_build=1
do_run=1
harnesses=()
while [ $# -gt 0 ]; do
    case "$1" in
    --build-dir) build=$2; shift 2 ;;
    --time) time_s=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --build-only) do_run=0; shift ;;
    --no-build) do_build=0; shift ;;
    -h|--help) sed -n '3,17p' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) harnesses+=("$1"); shift ;;
    esac
done
if [ ${#harnesses[@]} -eq 0 ]; then
    read -r -a harnesses <<<"$(sed -n 's/^set(UMP_FUZZ_HARNESSES \(.*\))$/\1/p' "$here/harnesses.cmake")"
fi

cc=$(command -v clang || command -v clang-14 || true)
if [ -z "$cc" ]; then
    echo "run.sh: SKIP: no clang (Debian: apt-get install clang libclang-rt-14-dev)"
    exit 77
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }' >"$probe/p.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" 2>"$probe/err"; then
    echo "run.sh: SKIP: $cc cannot link -fsanitize=fuzzer,address,undefined (Debian: apt-get install libclang-rt-14-dev): $(head -1 "$probe/err")"
    exit 77
fi

if [ $do_build = 1 ]; then
    # A lock: several ctest runs may start at once.
    mkdir -p "$build"
    exec 9>"$build/.lock"
    flock 9
    cmake -S "$here" -B "$build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE= >"$build/cmake.log" 2>&1 ||
        { cat "$build/cmake.log"; exit 1; }
    targets=()
    for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
    cmake --build "$build" -j2 --target "${targets[@]}" >"$build/build.log" 2>&1 ||
        { grep -E 'error|Error' "$build/build.log" | head -20; exit 1; }
    flock -u 9
fi
[ $do_run = 1 ] || exit 0

# Inputs up to these sizes; a longer input only slows the search.
max_len() {
    case "$1" in
    hosts|umprun_args) echo 32768 ;;
    rel) echo 16384 ;;
    kvs_server) echo 4096 ;;
    *) echo 8192 ;;
    esac
}

status=0
printf '%-12s %12s %8s %8s %8s %s\n' harness executions cov ft crashes seconds
for h in "${harnesses[@]}"; do
    exe="$build/fuzz_$h"
    [ -x "$exe" ] || { echo "run.sh: $exe not built" >&2; status=1; continue; }
    mkdir -p "$build/corpus/$h" "$build/artifacts" "$build/logs"
    limit=(-max_total_time="$time_s")
    [ -n "$runs" ] && limit+=(-runs="$runs")
    log="$build/logs/$h.log"
    start=$(date +%s)
    "$exe" "${limit[@]}" -max_len="$(max_len "$h")" -print_final_stats=1 -timeout=10 \
        -rss_limit_mb=2048 -artifact_prefix="$build/artifacts/$h-" \
        "$build/corpus/$h" "$here/corpus/$h" >"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
    ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
    crashes=$(ls "$build/artifacts/" 2>/dev/null | grep -c "^$h-" || true)
    printf '%-12s %12s %8s %8s %8s %s\n' "$h" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$crashes" "$secs"
    if [ $rc -ne 0 ]; then
        status=1
        echo "run.sh: $h failed (exit $rc); the report:" >&2
        grep -E -A25 'ERROR|SUMMARY|fuzz: ' "$log" | head -60 >&2
    fi
done
exit $status
