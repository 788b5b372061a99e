#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The build tree's umpcc: -show names this tree's include and lib
# directories; a program it builds runs under the build tree's umprun.
#   build_tree_test.sh <build dir> <source include dir> <hello_mpi.c>
set -eu
build=$1 inc=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
show=$("$build/bin/umpcc" -show -o x x.c)
case "$show" in
*"-I$inc -o x x.c -L$build/lib -lump -Wl,-rpath,$build/lib"*) ;;
*) echo "FAIL: umpcc -show: $show"; exit 1 ;;
esac
show=$("$build/bin/umpcc" -show -c x.c)
case "$show" in
*"-lump"*) echo "FAIL: umpcc -show -c links: $show"; exit 1 ;;
esac
UMPCC_CC=false "$build/bin/umpcc" x.c 2>/dev/null && { echo "FAIL: UMPCC_CC is ignored"; exit 1; }
"$build/bin/umpcc" -o "$tmp/hello" "$src"
out=$(env -u LD_LIBRARY_PATH timeout 60 "$build/bin/umprun" -n 3 "$tmp/hello" 2>&1) || {
    echo "$out"; echo "FAIL: running under umprun"; exit 1; }
n=$(printf '%s\n' "$out" | grep -c ': ok$' || true)
[ "$n" = 3 ] || { echo "$out"; echo "FAIL: expected 3 ok lines"; exit 1; }
echo "build-tree umpcc test passed"
