#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The build tree's umpcc and umpcxx: -show names this tree's include and lib
# directories, the query options answer as Open MPI's and MPICH's wrappers
# do, the mpicc/mpicxx names (when built) are the same wrappers, and programs
# they build run under the build tree's umprun.
#   build_tree_test.sh <build dir> <source include dir> <hello_mpi.c>
set -eu
build=$1 inc=$2 src=$3
srcxx=${src%.c}.cpp
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

# The query options: one line each, exit 0.
fail() { echo "FAIL: $*"; exit 1; }
cc=$(sed -n 's/^cc=\${UMPCC_CC:-\(.*\)}$/\1/p' "$build/bin/umpcc")
[ -n "$cc" ] || fail "no compiler in umpcc"
libs="-L$build/lib -lump -Wl,-rpath,$build/lib"
q() { "$build/bin/umpcc" "$@"; }
[ "$(q -showme:compile)" = "-I$inc" ] || fail "-showme:compile: $(q -showme:compile)"
case "$(q -showme:link)" in "$libs"*) ;; *) fail "-showme:link: $(q -showme:link)" ;; esac
[ "$(q --showme:compile)" = "-I$inc" ] || fail "--showme:compile"
[ "$(q -compile_info)" = "$cc -I$inc" ] || fail "-compile_info: $(q -compile_info)"
[ "$(q -compile-info)" = "$cc -I$inc" ] || fail "-compile-info"
case "$(q -link_info)" in "$cc -I$inc $libs"*) ;; *) fail "-link_info: $(q -link_info)" ;; esac
case "$(q -link-info)" in "$cc -I$inc $libs"*) ;; *) fail "-link-info" ;; esac
case "$(q -showme)" in "$cc -I$inc $libs"*) ;; *) fail "-showme: $(q -showme)" ;; esac
case "$(q -showme -O2 -o x x.c)" in "$cc -I$inc -O2 -o x x.c $libs"*) ;; *) fail "-showme args" ;; esac
case "$(q -show -c x.c)" in "$cc -I$inc -c x.c") ;; *) fail "-show -c: $(q -show -c x.c)" ;; esac
[ "$(q -showme:incdirs)" = "$inc" ] || fail "-showme:incdirs"
[ "$(q -showme:libdirs)" = "$build/lib" ] || fail "-showme:libdirs"
[ "$(q -showme:libs)" = "ump" ] || fail "-showme:libs"
q -showme:version | grep -qE '^umpcc: ump [0-9]+\.[0-9]+\.[0-9]+ \(MPI 3\.1\)$' || fail "-showme:version"
q --help | grep -q -- '-showme:compile' || fail "--help"
q -help | grep -q -- '-compile_info' || fail "-help"
q --version >"$tmp/v" || fail "--version exited $?"
[ "$(head -1 "$tmp/v")" = "$("$cc" --version | head -1)" ] || fail "--version: not the compiler's"
tail -1 "$tmp/v" | grep -q '^umpcc: ump ' || fail "--version: no ump line"
if q -showme:bogus 2>"$tmp/e"; then fail "-showme:bogus accepted"; fi
grep -q "unknown option -showme:bogus" "$tmp/e" || fail "-showme:bogus message"

# The MPI names: the same wrappers and launcher.
if [ -e "$build/bin/mpicc" ]; then
    [ "$("$build/bin/mpicc" -showme:compile)" = "-I$inc" ] || fail "mpicc -showme:compile"
    [ "$("$build/bin/mpicxx" -showme:link)" = "$(q -showme:link)" ] || fail "mpicxx -showme:link"
    "$build/bin/mpicc" --help | head -1 | grep -q '^usage: mpicc ' || fail "mpicc --help names itself"
    "$build/bin/mpicc" -o "$tmp/hello_mpicc" "$src"
    out=$(env -u LD_LIBRARY_PATH timeout 60 "$build/bin/mpiexec" -n 2 "$tmp/hello_mpicc" 2>&1) || {
        echo "$out"; fail "mpicc program under mpiexec"; }
    [ "$(printf '%s\n' "$out" | grep -c ': ok$')" = 2 ] || { echo "$out"; fail "mpiexec: 2 ok lines"; }
else
    echo "no mpicc in $build/bin: built with UMP_MPI_NAMES=OFF"
fi

# umpcxx: a C++ program (which the C compiler would refuse) builds and runs.
case "$("$build/bin/umpcxx" -show -o x x.cpp)" in
*"-I$inc -o x x.cpp $libs"*) ;;
*) fail "umpcxx -show: $("$build/bin/umpcxx" -show -o x x.cpp)" ;;
esac
"$build/bin/umpcxx" -Wall -Wextra -Werror -o "$tmp/hello_cxx" "$srcxx"
out=$(env -u LD_LIBRARY_PATH timeout 60 "$build/bin/umprun" -n 3 "$tmp/hello_cxx" 2>&1) || {
    echo "$out"; fail "the C++ program under umprun"; }
[ "$(printf '%s\n' "$out" | grep -c ': ok$')" = 3 ] || { echo "$out"; fail "C++: expected 3 ok lines"; }
echo "build-tree umpcc test passed"
