#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# openmpi.sh [OUTDIR]: build the conformance programs with Open MPI's mpicc and
# run each on 1-4 ranks under mpirun, plus the singleton and fatal-error runs:
# a reference run that validates the tests themselves (a failure under ump
# that passes here is ump's bug). Not part of ctest. Prints one line per run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
progs="env p2p probe requests comm group errh types info coll stress"
mpirun="mpirun.openmpi --allow-run-as-root --oversubscribe"
export OMPI_MCA_btl_vader_single_copy_mechanism=none
fail=0
for p in $progs errh_fatal; do
    mpicc.openmpi -D_GNU_SOURCE -O2 -g -Wall -Wextra -Wno-unused-parameter \
        -Wno-unused-function -pthread -o "$out/$p" "$here/$p.c" -lm || { fail=1; continue; }
done
start=$(date +%s)
for p in $progs; do
    for n in 1 2 3 4; do
        args=""
        [ $p = env ] && args="--expect-size=$n"
        if timeout 120 $mpirun -n $n "$out/$p" $args >"$out/$p.n$n.log" 2>&1; then
            echo "ok   $p n=$n"
        else
            echo "FAIL $p n=$n (log $out/$p.n$n.log)"
            fail=1
        fi
    done
done
for l in single funneled serialized multiple; do
    if timeout 60 $mpirun -n 2 "$out/env" --thread=$l >"$out/env.$l.log" 2>&1; then
        echo "ok   env --thread=$l"
    else
        echo "FAIL env --thread=$l"
        fail=1
    fi
done
if timeout 60 "$out/env" --expect-size=1 >"$out/env.singleton.log" 2>&1; then
    echo "ok   env singleton"
else
    echo "FAIL env singleton"
    fail=1
fi
for n in 1 2 4; do
    if bash "$here/fatal.sh" MPI_Send $mpirun -n $n "$out/errh_fatal" >"$out/fatal.n$n.log" 2>&1; then
        echo "ok   errh_fatal n=$n"
    else
        echo "FAIL errh_fatal n=$n (log $out/fatal.n$n.log)"
        fail=1
    fi
done
for n in 1 3; do
    if FATAL_RC=7 bash "$here/fatal.sh" "(code|errorcode) 7" $mpirun -n $n "$out/errh_fatal" --abort \
        >"$out/abort.n$n.log" 2>&1; then
        echo "ok   MPI_Abort n=$n"
    else
        echo "FAIL MPI_Abort n=$n (log $out/abort.n$n.log)"
        fail=1
    fi
done
echo "openmpi.sh: $(($(date +%s) - start)) s, logs in $out"
exit $fail
