#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# CMake's find_package(MPI) against an installed ump: install into a
# temporary prefix, put PREFIX/bin first on PATH (as a user who "loads" an
# MPI does), configure a project that knows nothing of ump, check that FindMPI
# found ump's mpicc, mpi.h, libump and mpiexec (not another MPI on the
# machine), build it and run it through the mpiexec FindMPI found, -n 2.
# A second configuration names the wrapper with -DMPI_C_COMPILER.
#   findmpi_test.sh <cmake> <build dir> <this test's source dir> [link flags]
# The link flags go to the project's own programs: a libump built with
# sanitizers needs their runtimes linked first (FindMPI keeps only -L, -l
# and -Wl of mpicc's link line).
set -eu
cmake=$1 build=$2 src=$(cd "$3" && pwd) ldextra=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
fail() { echo "FAIL: $*"; exit 1; }

"$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || {
    cat "$tmp/install.log"; fail "cmake --install"; }
[ -x "$prefix/bin/mpicc" ] || { echo "skip: built with UMP_MPI_NAMES=OFF, no mpicc installed"; exit 77; }

# configure NAME ARGS...: configures the project into $tmp/NAME and checks
# what FindMPI reported.
configure() {
    name=$1; shift
    env PATH="$prefix/bin:$PATH" "$cmake" -S "$src/findmpi" -B "$tmp/$name" \
        -DHELLO_SRC="$src/hello_mpi.c" ${ldextra:+"-DCMAKE_EXE_LINKER_FLAGS=$ldextra"} "$@" \
        >"$tmp/$name.log" 2>&1 || {
        cat "$tmp/$name.log"; fail "$name: configuring with find_package(MPI)"; }
    line=$(sed -n 's/^-- FINDMPI|//p' "$tmp/$name.log")
    echo "$name: FindMPI found: $line"
    IFS='|' read -r comp ver inc lib exe npflag <<EOF2
$line
EOF2
    [ "$comp" = "$prefix/bin/mpicc" ] || fail "$name: MPI_C_COMPILER is $comp"
    [ "$ver" = "3.1" ] || fail "$name: MPI_C_VERSION is '$ver'"
    [ "$inc" = "$prefix/include" ] || fail "$name: MPI_C_INCLUDE_DIRS is $inc"
    [ "$lib" = "$prefix/lib/libump.so" ] || fail "$name: MPI_C_LIBRARIES is $lib"
    [ "$exe" = "$prefix/bin/mpiexec" ] || fail "$name: MPIEXEC_EXECUTABLE is $exe"
    "$cmake" --build "$tmp/$name" >>"$tmp/$name.log" 2>&1 || { cat "$tmp/$name.log"; fail "$name: building"; }
    out=$(env -u LD_LIBRARY_PATH timeout 60 "$exe" "$npflag" 2 "$tmp/$name/hello_mpi" 2>&1) || {
        echo "$out"; fail "$name: running through $exe"; }
    [ "$(printf '%s\n' "$out" | grep -c ': ok$')" = 2 ] || { echo "$out"; fail "$name: expected 2 ok lines"; }
}
configure on-path
configure named -DMPI_C_COMPILER="$prefix/bin/mpicc" -DMPIEXEC_EXECUTABLE="$prefix/bin/mpiexec"
echo "FindMPI test passed"
