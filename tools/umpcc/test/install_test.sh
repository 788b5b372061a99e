#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Installs the build into a temporary prefix, builds an MPI program with the
# installed umpcc, with pkg-config and with find_package(ump), and runs each
# with the installed umprun -n 2.
#   install_test.sh <cmake> <build dir> <this test's source dir>
set -eu
cmake=$1 build=$2 src=$(cd "$3" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix with space"

"$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || {
    cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
for f in bin/umprun bin/umpcc bin/umpcxx bin/ump_info include/ump.h include/mpi.h lib/libump.so lib/libump.a \
         lib/pkgconfig/ump.pc lib/cmake/ump/umpConfig.cmake lib/cmake/ump/umpConfigVersion.cmake; do
    [ -e "$prefix/$f" ] || { echo "FAIL: $f is not installed"; exit 1; }
done

run() { # name, program
    # No LD_LIBRARY_PATH: programs find libump through their rpath.
    out=$(env -u LD_LIBRARY_PATH timeout 60 "$prefix/bin/umprun" -n 2 "$2" 2>&1) || {
        echo "$out"; echo "FAIL: $1 program under umprun"; exit 1; }
    n=$(printf '%s\n' "$out" | grep -c ': ok$' || true)
    [ "$n" = 2 ] || { echo "$out"; echo "FAIL: $1: expected 2 ok lines"; exit 1; }
    echo "ok: $1"
}

# 1. umpcc, with -show naming the installed paths (quoted: the prefix has a
#    space), in a form a shell can run as it is printed.
show=$("$prefix/bin/umpcc" -show -o x x.c)
case "$show" in
*"-I\"$prefix/include\""*"-L\"$prefix/lib\" -lump"*) ;;
*) echo "FAIL: umpcc -show: $show"; exit 1 ;;
esac
eval "$("$prefix/bin/umpcc" -show -o "$tmp/hello_eval" "$src/hello_mpi.c")" || {
    echo "FAIL: running what umpcc -show printed"; exit 1; }
run umpcc-show-eval "$tmp/hello_eval"
"$prefix/bin/umpcc" -o "$tmp/hello_cc" "$src/hello_mpi.c"
run umpcc "$tmp/hello_cc"
"$prefix/bin/umpcc" -c -o "$tmp/hello.o" "$src/hello_mpi.c"
"$prefix/bin/umpcc" -o "$tmp/hello_2step" "$tmp/hello.o"
run umpcc-two-step "$tmp/hello_2step"

# 2. pkg-config.
if command -v pkg-config >/dev/null 2>&1; then
    # pkg-config output is word-split on purpose; the prefix has a space,
    # so hand it a path through a symlink without one.
    ln -s "$prefix" "$tmp/p"
    flags=$(PKG_CONFIG_PATH="$tmp/p/lib/pkgconfig" pkg-config --cflags --libs ump)
    cc -o "$tmp/hello_pc" "$src/hello_mpi.c" $flags
    run pkg-config "$tmp/hello_pc"
else
    echo "skip: pkg-config is not installed"
fi

# 3. find_package(ump) in a user's CMake project.
"$cmake" -S "$src/findpkg" -B "$tmp/fp" -DCMAKE_PREFIX_PATH="$prefix" \
    -DHELLO_SRC="$src/hello_mpi.c" \
    >"$tmp/fp.log" 2>&1 || { cat "$tmp/fp.log"; echo "FAIL: configuring with find_package(ump)"; exit 1; }
"$cmake" --build "$tmp/fp" >>"$tmp/fp.log" 2>&1 || { cat "$tmp/fp.log"; echo "FAIL: building"; exit 1; }
run find_package "$tmp/fp/hello_mpi"

# 4. Man pages, when the build made them (pandoc installed).
if [ -e "$build/man/umprun.1" ]; then
    man1="$prefix/share/man/man1"
    for p in umprun umpcc ump_info umpcxx; do
        [ -e "$man1/$p.1" ] || { echo "FAIL: man page $p.1 is not installed"; exit 1; }
    done
    if [ -e "$prefix/bin/mpiexec" ]; then
        for p in mpicc mpicxx mpiexec mpirun; do
            [ -e "$man1/$p.1" ] || { echo "FAIL: man page $p.1 is not installed"; exit 1; }
        done
    fi
    if command -v lexgrog >/dev/null 2>&1; then # what whatis(1) and apropos(1) read
        [ "$(lexgrog "$man1/umprun.1")" = "$man1/umprun.1: \"umprun - start an ump job\"" ] || {
            lexgrog "$man1/umprun.1"; echo "FAIL: umprun.1 has no proper NAME section"; exit 1; }
        lexgrog "$man1/mpicc.1" 2>/dev/null | grep -q '"umpcc - compile MPI programs' ||
            [ ! -e "$man1/mpicc.1" ] || { echo "FAIL: mpicc.1"; exit 1; }
        lexgrog "$man1/ump_info.1" | grep -q '"ump_info - ' || { echo "FAIL: ump_info.1"; exit 1; }
    fi
    if command -v man >/dev/null 2>&1; then
        for p in umprun umpcc ump_info; do
            MANWIDTH=100 man -l "$man1/$p.1" 2>/dev/null | grep -q '^OPTIONS' || {
                echo "FAIL: man -l $p.1 shows no OPTIONS section"; exit 1; }
        done
        MANWIDTH=100 man -l "$man1/umprun.1" 2>/dev/null | grep -q -- '--oversubscribe' || {
            echo "FAIL: umprun.1 does not describe --oversubscribe"; exit 1; }
    fi
    echo "ok: man pages"
else
    echo "skip: no man pages in the build (pandoc was not found when it was configured)"
fi

# 5. The installed ump_info runs (it finds libump through its rpath).
"$prefix/bin/ump_info" >/dev/null || { echo "FAIL: installed ump_info"; exit 1; }
echo "install test passed"
