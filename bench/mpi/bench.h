/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench.h - the little every MPI benchmark in bench/mpi shares: options,
 * the timing loop, the table and the CSV. Standard MPI only, so a program
 * builds with umpcc, mpicc.openmpi and mpicc.mpich alike.
 *
 * Common options: --quick (shorter points, fewer sizes), --time S (seconds
 * per point, default 0.2, 0.05 with --quick), --min/--max BYTES, --csv FILE.
 * Every row is  bench,variant,ranks,bytes,time_us,MBps,hop0_ns,hop1_ns
 * (1 MB = 10^6 B). In a two-rank job on one node, hop0_ns and hop1_ns are
 * the cache-line hop between the two ranks' cores (hop.h) measured just
 * before and just after the point, so bench/compare can tell the placement
 * the point ran in; empty when not measured (more ranks, other nodes, or a
 * machine too busy to say).
 */
#ifndef BENCH_H
#define BENCH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mpi.h>

#include "hop.h"

struct bopt {
    int quick;
    double time;
    size_t min, max;
    const char *csv;
    int rank, size;
    FILE *out;
    struct hop_line *hop; /* shared by ranks 0 and 1 of a two-rank job */
    double hop_ns[2];     /* before and after the last point; < 0 unknown */
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

/* Maps a line shared by the two ranks of a two-rank job when both are on
 * one node (rank 0 creates it, rank 1 opens it by the name it is sent);
 * leaves B.hop NULL otherwise. */
static inline void b_hop_setup(void)
{
    B.hop_ns[0] = B.hop_ns[1] = -1;
    if (B.size != 2) return;
    char name[64] = "";
    int ok = 1, all = 0, fd = -1;
    if (B.rank == 0) {
        snprintf(name, sizeof name, "/bench-hop-%ld-%ld", (long)getpid(), (long)time(NULL));
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        ok = fd >= 0 && ftruncate(fd, sizeof(struct hop_line)) == 0;
    }
    MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (B.rank == 1) {
        fd = shm_open(name, O_RDWR, 0);
        ok = fd >= 0;
    }
    void *p = MAP_FAILED;
    if (ok) p = mmap(NULL, sizeof(struct hop_line), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0) close(fd);
    ok = p != MAP_FAILED;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (B.rank == 0 && fd >= 0) shm_unlink(name);
    if (all) {
        B.hop = p;
        return;
    }
    if (p != MAP_FAILED) munmap(p, sizeof(struct hop_line));
}

/* The hop between the two ranks' cores now, in ns (rank 0's answer; -1
 * when unknown). Both ranks call it. */
static inline double b_hop(void)
{
    if (!B.hop) return -1;
    /* Rank 1 is past the last probe's stop when it reaches the first
     * barrier, and announces itself only after the second. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (B.rank == 0) atomic_store_explicit(&B.hop->v, 0, memory_order_relaxed);
    MPI_Barrier(MPI_COMM_WORLD);
    if (B.rank == 1) {
        hop_follow(B.hop);
        return -1;
    }
    /* 4000 round trips: 0.5 ms near, 2 ms far; at most 20 ms. */
    return hop_lead(B.hop, 4000, 0.02);
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
        fprintf(B.out, "bench,variant,ranks,bytes,time_us,MBps,hop0_ns,hop1_ns\n");
    }
    b_hop_setup();
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
    if (!B.out) return;
    fprintf(B.out, "%s,%s,%d,%zu,%.4f,%.2f,", bench, variant, ranks, bytes, us, mbps);
    for (int i = 0; i < 2; i++) {
        if (B.hop_ns[i] >= 0) fprintf(B.out, "%.1f", B.hop_ns[i]);
        fputc(i ? '\n' : ',', B.out);
    }
}

static inline void b_end(void)
{
    if (B.out) fclose(B.out);
    if (B.hop) munmap(B.hop, sizeof(struct hop_line));
    MPI_Finalize();
}

/*
 * Times fn(ctx, n), which runs n iterations of one collective pattern on
 * every rank of comm. Warm-up, then a calibration decided by rank 0 (so all
 * ranks run the same count), then the timed run of >= B.time seconds.
 * Returns seconds per iteration (the slowest rank's). In a two-rank job the
 * cache-line hop between the ranks is measured before and after (B.hop_ns).
 */
typedef void (*b_loop_fn)(void *ctx, long n);

static inline double b_time(MPI_Comm comm, b_loop_fn fn, void *ctx)
{
    long n = 1;
    B.hop_ns[0] = b_hop();
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
    B.hop_ns[1] = b_hop();
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
