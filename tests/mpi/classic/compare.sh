#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# compare.sh PROG UMP_BINARY UMPRUN [N]: build classic/PROG.c with Open MPI's
# mpicc, run it on N ranks (default 4) under mpirun, run ump's build of the
# same program (UMP_BINARY, from CMake) under umprun, and require exit status
# 0 from both and identical output. When an umpcc sits next to umprun (and
# UMP_COMPARE_NO_UMPCC is not set, as in sanitizer builds, whose runtime
# umpcc does not link), the program is also built with umpcc and compared.
# Exits 77 (skip) when Open MPI is not installed and cannot be installed.
set -u
prog=$1 ump_bin=$2 umprun=$3 n=${4:-4}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/$prog.c

# The wrapper alone is not enough: openmpi-bin without libopenmpi-dev has
# mpicc.openmpi but no mpi.h.
have_ompi() {
    command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null &&
        dpkg-query -W -f='${Status}' libopenmpi-dev 2>/dev/null | grep -q "install ok installed"
}
if ! have_ompi; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "compare.sh: installing Open MPI (openmpi-bin libopenmpi-dev)"
        timeout 300 apt-get install -y -q openmpi-bin libopenmpi-dev >/dev/null 2>&1
    fi
fi
if ! have_ompi; then
    echo "compare.sh: SKIP: Open MPI (mpicc.openmpi, mpirun.openmpi) is not installed and could not be installed"
    exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! mpicc.openmpi -O2 -o "$tmp/ompi_$prog" "$src" -lm; then
    echo "compare.sh: FAIL: mpicc.openmpi could not build $src"
    exit 1
fi
export OMPI_MCA_btl_vader_single_copy_mechanism=none # no CMA warnings in containers
timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" "$tmp/ompi_$prog" \
    >"$tmp/ompi.out" 2>"$tmp/ompi.err"
orc=$?
if [ $orc -ne 0 ]; then
    echo "compare.sh: FAIL: the Open MPI run failed (exit $orc):"
    cat "$tmp/ompi.err"
    exit 1
fi

bins=("$ump_bin")
umpcc=$(dirname "$umprun")/umpcc
fail=0
if [ -x "$umpcc" ] && [ -z "${UMP_COMPARE_NO_UMPCC:-}" ]; then
    if "$umpcc" -O2 -o "$tmp/umpcc_$prog" "$src" -lm; then
        bins+=("$tmp/umpcc_$prog")
    else
        echo "compare.sh: FAIL: $umpcc could not build $src"
        fail=1
    fi
fi

for bin in "${bins[@]}"; do
    timeout 120 "$umprun" -n "$n" --timeout 100 "$bin" >"$tmp/ump.out" 2>"$tmp/ump.err"
    urc=$?
    echo "compare.sh: $prog on $n ranks: ump build $bin exit $urc"
    if [ $urc -ne 0 ]; then
        echo "compare.sh: FAIL: the ump run failed ($umprun -n $n $bin):"
        cat "$tmp/ump.err"
        fail=1
    fi
    if ! diff -u --label "Open MPI" --label "ump ($bin)" "$tmp/ompi.out" "$tmp/ump.out"; then
        echo "compare.sh: FAIL: outputs differ"
        fail=1
    else
        echo "compare.sh: identical output ($(wc -l <"$tmp/ump.out") lines)"
    fi
done
[ $fail -eq 0 ] && echo "compare.sh: PASS"
exit $fail
