#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds mpi4py from a source tree the user fetched (3.1.x: the line that
# builds with Debian 12's Cython 0.29) against a ump build tree, and runs its
# test suite under umprun on 1, 2 and 3 ranks, printing per rank count how
# many tests passed, failed, errored and were skipped.
#
#   scripts/mpi4py-suite.sh MPI4PY_SRC [UMP_BUILD_DIR] [RANKS...]
#
# UMP_BUILD_DIR defaults to build/ beside this script; RANKS to "1 2 3".
# Each test module runs in its own job (umprun --timeout), so a module that
# hangs costs its own tests (counted as "hung") and not the rest of the
# suite. MPI4PY_EXCLUDE is a space-separated list of modules to leave out
# (default: none).
# MPI4PY_LAUNCH="mpiexec" with MPI4PY_SRC's build made for another MPI runs
# the same tally against that MPI; MPI4PY_NO_BUILD=1 uses the build as is;
# MPI4PY_PATH overrides the directory put on PYTHONPATH (e.g. to test an
# installed mpi4py: an empty directory).
# Per-module logs go to $MPI4PY_LOGS (default: a fresh directory under /tmp).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=${1:?usage: mpi4py-suite.sh MPI4PY_SRC [UMP_BUILD_DIR] [RANKS...]}
src=$(cd "$src" && pwd) || exit 2
build=$(cd "${2:-$root/build}" && pwd) || exit 2
shift $(($# >= 2 ? 2 : 1))
ranks=${*:-1 2 3}
python=${PYTHON:-/usr/bin/python3}
module_timeout=${MPI4PY_TIMEOUT:-300}
exclude=${MPI4PY_EXCLUDE-}
logs=${MPI4PY_LOGS:-$(mktemp -d /tmp/mpi4py-suite.XXXXXX)}
mkdir -p "$logs"

if [ ! -f "$src/setup.py" ] || [ ! -d "$src/test" ]; then
    echo "mpi4py-suite.sh: $src is not an mpi4py source tree (no setup.py, test/)" >&2
    exit 2
fi
if [ -z "${MPI4PY_LAUNCH:-}" ] && [ ! -x "$build/bin/mpicc" ]; then
    echo "mpi4py-suite.sh: $build/bin/mpicc missing: build ump first (cmake --build $build)" >&2
    exit 2
fi

# The build a user makes: mpi4py's setup.py compiles and links through the
# MPI compiler wrapper and probes which MPI functions exist.
if [ -z "${MPI4PY_NO_BUILD:-}" ]; then
    echo "=== building mpi4py in $src with MPICC=${MPICC:-$build/bin/mpicc} (log: $logs/build.log)"
    if ! (cd "$src" && env MPICC="${MPICC:-$build/bin/mpicc}" "$python" setup.py build \
        >"$logs/build.log" 2>&1); then
        echo "mpi4py-suite.sh: mpi4py build failed, see $logs/build.log" >&2
        tail -20 "$logs/build.log" >&2
        exit 1
    fi
fi
if [ -n "${MPI4PY_PATH+set}" ]; then
    pypath=$MPI4PY_PATH
else
    pypath=$(ls -d "$src"/build/lib.* 2>/dev/null | head -1)
    [ -n "$pypath" ] || { echo "mpi4py-suite.sh: no build/lib.* in $src" >&2; exit 1; }
fi
launch=${MPI4PY_LAUNCH:-$build/bin/umprun --timeout $module_timeout}

modules=()
for f in "$src"/test/test_*.py; do
    m=$(basename "$f" .py)
    case " $exclude " in *" $m "*) continue ;; esac
    modules+=("$m")
done

total_status=0
for n in $ranks; do
    pass=0 fail=0 err=0 skip=0 hung=""
    for m in "${modules[@]}"; do
        log=$logs/n$n.$m.log
        # runtests.py -i takes a regular expression: anchor it to the module.
        (cd "$src" && PYTHONPATH=$pypath timeout $((module_timeout + 60)) $launch -n "$n" \
            "$python" test/runtests.py -v --no-builddir -i "^$m\$" >"$log" 2>&1)
        # unittest's summary: "Ran N tests", then "OK (skipped=S)" or
        # "FAILED (failures=F, errors=E, skipped=S)". Every rank prints one;
        # the counts are rank 0's (the first summary), the verdict any rank's.
        ran=$(grep -m1 -E '^Ran [0-9]+ test' "$log" | awk '{print $2}')
        if [ -z "$ran" ]; then
            hung="$hung $m"
            continue
        fi
        summary=$(grep -m1 -E '^(OK|FAILED)' "$log")
        f=$(sed -n 's/.*failures=\([0-9]*\).*/\1/p' <<<"$summary")
        e=$(sed -n 's/.*errors=\([0-9]*\).*/\1/p' <<<"$summary")
        s=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$summary")
        f=${f:-0} e=${e:-0} s=${s:-0}
        pass=$((pass + ran - f - e - s))
        fail=$((fail + f))
        err=$((err + e))
        skip=$((skip + s))
        if ((f + e)); then
            grep -E '^(FAIL|ERROR): ' "$log" | sort -u | sed "s/^/  n$n $m: /"
        fi
    done
    printf '=== %d rank(s): passed %d, failed %d, errors %d, skipped %d' \
        "$n" "$pass" "$fail" "$err" "$skip"
    if [ -n "$hung" ]; then
        printf ', modules with no result (hung or crashed):%s' "$hung"
    fi
    printf '\n'
    if ((fail + err)) || [ -n "$hung" ]; then
        total_status=1
    fi
done
echo "logs: $logs"
exit $total_status
