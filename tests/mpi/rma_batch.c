/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rma_batch.c - the message path's buffers, at the sizes where they
 * change (win.h): operations written straight into a batch (up to 16 KiB
 * of data and their header and runs), copied into it, or sent alone, with
 * the batch's buffer grown on the way (from 4 KiB); the
 * target's scratch buffer (messages up to a full batch that arrive with
 * nothing queued are received there and applied at once), a larger
 * message, and a message that arrives while an earlier one holds the
 * scratch (a put of 64 KiB or more, whose data follow its header); and a
 * batch's buffer reused for the next batch. Windows of MPI_Win_create,
 * which always work by messages. Every rank targets every rank, itself
 * included; every byte is checked.
 *  - puts of each size, then accumulates (MPI_SUM) over them, by
 *    MPI_Put/MPI_Accumulate and by the request forms (never batched);
 *  - runs of MPI_REPLACE accumulates to one place whose sizes cycle
 *    through the thresholds: accumulates of one origin to one place land
 *    in the order issued, so the last one that covers a byte wins;
 *  - thousands of small puts and gets in one epoch (many full batches),
 *    checked at a flush;
 *  - gets whose data come back in their batch's one reply, around its
 *    limits, into a derived datatype too.
 */
#include <stdbool.h>
#include <stdint.h>

#include "mt.h"

/* Message = 64-byte header + 16 bytes per run + data: a contiguous put
 * of D bytes is a message of D + 80 bytes. */
#define HDR     80
#define OP_MAX  (16384 + 256)             /* largest message written into a batch */
#define SCRATCH (64 + 49152 + OP_MAX + 8) /* largest message into the scratch */
#define SPLIT   (64 * 1024)               /* a put this large sends its data apart */
#define REGION  (SPLIT + 4096)            /* bytes of each origin's part of a window */

static unsigned char pat(size_t i, int origin, int target, int seed)
{
    return (unsigned char)(i * 131u + (unsigned)origin * 17u + (unsigned)target * 5u +
                           (unsigned)seed * 29u + (i >> 8));
}

static const size_t sizes[] = {4,
                               8,
                               4096 - HDR - 64,
                               4096,
                               OP_MAX - HDR - 8,
                               OP_MAX - HDR,
                               OP_MAX - HDR + 4,
                               OP_MAX - HDR + 8,
                               SCRATCH - HDR - 4,
                               SCRATCH - HDR,
                               SCRATCH - HDR + 4,
                               SPLIT - 4,
                               SPLIT,
                               SPLIT + 4};

/* Each origin puts pattern bytes into its part of every target's window,
 * then adds 1..n to them as ints: by the plain calls (batched when small)
 * or the request forms (sent alone). */
static void test_sizes(bool reqs)
{
    size_t wsize = (size_t)mt_size * REGION;
    unsigned char *base = calloc(1, wsize), *buf = malloc(REGION), *got = malloc(REGION);
    int *ones = malloc(REGION);
    MPI_Win win;
    CALL(MPI_Win_create(base, (MPI_Aint)wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k];
        int seed = (int)k + (reqs ? 100 : 0);
        for (size_t i = 0; i < n / 4; i++)
            ones[i] = (int)i + 1;
        CALL(MPI_Win_lock_all(0, win));
        for (int t = 0; t < mt_size; t++) {
            for (size_t i = 0; i < n; i++)
                buf[i] = pat(i, mt_rank, t, seed);
            MPI_Aint at = (MPI_Aint)mt_rank * REGION;
            MPI_Request r[2];
            if (reqs) {
                CALL(MPI_Rput(buf, (int)n, MPI_BYTE, t, at, (int)n, MPI_BYTE, win, &r[0]));
                CALL(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
            } else {
                CALL(MPI_Put(buf, (int)n, MPI_BYTE, t, at, (int)n, MPI_BYTE, win));
            }
            /* A put and an accumulate to one place are not ordered. */
            CALL(MPI_Win_flush(t, win));
            if (reqs) {
                CALL(MPI_Raccumulate(ones, (int)(n / 4), MPI_INT, t, at, (int)(n / 4), MPI_INT,
                                     MPI_SUM, win, &r[1]));
                CALL(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
            } else {
                CALL(MPI_Accumulate(ones, (int)(n / 4), MPI_INT, t, at, (int)(n / 4), MPI_INT,
                                    MPI_SUM, win));
            }
        }
        CALL(MPI_Win_flush_all(win));
        for (int t = 0; t < mt_size; t++) {
            memset(got, 0, n);
            CALL(MPI_Get(got, (int)n, MPI_BYTE, t, (MPI_Aint)mt_rank * REGION, (int)n, MPI_BYTE,
                         win));
            CALL(MPI_Win_flush(t, win));
            for (size_t i = 0; i < n; i++)
                buf[i] = pat(i, mt_rank, t, seed);
            for (size_t i = 0; i < n / 4; i++) {
                int v;
                memcpy(&v, buf + 4 * i, 4);
                v = (int)((unsigned)v + (unsigned)ones[i]);
                memcpy(buf + 4 * i, &v, 4);
            }
            size_t bad = n;
            for (size_t i = 0; i < n && bad == n; i++)
                if (got[i] != buf[i]) bad = i;
            CHECK(bad == n, "%s of %zu bytes to rank %d: byte %zu is %u, want %u",
                  reqs ? "Rput+Raccumulate" : "Put+Accumulate", n, t, bad, bad < n ? got[bad] : 0u,
                  bad < n ? buf[bad] : 0u);
        }
        CALL(MPI_Win_unlock_all(win));
    }
    CALL(MPI_Win_free(&win));
    free(base);
    free(buf);
    free(got);
    free(ones);
}

/* MPI_REPLACE accumulates of value j over the first counts[j % 6] ints of
 * the origin's part, with no flush between them; a put of 64 KiB to the
 * next part now and then (its header holds the target's scratch while its
 * data come), always the same bytes from the same buffer. */
static void test_replace_order(void)
{
    static const int counts[] = {1,
                                 (OP_MAX - HDR) / 4,
                                 (OP_MAX - HDR) / 4 + 1,
                                 (SCRATCH - HDR) / 4,
                                 (SCRATCH - HDR) / 4 + 1,
                                 (SPLIT + 4096) / 4 / 2};
    enum { ROUNDS = 60, NC = 6 };
    size_t part = 2 * REGION, wsize = (size_t)mt_size * part;
    /* One large buffer per target, written once: a put's origin buffer
     * must not change until the put completes. */
    unsigned char *base = calloc(1, wsize), *big = malloc((size_t)mt_size * SPLIT);
    for (int t = 0; t < mt_size; t++)
        for (size_t i = 0; i < SPLIT; i++)
            big[(size_t)t * SPLIT + i] = pat(i, mt_rank, t, 99);
    int *vals = malloc(REGION), *want = calloc(1, REGION), *got = malloc(REGION);
    MPI_Win win;
    CALL(MPI_Win_create(base, (MPI_Aint)wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CALL(MPI_Win_lock_all(0, win));
    for (int j = 1; j <= ROUNDS; j++) {
        int c = counts[j % NC];
        for (int i = 0; i < c; i++)
            vals[i] = j * 100000 + i;
        for (int t = 0; t < mt_size; t++) {
            MPI_Aint at = (MPI_Aint)mt_rank * (MPI_Aint)part;
            CALL(MPI_Accumulate(vals, c, MPI_INT, t, at, c, MPI_INT, MPI_REPLACE, win));
            if (j % 7 == 0)
                CALL(MPI_Put(big + (size_t)t * SPLIT, SPLIT, MPI_BYTE, t, at + REGION, SPLIT,
                             MPI_BYTE, win));
        }
        for (int i = 0; i < c; i++)
            want[i] = vals[i];
    }
    CALL(MPI_Win_flush_all(win));
    int c = (REGION / 4 / 2);
    for (int t = 0; t < mt_size; t++) {
        MPI_Aint at = (MPI_Aint)mt_rank * (MPI_Aint)part;
        CALL(MPI_Get(got, c, MPI_INT, t, at, c, MPI_INT, win));
        CALL(MPI_Win_flush(t, win));
        int bad = -1;
        for (int i = 0; i < c && bad < 0; i++)
            if (got[i] != want[i]) bad = i;
        CHECK(bad < 0, "replace accumulates on rank %d: int %d is %d, want %d", t, bad,
              bad >= 0 ? got[bad] : 0, bad >= 0 ? want[bad] : 0);
        unsigned char *g = malloc(SPLIT);
        CALL(MPI_Get(g, SPLIT, MPI_BYTE, t, at + REGION, SPLIT, MPI_BYTE, win));
        CALL(MPI_Win_flush(t, win));
        size_t bb = SPLIT;
        for (size_t i = 0; i < SPLIT && bb == SPLIT; i++)
            if (g[i] != pat(i, mt_rank, t, 99)) bb = i;
        CHECK(bb == SPLIT, "large put on rank %d: byte %zu wrong", t, bb);
        free(g);
    }
    CALL(MPI_Win_unlock_all(win));
    CALL(MPI_Win_free(&win));
    free(base);
    free(big);
    free(vals);
    free(want);
    free(got);
}

/* Thousands of 24-byte puts to distinct places, in a second epoch mixed
 * with gets of 16 bytes from what the first epoch put: many full batches
 * in a row, some awaiting replies. */
static void test_many_batches(void)
{
    enum { N = 3000, P = 24, G = 16 };
    size_t half = (size_t)N * P, part = 2 * half, wsize = (size_t)mt_size * part;
    unsigned char *base = calloc(1, wsize), *buf = malloc(half);
    unsigned char *got = malloc((size_t)N * G);
    MPI_Win win;
    CALL(MPI_Win_create(base, (MPI_Aint)wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (int round = 0; round < 2; round++) {
        CALL(MPI_Win_lock_all(0, win));
        for (int t = 0; t < mt_size; t++) {
            for (size_t i = 0; i < half; i++)
                buf[i] = pat(i, mt_rank, t, 7 + round);
            memset(got, 0, (size_t)N * G);
            size_t at0 = (size_t)mt_rank * part;
            for (int k = 0; k < N; k++) {
                MPI_Aint at = (MPI_Aint)(at0 + (size_t)round * half + (size_t)k * P);
                if (round)
                    CALL(MPI_Get(got + (size_t)k * G, G, MPI_BYTE, t,
                                 (MPI_Aint)(at0 + (size_t)k * P), G, MPI_BYTE, win));
                CALL(MPI_Put(buf + (size_t)k * P, P, MPI_BYTE, t, at, P, MPI_BYTE, win));
            }
            CALL(MPI_Win_flush(t, win));
            for (int k = 0; round && k < N; k++)
                for (int i = 0; i < G; i++) {
                    unsigned char w = pat((size_t)k * P + (size_t)i, mt_rank, t, 7);
                    unsigned char v = got[(size_t)k * G + (size_t)i];
                    CHECK(v == w, "get %d byte %d from rank %d is %u, want %u", k, i, t, v, w);
                }
        }
        CALL(MPI_Win_unlock_all(win));
        CALL(MPI_Barrier(MPI_COMM_WORLD));
        /* Each target checks every origin's part. */
        for (int o = 0; o < mt_size; o++) {
            const unsigned char *p = base + (size_t)o * part + (size_t)round * half;
            size_t bad = half;
            for (size_t i = 0; i < half && bad == half; i++)
                if (p[i] != pat(i, o, mt_rank, 7 + round)) bad = i;
            CHECK(bad == half, "round %d: rank %d's puts: byte %zu wrong", round, o, bad);
        }
        CALL(MPI_Barrier(MPI_COMM_WORLD));
    }
    CALL(MPI_Win_free(&win));
    free(base);
    free(buf);
    free(got);
}

/* Gets whose data come back in their batch's one reply (win.h: up to
 * 16 KiB each, 32 KiB a reply): sizes around both limits in a row, so
 * replies fill and new batches start; a get into a vector of ints at the
 * origin (unpacked from the reply), whose datatype is freed before the
 * flush; and a get alone in its batch (it replies on its own). Every
 * origin reads every target's window, which its owner filled. */
#define JOIN_MAX 16384
static void test_joined_gets(void)
{
    static const size_t sizes[] = {1,
                                   8,
                                   100,
                                   4096,
                                   JOIN_MAX - 1,
                                   JOIN_MAX,
                                   JOIN_MAX,
                                   JOIN_MAX + 1,
                                   3,
                                   2 * JOIN_MAX,
                                   7,
                                   JOIN_MAX,
                                   9,
                                   JOIN_MAX - 8,
                                   16};
    enum { NS = sizeof(sizes) / sizeof(sizes[0]), WS = 256 * 1024, VN = 64, VB = 3, VS = 5 };
    unsigned char *base = malloc(WS), *got = calloc(1, WS);
    for (size_t i = 0; i < WS; i++)
        base[i] = pat(i, mt_rank, 0, 55);
    int *vec = calloc(VN * VS, sizeof(int));
    MPI_Win win;
    CALL(MPI_Win_create(base, WS, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CALL(MPI_Win_lock_all(0, win));
    for (int t = 0; t < mt_size; t++) {
        /* Gets of every size from distinct places, then a vector. */
        size_t at = (size_t)mt_rank * 64, to = 0, where[NS];
        for (size_t k = 0; k < NS; k++) {
            where[k] = to;
            CALL(MPI_Get(got + to, (int)sizes[k], MPI_BYTE, t, (MPI_Aint)(at + to), (int)sizes[k],
                         MPI_BYTE, win));
            to += sizes[k] + 8;
        }
        MPI_Datatype v;
        CALL(MPI_Type_vector(VN, VB, VS, MPI_INT, &v));
        CALL(MPI_Type_commit(&v));
        memset(vec, 0xff, VN * VS * sizeof(int));
        CALL(MPI_Get(vec, 1, v, t, (MPI_Aint)to, VN * VB * 4, MPI_BYTE, win));
        CALL(MPI_Type_free(&v));
        CALL(MPI_Win_flush(t, win));
        for (size_t k = 0; k < NS; k++) {
            size_t bad = sizes[k];
            for (size_t i = 0; i < sizes[k] && bad == sizes[k]; i++)
                if (got[where[k] + i] != pat(at + where[k] + i, t, 0, 55)) bad = i;
            CHECK(bad == sizes[k], "get %zu (%zu bytes) from rank %d: byte %zu wrong", k, sizes[k],
                  t, bad);
        }
        const unsigned char *vb = (const unsigned char *)vec;
        size_t n = 0, bad = SIZE_MAX;
        for (int b = 0; b < VN; b++)
            for (size_t i = 0; i < VB * sizeof(int); i++, n++)
                if (bad == SIZE_MAX &&
                    vb[(size_t)b * VS * sizeof(int) + i] != pat(to + n, t, 0, 55))
                    bad = n;
        for (int b = 0; b < VN; b++) /* the gaps of the vector untouched */
            for (size_t i = VB * sizeof(int); i < VS * sizeof(int); i++)
                if (bad == SIZE_MAX && vb[(size_t)b * VS * sizeof(int) + i] != 0xff) bad = 1u << 30;
        CHECK(bad == SIZE_MAX, "vector get from rank %d: byte %zu wrong", t, bad);
        /* A get alone in its batch. */
        memset(got, 0, 256);
        CALL(MPI_Get(got, 200, MPI_BYTE, t, 5, 200, MPI_BYTE, win));
        CALL(MPI_Win_flush(t, win));
        bad = 200;
        for (size_t i = 0; i < 200 && bad == 200; i++)
            if (got[i] != pat(5 + i, t, 0, 55)) bad = i;
        CHECK(bad == 200, "lone get from rank %d: byte %zu wrong", t, bad);
    }
    CALL(MPI_Win_unlock_all(win));
    CALL(MPI_Win_free(&win));
    free(base);
    free(got);
    free(vec);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "rma_batch");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_sizes(false);
    test_sizes(true);
    test_replace_order();
    test_many_batches();
    test_joined_gets();
    return mt_done();
}
