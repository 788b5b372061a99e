#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The rows a Java benchmark writes with --csv: bench/mpi's columns, the
# last two the cache-line hop between the two ranks around each point
# (empty when it could not be measured: a busy machine), so bench/compare
# places Java's points as it places C's.
# Usage: bench_csv.sh UMPRUN CLASSPATH CLASS [ARGS...]
set -eu
umprun=$1 cp=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$umprun" -n 2 --timeout 150 java -cp "$cp" "$@" --csv "$tmp/rows.csv" >/dev/null
awk -F, '
NR == 1 { head = ($0 == "bench,variant,ranks,bytes,time_us,MBps,hop0_ns,hop1_ns"); next }
{
    rows++
    if (NF != 8 || !($5 + 0 > 0)) { bad = 1; print "bench_csv: bad row " NR ": " $0 }
    for (i = 7; i <= 8; i++)
        if ($i != "") { if ($i + 0 > 0) hops++; else { bad = 1; print "bench_csv: bad hop in row " NR ": " $0 } }
}
END {
    if (!head) print "bench_csv: wrong header"
    if (!rows) print "bench_csv: no rows"
    print "bench_csv: " rows + 0 " rows, " hops + 0 " hops measured"
    exit !(head && rows && !bad)
}' "$tmp/rows.csv"
