#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The main job: builds ump and runs the ping-pong latency/bandwidth benchmark
# between two ranks over umprun. Extra arguments go to the benchmark.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
exec build/bin/umprun -n 2 --timeout 600 build/bench/pingpong "$@"
