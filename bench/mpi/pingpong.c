/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pingpong (MPI) - latency and bandwidth between two ranks, MPI_Send/MPI_Recv.
 *
 *   mpicc -O2 -o pingpong-mpi bench/mpi/pingpong.c
 *   mpirun -n 2 ./pingpong-mpi [--min BYTES] [--max BYTES] [--iters N]
 *                              [--time SECONDS] [--csv FILE] [--pin]
 *
 * For sizes 0, 1, 2, 4 ... max (default 4 MiB) rank 0 sends to rank 1 and
 * rank 1 sends back. Before timing, each size is exchanged once with a
 * patterned buffer and checked on both sides; then a warm-up; then a timed
 * loop whose iteration count is chosen so one size lasts about --time
 * seconds (0.1 by default; fewer iterations for big messages). The table
 * gives the half round-trip time (one-way latency) and the bandwidth that
 * implies (size / half round trip, 1 MB = 10^6 bytes). --pin binds rank r
 * to CPU r. Ranks other than 0 and 1 only wait.
 * It is the same program as bench/pingpong.c (which uses ump.h) and prints
 * the same table, so the two can be compared line by line. Any MPI builds it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity */
#endif
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define CTX      1
#define TAG_PING 1
#define TAG_CTRL 2

static void die(const char *what)
{
    fprintf(stderr, "pingpong: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* MPI_ERRORS_ARE_FATAL is the default: a failed call does not return. */
#define CALL(x) (void)(x)

static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end == 'k' || *end == 'K') v <<= 10;
    if (*end == 'm' || *end == 'M') v <<= 20;
    if (*end == 'g' || *end == 'G') v <<= 30;
    return (size_t)v;
}

static void fill(unsigned char *b, size_t n, int who, size_t size)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 131 + size * 7 + (size_t)who * 29);
}

static int check(const unsigned char *b, size_t n, int who, size_t size)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i * 131 + size * 7 + (size_t)who * 29)) return (int)i + 1;
    return 0;
}

/* One round trip as rank `me` (0 pings, 1 pongs). */
static void round_trip(int me, unsigned char *sb, unsigned char *rb, size_t n)
{
    if (me == 0) {
        CALL(MPI_Send(sb, (int)n, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD));
        CALL(MPI_Recv(rb, (int)n, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        CALL(MPI_Recv(rb, (int)n, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CALL(MPI_Send(sb, (int)n, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD));
    }
}

/* Rank 0's value of *v, given to rank 1. */
static void share(int me, long *v)
{
    if (me == 0)
        CALL(MPI_Send(v, 1, MPI_LONG, 1, TAG_CTRL, MPI_COMM_WORLD));
    else
        CALL(MPI_Recv(v, 1, MPI_LONG, 0, TAG_CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    size_t min = 0, max = 4u << 20;
    long fixed_iters = 0;
    double target = 0.1;
    const char *csv = NULL;
    int pin = 0;

    int me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--min") && i + 1 < argc)
            min = parse_size(argv[++i]);
        else if (!strcmp(argv[i], "--max") && i + 1 < argc)
            max = parse_size(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            fixed_iters = atol(argv[++i]);
        else if (!strcmp(argv[i], "--time") && i + 1 < argc)
            target = atof(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv = argv[++i];
        else if (!strcmp(argv[i], "--pin"))
            pin = 1;
        else {
            if (me == 0)
                fprintf(stderr, "usage: pingpong [--min BYTES] [--max BYTES] [--iters N] "
                                "[--time SECONDS] [--csv FILE] [--pin]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (np < 2) {
        fprintf(stderr, "pingpong: needs 2 ranks (mpirun -n 2 ...)\n");
        MPI_Finalize();
        return 2;
    }
    if (pin) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(me, &set);
        if (sched_setaffinity(0, sizeof(set), &set) != 0) perror("pingpong: sched_setaffinity");
    }
    if (me > 1) {
        MPI_Finalize();
        return 0;
    }

    unsigned char *sb = malloc(max ? max : 1), *rb = malloc(max ? max : 1);
    if (!sb || !rb) die("out of memory");
    FILE *out = NULL;
    if (me == 0) {
        if (csv && !(out = fopen(csv, "w"))) {
            perror(csv);
            die("cannot open the CSV file");
        }
        if (out) fprintf(out, "size,iters,latency_us,bandwidth_MBps\n");
        char host[MPI_MAX_PROCESSOR_NAME];
        int hl;
        MPI_Get_processor_name(host, &hl);
        printf("# MPI pingpong: ranks 0 (%s) and 1, one-way latency = round trip / 2\n", host);
        printf("%12s %10s %14s %16s\n", "bytes", "iters", "latency(us)", "bandwidth(MB/s)");
    }

    for (size_t n = 0; n <= max; n = n ? n * 2 : 1) {
        if (n < min) continue;
        /* Check the data once, both ways, outside the timed loop. */
        fill(sb, n, me, n);
        memset(rb, 0, n);
        round_trip(me, sb, rb, n);
        int bad = check(rb, n, 1 - me, n);
        if (bad) {
            fprintf(stderr, "pingpong: rank %d: %zu-byte message wrong at byte %d\n", me, n,
                    bad - 1);
            die("data check failed");
        }

        /* Rank 0 times doubling batches until one lasts a tenth of the
         * target, picks the iteration count from it and tells rank 1. */
        long iters = fixed_iters;
        if (!iters) {
            for (long k = 1;; k *= 2) {
                long batch = me == 0 ? k : 0;
                share(me, &batch);
                if (!batch) break;
                double t0 = MPI_Wtime();
                for (long i = 0; i < batch; i++)
                    round_trip(me, sb, rb, n);
                double dt = MPI_Wtime() - t0;
                if (me == 0 && (dt >= target / 10 || k >= (1L << 20))) {
                    long cap = n >= (1u << 20) ? 500 : n >= (64u << 10) ? 5000 : 1000000;
                    iters = (long)(target / (dt / (double)batch)) + 1;
                    if (iters > cap) iters = cap;
                    if (iters < 5) iters = 5;
                    batch = 0;
                    share(me, &batch);
                    break;
                }
            }
            share(me, &iters);
        }

        long warm = iters / 10 + 1;
        for (long i = 0; i < warm; i++)
            round_trip(me, sb, rb, n);
        double t0 = MPI_Wtime();
        for (long i = 0; i < iters; i++)
            round_trip(me, sb, rb, n);
        double dt = MPI_Wtime() - t0;

        if (me == 0) {
            double lat_us = dt / (double)iters / 2 * 1e6;
            double bw = lat_us > 0 ? (double)n / lat_us : 0;
            printf("%12zu %10ld %14.2f %16.1f\n", n, iters, lat_us, bw);
            if (out) fprintf(out, "%zu,%ld,%.3f,%.2f\n", n, iters, lat_us, bw);
        }
        if (n == max) break;
    }
    if (out) fclose(out);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
