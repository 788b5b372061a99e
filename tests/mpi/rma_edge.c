/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rma_edge.c - one-sided corners that real programs (and mpi4py's suite)
 * reach:
 *  - MPI_Fetch_and_op and MPI_Compare_and_swap have their result written
 *    when the call returns: a program that frees the result buffer before
 *    the epoch ends must not have it written later (heap corruption);
 *  - a zero-count MPI_Get_accumulate with an op that does not suit the
 *    type (MPI_SUM on MPI_BYTE) moves nothing and succeeds;
 *  - accumulates of long double and double at displacements that are not
 *    multiples of the type's alignment give the right sums;
 *  - a flush whose last operation fetched (a get, fetch-and-op or an
 *    Rget) needs no message of its own, yet completes the puts before it
 *    at the target, small (batched) and large (rendezvous) alike;
 *  - passive epochs opened with MPI_MODE_NOCHECK (no lock taken) complete
 *    their operations at unlock, on windows of messages and direct ones;
 *  - many gets in one epoch (small ones wait in a batch, gets of a layout
 *    with many runs do not), mixed with puts, complete at a flush_all and
 *    at a fence with the right bytes;
 *  - two ranks that get from each other while putting large blocks (whose
 *    data go as messages of their own) into each other get and put the
 *    right bytes: a get's reply never takes a put's data or the reverse.
 * Every rank targets every rank, itself included (but in the flush test,
 * which pairs each rank with the next).
 */
#include <stdbool.h>

#include "mt.h"

static void test_result_freed(void)
{
    long *base = NULL;
    MPI_Win win;
    CALL(MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    *base = 0;
    CALL(MPI_Win_fence(0, win));
    for (int t = 0; t < mt_size; t++) {
        long one = 1, *res = malloc(sizeof(long));
        CALL(MPI_Fetch_and_op(&one, res, MPI_LONG, t, 0, MPI_SUM, win));
        long got = *res;
        CHECK(got >= 0 && got < mt_size, "Fetch_and_op on rank %d fetched %ld", t, got);
        free(res); /* before the fence: the reply must already be in */
        long cmp = -1, val = 5, *old = malloc(sizeof(long));
        CALL(MPI_Compare_and_swap(&val, &cmp, old, MPI_LONG, t, 0, win));
        CHECK(*old >= 0, "Compare_and_swap on rank %d fetched %ld", t, *old);
        free(old);
        /* The freed blocks come back to the next allocations: a late
         * reply would overwrite these. */
        long *guard = malloc(sizeof(long));
        *guard = 0x5a5a;
        CALL(MPI_Win_fence(0, win));
        CHECK(*guard == 0x5a5a, "a late reply wrote into memory freed after the call");
        free(guard);
    }
    CHECK(*base == mt_size, "counter %ld after %d increments", *base, mt_size);
    CALL(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CALL(MPI_Win_free(&win));
}

static void test_zero_count(void)
{
    unsigned char *base = NULL, o = 7, r = 9;
    MPI_Win win;
    CALL(MPI_Win_allocate(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 3, 8);
    CALL(MPI_Win_fence(0, win));
    CALL(MPI_Get_accumulate(&o, 0, MPI_BYTE, &r, 0, MPI_BYTE, (mt_rank + 1) % mt_size, 0, 0,
                            MPI_BYTE, MPI_SUM, win));
    CALL(MPI_Accumulate(&o, 0, MPI_BYTE, (mt_rank + 1) % mt_size, 0, 0, MPI_BYTE, MPI_PROD, win));
    CALL(MPI_Win_fence(0, win));
    CHECK(r == 9 && o == 7, "a zero-count call changed its buffers (%d, %d)", r, o);
    for (int i = 0; i < 8; i++)
        CHECK(base[i] == 3, "window byte %d is %d after zero-count calls", i, base[i]);
    /* With data, the op must still suit the type. */
    CALL(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Accumulate(&o, 1, MPI_BYTE, mt_rank, 0, 1, MPI_BYTE, MPI_SUM, win),
                 MPI_ERR_OP);
    CALL(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CALL(MPI_Win_free(&win));
}

static void test_unaligned(void)
{
    enum { N = 5 };
    /* Displacement unit 1: elements at odd byte offsets of the window. */
    size_t span = 3 + N * sizeof(long double) + N * sizeof(double) + 16;
    unsigned char *base = NULL;
    MPI_Win win;
    CALL(MPI_Win_allocate((MPI_Aint)span, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 0, span);
    size_t ld_at = 3, d_at = 3 + N * sizeof(long double) + 5;
    CALL(MPI_Win_fence(0, win));
    long double ld[N];
    double d[N];
    for (int i = 0; i < N; i++) {
        ld[i] = (long double)(mt_rank + 1) * (i + 1);
        d[i] = (double)(mt_rank + 1) / 4 * (i + 1);
    }
    for (int t = 0; t < mt_size; t++) {
        CALL(MPI_Accumulate(ld, N, MPI_LONG_DOUBLE, t, (MPI_Aint)ld_at, N, MPI_LONG_DOUBLE, MPI_SUM,
                            win));
        CALL(MPI_Accumulate(d, N, MPI_DOUBLE, t, (MPI_Aint)d_at, N, MPI_DOUBLE, MPI_SUM, win));
    }
    CALL(MPI_Win_fence(0, win));
    double ranks = (double)mt_size * (mt_size + 1) / 2;
    for (int i = 0; i < N; i++) {
        long double x;
        double y;
        memcpy(&x, base + ld_at + i * sizeof(long double), sizeof(x));
        memcpy(&y, base + d_at + i * sizeof(double), sizeof(y));
        CHECK(x == (long double)ranks * (i + 1), "long double %d: %Lg", i, x);
        CHECK(y == ranks / 4 * (i + 1), "double %d: %g", i, y);
    }
    CALL(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CALL(MPI_Win_free(&win));
}

/* Rank r works on rank r+1's window in a passive epoch: puts (one small,
 * one past every eager limit), then a fetching operation, then a flush;
 * then it tells the target by a message, and the target must find every
 * put applied. Each round ends with the target's answer, so the next
 * round's puts never meet the target's loads. */
static void test_flush_after_fetch(void)
{
    enum { BIG = 256 * 1024 / sizeof(long), ROUNDS = 12 };
    size_t n = 2 + BIG + 1;
    long *mem = calloc(n, sizeof(long)), *src = malloc(BIG * sizeof(long));
    CHECK(mem && src, "out of memory");
    MPI_Win win;
    CALL(MPI_Win_create(mem, (MPI_Aint)(n * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                        MPI_COMM_WORLD, &win));
    int to = (mt_rank + 1) % mt_size, from = (mt_rank + mt_size - 1) % mt_size;
    CALL(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
    CALL(MPI_Win_flush(to, win)); /* nothing to complete */
    for (int k = 1; k <= ROUNDS; k++) {
        long v = 1000L * mt_rank + k, got = -1, one = 1;
        for (size_t i = 0; i < BIG; i++)
            src[i] = v + (long)i;
        CALL(MPI_Put(src, BIG, MPI_LONG, to, 2, BIG, MPI_LONG, win));
        CALL(MPI_Put(&v, 1, MPI_LONG, to, 0, 1, MPI_LONG, win));
        MPI_Request rq = MPI_REQUEST_NULL;
        switch (k % 3) {
        case 0:
            CALL(MPI_Get(&got, 1, MPI_LONG, to, (MPI_Aint)(n - 1), 1, MPI_LONG, win));
            break;
        case 1:
            CALL(MPI_Fetch_and_op(&one, &got, MPI_LONG, to, 1, MPI_SUM, win));
            break;
        default:
            CALL(MPI_Rget(&got, 1, MPI_LONG, to, (MPI_Aint)(n - 1), 1, MPI_LONG, win, &rq));
        }
        CALL(MPI_Win_flush(to, win));
        if (rq != MPI_REQUEST_NULL) CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK(got >= 0, "round %d: fetched %ld", k, got);
        CALL(MPI_Send(&v, 1, MPI_LONG, to, 50, MPI_COMM_WORLD));
        /* As the target: everything rank `from` put this round is there. */
        long want;
        CALL(MPI_Recv(&want, 1, MPI_LONG, from, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CALL(MPI_Win_sync(win));
        CHECK(mem[0] == want, "round %d: slot 0 holds %ld, not %ld", k, mem[0], want);
        for (size_t i = 0; i < BIG; i++)
            if (mem[2 + i] != want + (long)i) {
                CHECK(0, "round %d: element %zu holds %ld, not %ld", k, i, mem[2 + i],
                      want + (long)i);
                break;
            }
        CHECK(mem[1] == (k + 2) / 3, "round %d: the counter is %ld", k, mem[1]);
        CALL(MPI_Send(&want, 1, MPI_LONG, from, 51, MPI_COMM_WORLD));
        CALL(MPI_Recv(&want, 1, MPI_LONG, to, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    CALL(MPI_Win_unlock(to, win));
    CALL(MPI_Win_free(&win));
    free(mem);
    free(src);
}

/* MPI_MODE_NOCHECK: every rank puts into its own slot of every rank's
 * window in one lock_all epoch, then adds to a counter of the next rank's
 * under an exclusive NOCHECK lock, a rank at a time (the turns keep the
 * promise: no conflicting lock meanwhile). After the barrier each rank
 * finds every slot and the sum. Twice: MPI_Win_create (messages) and
 * MPI_Win_allocate (direct on one node). */
static void test_nocheck(bool allocate)
{
    size_t n = (size_t)mt_size + 1;
    long *mem = NULL;
    MPI_Win win;
    if (allocate) {
        CALL(MPI_Win_allocate((MPI_Aint)(n * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                              MPI_COMM_WORLD, &mem, &win));
    } else {
        mem = malloc(n * sizeof(long));
        CHECK(mem, "out of memory");
        CALL(MPI_Win_create(mem, (MPI_Aint)(n * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &win));
    }
    CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mt_rank, 0, win));
    for (size_t i = 0; i < n; i++)
        mem[i] = -1;
    mem[mt_size] = 0;
    CALL(MPI_Win_unlock(mt_rank, win));
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    long mine = 100 + mt_rank;
    CALL(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (int t = 0; t < mt_size; t++)
        CALL(MPI_Put(&mine, 1, MPI_LONG, t, mt_rank, 1, MPI_LONG, win));
    CALL(MPI_Win_unlock_all(win));
    int to = (mt_rank + 1) % mt_size;
    for (int turn = 0; turn < mt_size; turn++) {
        if (turn == mt_rank) {
            long add = mt_rank + 1;
            CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, MPI_MODE_NOCHECK, win));
            CALL(MPI_Accumulate(&add, 1, MPI_LONG, to, mt_size, 1, MPI_LONG, MPI_SUM, win));
            CALL(MPI_Win_unlock(to, win));
        }
        CALL(MPI_Barrier(MPI_COMM_WORLD));
    }
    CALL(MPI_Win_lock(MPI_LOCK_SHARED, mt_rank, 0, win));
    for (int r = 0; r < mt_size; r++)
        CHECK(mem[r] == 100 + r, "%s: slot %d holds %ld", allocate ? "allocate" : "create", r,
              mem[r]);
    int from = (mt_rank + mt_size - 1) % mt_size;
    CHECK(mem[mt_size] == from + 1, "%s: counter %ld, not %d", allocate ? "allocate" : "create",
          mem[mt_size], from + 1);
    CALL(MPI_Win_unlock(mt_rank, win));
    CALL(MPI_Win_free(&win));
    if (!allocate) free(mem);
}

/* Rank r gets from rank r+1: `G` gets of 1..G ints at distinct offsets,
 * every 7th through a vector layout of 300 runs at the target (too large a
 * message to wait in a batch), a put between some of them; checked after
 * a flush_all (passive) and after a fence (active). */
static void test_many_gets(void)
{
    enum { G = 150, RUNS = 300 };
    size_t span = (size_t)G * (G + 1) / 2 + 2 * RUNS + 64;
    int *mem = NULL, *got = calloc(span, sizeof(int));
    CHECK(got, "out of memory");
    MPI_Win win;
    CALL(MPI_Win_allocate((MPI_Aint)(span * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &mem, &win));
    MPI_Datatype vec;
    CALL(MPI_Type_vector(RUNS, 1, 2, MPI_INT, &vec));
    CALL(MPI_Type_commit(&vec));
    int to = (mt_rank + 1) % mt_size;
    size_t tail = span - 2 * RUNS - 16; /* where the vector gets and the puts land */
    for (int round = 0; round < 2; round++) {
        CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mt_rank, 0, win));
        for (size_t i = 0; i < span; i++)
            mem[i] = (int)(mt_rank * 1000003 + round * 7919 + (int)i);
        CALL(MPI_Win_unlock(mt_rank, win));
        CALL(MPI_Barrier(MPI_COMM_WORLD));
        memset(got, 0xff, span * sizeof(int));
        if (round == 0)
            CALL(MPI_Win_lock_all(0, win));
        else
            CALL(MPI_Win_fence(0, win));
        size_t at = 0;
        int mark = -mt_rank - 1;
        for (int k = 1; k <= G; k++) {
            if (k % 7 == 0) {
                CALL(MPI_Get(got + tail, RUNS, MPI_INT, to, (MPI_Aint)tail, 1, vec, win));
            } else {
                CALL(MPI_Get(got + at, k, MPI_INT, to, (MPI_Aint)at, k, MPI_INT, win));
            }
            if (k % 11 == 0)
                CALL(MPI_Put(&mark, 1, MPI_INT, to, (MPI_Aint)(span - 1), 1, MPI_INT, win));
            at += (size_t)k;
        }
        if (round == 0) {
            CALL(MPI_Win_flush_all(win));
        } else {
            CALL(MPI_Win_fence(0, win));
        }
        int base = to * 1000003 + round * 7919;
        at = 0;
        for (int k = 1; k <= G; k++, at += (size_t)k - 1) {
            if (k % 7 == 0) continue;
            for (int e = 0; e < k; e++)
                if (got[at + e] != base + (int)(at + e)) {
                    CHECK(0, "round %d: get %d element %d is %d, not %d", round, k, e, got[at + e],
                          base + (int)(at + e));
                    break;
                }
        }
        for (int e = 0; e < RUNS; e++)
            CHECK(got[tail + e] == base + (int)(tail + 2 * e),
                  "round %d: vector get element %d is %d", round, e, got[tail + e]);
        if (round == 0)
            CALL(MPI_Win_unlock_all(win));
        else
            CALL(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
        CALL(MPI_Barrier(MPI_COMM_WORLD));
        int from = (mt_rank + mt_size - 1) % mt_size;
        CHECK(mem[span - 1] == -from - 1, "round %d: the put left %d", round, mem[span - 1]);
    }
    CALL(MPI_Type_free(&vec));
    CALL(MPI_Win_free(&win));
    free(got);
}

/* Ranks r and r^1 (an odd last rank works with itself): several rounds of
 * a get of 8 longs from the partner, then a put of 128 KiB into it, in
 * one epoch, so replies and large puts' data cross between the two. */
static void test_cross_get_put(void)
{
    enum { BIG = 128 * 1024 / sizeof(long), ROUNDS = 4 };
    size_t n = 8 + (size_t)ROUNDS * BIG;
    long *mem = NULL, *src = malloc(BIG * sizeof(long));
    CHECK(src, "out of memory");
    MPI_Win win;
    CALL(MPI_Win_allocate((MPI_Aint)(n * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                          &mem, &win));
    for (size_t i = 0; i < n; i++)
        mem[i] = -1;
    for (int i = 0; i < 8; i++)
        mem[i] = 77L * mt_rank + i;
    int peer = mt_rank ^ 1;
    if (peer >= mt_size) peer = mt_rank;
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    CALL(MPI_Win_lock_all(0, win));
    /* Odd ranks get from themselves first, so that the two sides' tags
     * for replies and for data are not in step. */
    long one = 0;
    if (mt_rank & 1) CALL(MPI_Get(&one, 1, MPI_LONG, mt_rank, 0, 1, MPI_LONG, win));
    for (int k = 0; k < ROUNDS; k++) {
        long got[8] = {0};
        CALL(MPI_Get(got, 8, MPI_LONG, peer, 0, 8, MPI_LONG, win));
        for (size_t i = 0; i < BIG; i++)
            src[i] = 1000000L * mt_rank + 1000L * k + (long)(i % 997);
        CALL(
            MPI_Put(src, BIG, MPI_LONG, peer, (MPI_Aint)(8 + (size_t)k * BIG), BIG, MPI_LONG, win));
        CALL(MPI_Win_flush(peer, win));
        for (int i = 0; i < 8; i++)
            CHECK(got[i] == 77L * peer + i, "round %d: got[%d] = %ld", k, i, got[i]);
    }
    CALL(MPI_Win_unlock_all(win));
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    CALL(MPI_Win_lock(MPI_LOCK_SHARED, mt_rank, 0, win));
    for (int k = 0; k < ROUNDS; k++)
        for (size_t i = 0; i < BIG; i++)
            if (mem[8 + (size_t)k * BIG + i] != 1000000L * peer + 1000L * k + (long)(i % 997)) {
                CHECK(0, "block %d element %zu is %ld", k, i, mem[8 + (size_t)k * BIG + i]);
                break;
            }
    CALL(MPI_Win_unlock(mt_rank, win));
    CALL(MPI_Win_free(&win));
    free(src);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "rma_edge");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_result_freed();
    test_zero_count();
    test_unaligned();
    test_flush_after_fetch();
    test_nocheck(false);
    test_nocheck(true);
    test_many_gets();
    test_cross_get_put();
    return mt_done();
}
