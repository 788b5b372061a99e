#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# compare.sh PROG UMP_BINARY UMPRUN [N]: build classic/PROG.c with Open MPI's
# mpicc, run it on N ranks (default 4) under mpirun, run ump's build of the
# same program under umprun, and require identical output and exit status 0
# from both. ump's build is UMP_BINARY, or the program compiled with umpcc
# when an umpcc sits next to umprun. Exits 77 (skip) when Open MPI is not
# installed and cannot be installed.
set -u
prog=$1 ump_bin=$2 umprun=$3 n=${4:-4}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/$prog.c

if ! command -v mpicc.openmpi >/dev/null || ! command -v mpirun.openmpi >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "compare.sh: installing Open MPI (openmpi-bin libopenmpi-dev)"
        timeout 300 apt-get install -y -q openmpi-bin libopenmpi-dev >/dev/null 2>&1
    fi
fi
if ! command -v mpicc.openmpi >/dev/null || ! command -v mpirun.openmpi >/dev/null; then
    echo "compare.sh: SKIP: Open MPI (mpicc.openmpi, mpirun.openmpi) is not installed and could not be installed"
    exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! mpicc.openmpi -O2 -o "$tmp/ompi_$prog" "$src" -lm; then
    echo "compare.sh: FAIL: mpicc.openmpi could not build $src"
    exit 1
fi
umpcc=$(dirname "$umprun")/umpcc
if [ -x "$umpcc" ]; then
    if ! "$umpcc" -O2 -o "$tmp/ump_$prog" "$src" -lm; then
        echo "compare.sh: FAIL: $umpcc could not build $src"
        exit 1
    fi
    ump_bin=$tmp/ump_$prog
    echo "compare.sh: ump build by $umpcc"
fi

export OMPI_MCA_btl_vader_single_copy_mechanism=none # no CMA warnings in containers
timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" "$tmp/ompi_$prog" \
    >"$tmp/ompi.out" 2>"$tmp/ompi.err"
orc=$?
timeout 120 "$umprun" -n "$n" --timeout 100 "$ump_bin" >"$tmp/ump.out" 2>"$tmp/ump.err"
urc=$?
echo "compare.sh: $prog on $n ranks: Open MPI exit $orc, ump exit $urc"
fail=0
if [ $orc -ne 0 ]; then
    echo "compare.sh: FAIL: the Open MPI run failed:"
    cat "$tmp/ompi.err"
    fail=1
fi
if [ $urc -ne 0 ]; then
    echo "compare.sh: FAIL: the ump run failed ($umprun -n $n $ump_bin):"
    cat "$tmp/ump.err"
    fail=1
fi
if ! diff -u --label "Open MPI" --label ump "$tmp/ompi.out" "$tmp/ump.out"; then
    echo "compare.sh: FAIL: outputs differ"
    fail=1
fi
[ $fail -eq 0 ] && echo "compare.sh: PASS: identical output ($(wc -l <"$tmp/ump.out") lines)"
exit $fail
