/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rma_sync.c - synchronisation of windows (MPI 3.1 11.5): fences with
 * assertions, post-start-complete-wait (with Win_wait and a Win_test
 * loop, a ring and a star), exclusive locks serialising a
 * read-modify-write from every rank, shared locks read concurrently,
 * exclusive epochs of large gets and puts that must not overlap,
 * lock_all with each flush variant, and Win_sync ordering direct stores
 * into a shared window. Every rank is origin and target.
 */
#include "mt.h"

static int right(void)
{
    return (mt_rank + 1) % mt_size;
}

static int left(void)
{
    return (mt_rank + mt_size - 1) % mt_size;
}

/* Many fence epochs in a row, each with its own data and assertions. */
static void test_fence(void)
{
    enum { N = 2048, ROUNDS = 20 };
    unsigned char *base = NULL, src[N];
    MPI_Win win;
    CALL(MPI_Win_allocate(N, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    CALL(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    for (int r = 0; r < ROUNDS; r++) {
        mt_fill(src, N, (unsigned)(r * 16 + mt_rank));
        CALL(MPI_Put(src, N, MPI_BYTE, right(), 0, N, MPI_BYTE, win));
        CALL(MPI_Win_fence(MPI_MODE_NOSTORE, win));
        char what[64];
        snprintf(what, sizeof(what), "fence round %d", r);
        CHECK_DATA(base, N, (unsigned)(r * 16 + left()), what);
        /* An epoch with no puts into the window (gets only). */
        unsigned char back[N];
        CALL(MPI_Get(back, N, MPI_BYTE, left(), 0, N, MPI_BYTE, win));
        CALL(MPI_Win_fence(MPI_MODE_NOPUT, win));
        int l2 = (mt_rank + 2 * mt_size - 2) % mt_size;
        CHECK_DATA(back, N, (unsigned)(r * 16 + l2), "MPI_Get in a NOPUT epoch");
    }
    CALL(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CALL(MPI_Win_free(&win));
}

/* PSCW: a ring (post to left, start on right) and a star (everybody
 * accesses rank 0), completed with MPI_Win_wait and with MPI_Win_test. */
static void test_pscw(void)
{
    enum { N = 1000 };
    int *base = NULL, src[N];
    MPI_Win win;
    MPI_Group world, gl, gr, g0, others;
    CALL(MPI_Win_allocate(N * sizeof(int) * (size_t)mt_size, sizeof(int), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &base, &win));
    CALL(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int l = left(), r = right(), zero = 0;
    CALL(MPI_Group_incl(world, 1, &l, &gl));
    CALL(MPI_Group_incl(world, 1, &r, &gr));
    CALL(MPI_Group_incl(world, 1, &zero, &g0));
    CALL(MPI_Group_excl(world, 1, &zero, &others));
    for (int round = 0; round < 6; round++) {
        for (int i = 0; i < N; i++)
            src[i] = round * 1000000 + mt_rank * 1000 + i;
        CALL(MPI_Win_post(gl, 0, win));
        CALL(MPI_Win_start(gr, 0, win));
        CALL(MPI_Put(src, N, MPI_INT, r, 0, N, MPI_INT, win));
        CALL(MPI_Win_complete(win));
        if (round % 2) {
            int flag = 0;
            while (!flag)
                CALL(MPI_Win_test(win, &flag));
        } else {
            CALL(MPI_Win_wait(win));
        }
        for (int i = 0; i < N; i++)
            CHECK(base[i] == round * 1000000 + l * 1000 + i, "PSCW ring round %d [%d] = %d", round,
                  i, base[i]);
    }
    /* Star: every other rank accumulates into its own slot of rank 0. */
    if (mt_rank == 0) {
        for (int i = 0; i < N * mt_size; i++)
            base[i] = 1;
        if (mt_size > 1) {
            CALL(MPI_Win_post(others, 0, win));
            CALL(MPI_Win_wait(win));
        }
        for (int p = 1; p < mt_size; p++)
            for (int i = 0; i < N; i++)
                CHECK(base[p * N + i] == 1 + p * 1000 + i, "PSCW star slot %d [%d] = %d", p, i,
                      base[p * N + i]);
    } else {
        for (int i = 0; i < N; i++)
            src[i] = mt_rank * 1000 + i;
        CALL(MPI_Win_start(g0, 0, win));
        CALL(MPI_Accumulate(src, N, MPI_INT, 0, mt_rank * N, N, MPI_INT, MPI_SUM, win));
        CALL(MPI_Win_complete(win));
    }
    MPI_Group_free(&gl);
    MPI_Group_free(&gr);
    MPI_Group_free(&g0);
    MPI_Group_free(&others);
    MPI_Group_free(&world);
    CALL(MPI_Win_free(&win));
}

/* Exclusive locks make a Get + Put read-modify-write atomic; shared
 * locks let everybody read at once. */
static void test_locks(void)
{
    enum { M = 30 };
    int *base = NULL;
    MPI_Win win;
    CALL(
        MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    base[0] = 0;
    base[1] = 100 + mt_rank;
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < M; i++) {
        int t = i % mt_size, c = -1;
        CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
        CALL(MPI_Get(&c, 1, MPI_INT, t, 0, 1, MPI_INT, win));
        CALL(MPI_Win_flush(t, win));
        c++;
        CALL(MPI_Put(&c, 1, MPI_INT, t, 0, 1, MPI_INT, win));
        CALL(MPI_Win_unlock(t, win));
    }
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    int want = 0;
    for (int i = 0; i < M; i++)
        want += i % mt_size == mt_rank;
    want *= mt_size;
    CHECK(base[0] == want, "counter under exclusive locks is %d, want %d", base[0], want);
    for (int t = 0; t < mt_size; t++) {
        int v = -1;
        CALL(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        CALL(MPI_Get(&v, 1, MPI_INT, t, 1, 1, MPI_INT, win));
        CALL(MPI_Win_unlock(t, win));
        CHECK(v == 100 + t, "read under a shared lock of rank %d: %d", t, v);
    }
    /* Locks to several targets at once. */
    for (int t = 0; t < mt_size; t++)
        CALL(MPI_Win_lock(t == mt_rank ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, t, 0, win));
    for (int t = mt_size - 1; t >= 0; t--)
        CALL(MPI_Win_unlock(t, win));
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    CALL(MPI_Win_free(&win));
}

/* Exclusive epochs do not overlap: odd ranks read rank 0's whole window
 * (1 MiB, a rendezvous on every transport) under exclusive locks while
 * even ranks, rank 0 too, rewrite all of it with one value of their own
 * under theirs. Each read must find one writer's value in every byte: the
 * target gives a lock back only once the bytes of a get it answered from
 * the window have left it, not when it has just started sending them. */
static void test_lock_isolation(void)
{
    enum { N = 1 << 20, ROUNDS = 12 };
    unsigned char *base = NULL, *buf = mt_xmalloc(N);
    MPI_Win win;
    CALL(MPI_Win_allocate(N, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 0, N);
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    int reader = mt_rank % 2 == 1;
    for (int i = 0; i < ROUNDS; i++) {
        CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        if (reader) {
            CALL(MPI_Get(buf, N, MPI_BYTE, 0, 0, N, MPI_BYTE, win));
            CALL(MPI_Win_unlock(0, win));
            size_t k = 1;
            while (k < N && buf[k] == buf[0])
                k++;
            CHECK(k == N,
                  "round %d: a get under an exclusive lock saw two epochs: byte 0 is 0x%02x, "
                  "byte %zu is 0x%02x",
                  i, buf[0], k, k < N ? buf[k] : 0);
        } else {
            memset(buf, 1 + (mt_rank * ROUNDS + i) % 255, N);
            CALL(MPI_Put(buf, N, MPI_BYTE, 0, 0, N, MPI_BYTE, win));
            CALL(MPI_Win_unlock(0, win));
        }
    }
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    CALL(MPI_Win_free(&win));
    free(buf);
}

/* lock_all with each flush: data are visible at the target after a
 * flush, the origin buffer reusable after a local flush. */
static void test_flush(void)
{
    enum { N = 40000 };
    unsigned char *base = NULL, *src = mt_xmalloc(N), *back = mt_xmalloc(N);
    MPI_Win win;
    CALL(MPI_Win_allocate(N, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 0, N);
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    CALL(MPI_Win_lock_all(0, win));
    for (int v = 0; v < 4; v++) {
        mt_fill(src, N, (unsigned)(v * 8 + mt_rank));
        CALL(MPI_Put(src, N, MPI_BYTE, right(), 0, N, MPI_BYTE, win));
        if (v == 0) CALL(MPI_Win_flush(right(), win));
        if (v == 1) CALL(MPI_Win_flush_all(win));
        if (v == 2) {
            CALL(MPI_Win_flush_local(right(), win));
            memset(src, 0xee, N); /* reusable: must not change what lands */
            CALL(MPI_Win_flush(right(), win));
        }
        if (v == 3) {
            CALL(MPI_Win_flush_local_all(win));
            memset(src, 0xee, N);
            CALL(MPI_Win_flush_all(win));
        }
        memset(back, 0, N);
        CALL(MPI_Get(back, N, MPI_BYTE, right(), 0, N, MPI_BYTE, win));
        CALL(MPI_Win_flush_local(right(), win));
        char what[64];
        snprintf(what, sizeof(what), "read back after flush variant %d", v);
        CHECK_DATA(back, N, (unsigned)(v * 8 + mt_rank), what);
    }
    CALL(MPI_Win_unlock_all(win));
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_DATA(base, N, (unsigned)(3 * 8 + left()), "window after the flush epochs");
    CALL(MPI_Win_free(&win));
    free(src);
    free(back);
}

/* A shared window: direct stores, Win_sync + barrier, direct loads of
 * the neighbour's part (the pattern the standard gives for the unified
 * model). */
static void test_win_sync_shared(void)
{
    MPI_Comm node;
    CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nr, ns;
    CALL(MPI_Comm_rank(node, &nr));
    CALL(MPI_Comm_size(node, &ns));
    enum { N = 512 };
    long *mine = NULL;
    MPI_Win win;
    CALL(MPI_Win_allocate_shared(N * sizeof(long), sizeof(long), MPI_INFO_NULL, node, &mine, &win));
    long *peer = NULL;
    MPI_Aint sz = 0;
    int du = 0, pr = (nr + 1) % ns;
    CALL(MPI_Win_shared_query(win, pr, &sz, &du, &peer));
    CHECK(sz == N * (MPI_Aint)sizeof(long) && du == (int)sizeof(long) && peer,
          "MPI_Win_shared_query of rank %d: size %ld unit %d base %p", pr, (long)sz, du,
          (void *)peer);
    CALL(MPI_Win_lock_all(0, win));
    for (int round = 0; round < 10; round++) {
        for (int i = 0; i < N; i++)
            mine[i] = round * 100000L + nr * 1000L + i;
        CALL(MPI_Win_sync(win));
        CALL(MPI_Barrier(node));
        CALL(MPI_Win_sync(win));
        for (int i = 0; i < N; i++)
            CHECK(peer[i] == round * 100000L + pr * 1000L + i,
                  "direct load round %d [%d] of rank %d: %ld", round, i, pr, peer[i]);
        CALL(MPI_Barrier(node));
    }
    CALL(MPI_Win_unlock_all(win));
    CALL(MPI_Win_free(&win));
    CALL(MPI_Comm_free(&node));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "rma_sync");
    test_fence();
    test_pscw();
    test_locks();
    test_lock_isolation();
    test_flush();
    test_win_sync_shared();
    return mt_done();
}
