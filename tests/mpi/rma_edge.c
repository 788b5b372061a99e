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
 *    multiples of the type's alignment give the right sums.
 * Every rank targets every rank, itself included.
 */
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

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "rma_edge");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_result_freed();
    test_zero_count();
    test_unaligned();
    return mt_done();
}
