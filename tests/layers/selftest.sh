#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# selftest.sh CHECK: builds small trees with one layer table and checks that
# CHECK passes the clean one and fails each planted violation.
set -u
check=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mk() { # mk DIR: a clean tree of three layers
    mkdir -p "$1/src/low" "$1/src/mid" "$1/src/top"
    printf 'low\nmid low\ntop low mid\n' >"$1/src/layers.txt"
    printf '#include "ump.h"\n' >"$1/src/low/a.c"
    printf '#include "low/a.h"\n#include "b.h"\n' >"$1/src/mid/b.c"
    printf '#include "mid/b.h"\n#include "low/a.h"\n' >"$1/src/top/c.c"
}
fail=0
mk "$tmp/clean"
"$check" "$tmp/clean" >/dev/null || { echo "selftest: the clean tree was refused"; fail=1; }
plant() { # plant NAME FILE LINE: a tree with LINE added to FILE must fail
    mk "$tmp/$1"
    printf '%s\n' "$3" >>"$tmp/$1/$2"
    if out=$("$check" "$tmp/$1"); then
        echo "selftest: $1 was not caught"
        fail=1
    else
        printf '%s\n' "$out" | grep -q "$2" || { echo "selftest: $1 not named: $out"; fail=1; }
    fi
}
plant upward src/low/a.c '#include "mid/b.h"'
plant cycle src/mid/b.c '#include "top/c.h"'
plant mpi_h src/mid/b.c '#include <mpi.h>'
plant climb src/low/a.c '#include "../top/c.h"'
plant unknown src/top/c.c '#include "nowhere/x.h"'
mkdir -p "$tmp/binding/bindings/java"
mk "$tmp/binding"
printf '#include "mid/b.h"\n' >"$tmp/binding/bindings/java/j.c"
"$check" "$tmp/binding" >/dev/null && { echo "selftest: a binding's internal include was not caught"; fail=1; }
[ $fail -eq 0 ] && echo "selftest: every planted violation was caught"
exit $fail
