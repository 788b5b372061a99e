#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Installs ump into a temporary prefix, then from outside the build tree:
# find_package(ump) names the jar, the JNI library and umpjavac; umpjavac
# compiles a program; the installed umprun runs it with no CLASSPATH, the
# jar loading libump_java.so from beside itself.
# Usage: install_test.sh CMAKE BUILD_DIR SMOKE_JAVA
set -eu
cmake=$1 build=$2 smoke=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cmake" --install "$build" --prefix "$tmp/p" >/dev/null
for f in lib/ump.jar lib/libump_java.so bin/umpjavac lib/cmake/ump/umpJavaConfig.cmake; do
    [ -e "$tmp/p/$f" ] || { echo "install_test: $f not installed"; exit 1; }
done
mkdir "$tmp/cm"
cat >"$tmp/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(t C)
find_package(ump REQUIRED)
if(NOT ump_JAVA_FOUND OR NOT EXISTS "${ump_JAVA_JAR}" OR NOT EXISTS "${ump_JAVA_LIBRARY}")
  message(FATAL_ERROR "find_package(ump): no Java binding (${ump_JAVA_JAR})")
endif()
message(STATUS "JAR=${ump_JAVA_JAR}")
CM
"$cmake" -S "$tmp/cm" -B "$tmp/cm/b" -DCMAKE_PREFIX_PATH="$tmp/p" | grep -q "JAR=$tmp/p/lib/ump.jar"
mkdir "$tmp/run"
cp "$smoke" "$tmp/run/"
cd "$tmp/run"
# The build tree must not be what makes this work.
env -u CLASSPATH -u LD_LIBRARY_PATH "$tmp/p/bin/umpjavac" Smoke.java
env -u CLASSPATH -u LD_LIBRARY_PATH "$tmp/p/bin/umprun" -n 2 --timeout 100 java Smoke
