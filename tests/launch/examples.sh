#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# examples.sh BUILDDIR EXAMPLESDIR: builds examples/ as a user would (a copy
# of the directory, its Makefile, the build tree's compiler wrapper) and runs
# every program it made on 2, 3 and 4 ranks. hello, ring and halo have their
# output checked line by line; any other example (each *.c is one) must exit
# 0, print something, and print no line saying FAIL.
BUILD=$1 SRC=$2
. "$(dirname "$0")/lib.sh"
UMPRUN=$BUILD/bin/umprun
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
cp "$SRC"/Makefile "$SRC"/*.c "$TMPD"/
make -C "$TMPD" MPICC="$BUILD/bin/umpcc" CFLAGS="-O2 -Wall -Wextra -Werror" >"$TMPD/make.log" 2>&1 || {
    cat "$TMPD/make.log"; fail "make in a copy of examples/"; }
progs=$(cd "$TMPD" && for c in *.c; do echo "${c%.c}"; done)
for p in $progs; do [ -x "$TMPD/$p" ] || fail "the Makefile did not build $p"; done
for want in hello ring halo; do echo "$progs" | grep -qx $want || fail "examples/$want.c is missing"; done

host=$(hostname)
OUT=$TMPD/out
for p in $progs; do
    for n in 2 3 4; do
        (cd "$TMPD" && "$UMPRUN" --timeout 60 -n $n ./$p) >"$OUT" 2>&1 </dev/null; rc=$?
        sed "s/^/$p -n $n: /" "$OUT"
        [ $rc = 0 ] || fail "$p on $n ranks exited $rc"
        case $p in
        hello)
            [ "$(wc -l <"$OUT")" = $n ] || fail "hello: want $n lines"
            for r in $(seq 0 $((n - 1))); do
                grep -qxF "Hello from rank $r of $n on $host" "$OUT" || fail "hello: rank $r"
            done ;;
        ring)
            want=$((10 * n * (n - 1) / 2))
            [ "$(cat "$OUT")" = "ring: 10 laps round $n ranks, token $want (expected $want): ok" ] ||
                fail "ring on $n ranks" ;;
        halo)
            # The same numbers on any rank count: a slab boundary in the
            # wrong place changes them.
            [ "$(cat "$OUT")" = "halo: 240 cells on $n ranks, 300 steps, cell 80 is 25.704797; 0 cells differ from one process: ok" ] ||
                fail "halo on $n ranks"
            (cd "$TMPD" && "$UMPRUN" --timeout 60 -n $n ./halo 37 100) >"$OUT" 2>&1 </dev/null ||
                fail "halo 37 100 on $n ranks"
            [ "$(cat "$OUT")" = "halo: 37 cells on $n ranks, 100 steps, cell 12 is 33.391788; 0 cells differ from one process: ok" ] ||
                fail "halo 37 100 on $n ranks: $(cat "$OUT")" ;;
        *)
            [ -s "$OUT" ] || fail "$p on $n ranks printed nothing"
            if grep -qi 'fail' "$OUT"; then fail "$p on $n ranks says it failed"; fi ;;
        esac
    done
done
make -C "$TMPD" clean >/dev/null || fail "make clean"
for p in $progs; do [ ! -e "$TMPD/$p" ] || fail "make clean left $p"; done
echo PASS
