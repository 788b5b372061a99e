#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# stencil_example.sh BIN UMPRUN N [ARGS...]: run examples/stencil.c (built as
# BIN) on 1 rank and on N ranks and require the same results (the centre
# value and the checksum lines): the decomposition must not change the answer.
set -u
bin=$1 umprun=$2 n=$3
shift 3
one=$("$umprun" -n 1 --timeout 100 "$bin" "$@") || { echo "FAIL: the 1-rank run failed"; exit 1; }
many=$("$umprun" -n "$n" --timeout 100 "$bin" "$@") || { echo "FAIL: the $n-rank run failed"; exit 1; }
echo "$one"
echo "$many"
r1=$(echo "$one" | grep -E '^(u\(|checksum )')
rn=$(echo "$many" | grep -E '^(u\(|checksum )')
if [ "$(echo "$r1" | wc -l)" != 2 ]; then
    echo "FAIL: the 1-rank run printed no result"
    exit 1
fi
if [ "$r1" != "$rn" ]; then
    echo "FAIL: $n ranks gave a different result than 1 rank"
    exit 1
fi
echo "PASS: $n ranks match 1 rank"
