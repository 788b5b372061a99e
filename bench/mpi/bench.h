/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench.h - the little every MPI benchmark in bench/mpi shares: options,
 * the timing loop, the table and the CSV. Standard MPI only, so a program
 * builds with umpcc, mpicc.openmpi and mpicc.mpich alike.
 *
 * Common options: --quick (shorter points, fewer sizes), --time S (seconds
 * per point, default 0.2, 0.05 with --quick), --min/--max BYTES, --csv FILE.
 * Every row is  bench,variant,ranks,bytes,time_us,MBps  (1 MB = 10^6 B).
 */
#ifndef BENCH_H
#define BENCH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

struct bopt {
    int quick;
    double time;
    size_t min, max;
    const char *csv;
    int rank, size;
    FILE *out;
};

static struct bopt B;

static inline size_t b_parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end == 'k' || *end == 'K') v <<= 10;
    if (*end == 'm' || *end == 'M') v <<= 20;
    return (size_t)v;
}

static inline void b_die(const char *what)
{
    fprintf(stderr, "bench: rank %d: %s\n", B.rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* Parses the common options; leaves unknown ones to the caller via *extra. */
static inline void b_init(int *argc, char ***argv, size_t dmin, size_t dmax,
                          int (*extra)(int argc, char **argv, int *i))
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &B.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &B.size);
    B.time = -1;
    B.min = dmin;
    B.max = dmax;
    for (int i = 1; i < *argc; i++) {
        char **a = *argv;
        if (!strcmp(a[i], "--quick"))
            B.quick = 1;
        else if (!strcmp(a[i], "--time") && i + 1 < *argc)
            B.time = atof(a[++i]);
        else if (!strcmp(a[i], "--min") && i + 1 < *argc)
            B.min = b_parse_size(a[++i]);
        else if (!strcmp(a[i], "--max") && i + 1 < *argc)
            B.max = b_parse_size(a[++i]);
        else if (!strcmp(a[i], "--csv") && i + 1 < *argc)
            B.csv = a[++i];
        else if (!extra || !extra(*argc, a, &i)) {
            if (B.rank == 0) fprintf(stderr, "bench: unknown argument %s\n", a[i]);
            MPI_Finalize();
            exit(2);
        }
    }
    if (B.time < 0) B.time = B.quick ? 0.05 : 0.2;
    if (B.rank == 0 && B.csv) {
        B.out = fopen(B.csv, "w");
        if (!B.out) b_die("cannot open the CSV file");
        fprintf(B.out, "bench,variant,ranks,bytes,time_us,MBps\n");
    }
    if (B.rank == 0)
        printf("%-14s %-12s %6s %10s %12s %12s\n", "bench", "variant", "ranks", "bytes", "time_us",
               "MB/s");
}

/* One row, printed and written by rank 0. */
static inline void b_row(const char *bench, const char *variant, int ranks, size_t bytes,
                         double sec, double moved)
{
    if (B.rank != 0) return;
    double us = sec * 1e6, mbps = sec > 0 ? moved / sec / 1e6 : 0;
    printf("%-14s %-12s %6d %10zu %12.3f %12.1f\n", bench, variant, ranks, bytes, us, mbps);
    fflush(stdout);
    if (B.out) fprintf(B.out, "%s,%s,%d,%zu,%.4f,%.2f\n", bench, variant, ranks, bytes, us, mbps);
}

static inline void b_end(void)
{
    if (B.out) fclose(B.out);
    MPI_Finalize();
}

/*
 * Times fn(ctx, n), which runs n iterations of one collective pattern on
 * every rank of comm. Warm-up, then a calibration decided by rank 0 (so all
 * ranks run the same count), then the timed run of >= B.time seconds.
 * Returns seconds per iteration (the slowest rank's).
 */
typedef void (*b_loop_fn)(void *ctx, long n);

static inline double b_time(MPI_Comm comm, b_loop_fn fn, void *ctx)
{
    long n = 1;
    fn(ctx, 2); /* warm-up */
    for (;;) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        fn(ctx, n);
        double dt = MPI_Wtime() - t0, mx;
        MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (mx >= B.time / 8 || n >= (1L << 24)) {
            long want = (long)(B.time / (mx / (double)n)) + 1;
            if (want < 1) want = 1;
            n = want;
            break;
        }
        n *= 4;
    }
    MPI_Bcast(&n, 1, MPI_LONG, 0, comm);
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    fn(ctx, n);
    double dt = MPI_Wtime() - t0, mx;
    MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, comm);
    return mx / (double)n;
}

/* Patterned bytes: fill and check, for the one verified exchange per point. */
static inline unsigned char b_pat(size_t i, size_t salt)
{
    return (unsigned char)(i * 131 + salt * 7 + 3);
}
static inline void b_fill(void *p, size_t n, size_t salt)
{
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = b_pat(i, salt);
}
static inline int b_check(const void *p, size_t n, size_t salt)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != b_pat(i, salt)) return 1;
    return 0;
}

/* Sizes 0 (if min is 0), 1, 2, 4 ... max; --quick takes every other power. */
static inline size_t b_next(size_t s)
{
    if (s == 0) return 1;
    return B.quick ? s * 4 : s * 2;
}

static inline void *b_alloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, n ? n : 1) != 0) b_die("out of memory");
    memset(p, 0, n ? n : 1);
    return p;
}

#endif
