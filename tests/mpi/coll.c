/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll.c - the basic collectives (MPI 3.1 chapter 5): Barrier, Bcast from
 * every root, Reduce to every root and Allreduce with MPI_SUM / MAX / MIN /
 * PROD on int and double, MPI_IN_PLACE for Allreduce and Reduce, counts 0, 1,
 * 1000 and 100000. Values are chosen so every result is exact.
 */
#include "mt.h"

#include <math.h>
#include <time.h>

static const int counts[] = {0, 1, 1000, 100000};
#define NCOUNTS 4

static const char *op_name(MPI_Op op)
{
    return op == MPI_SUM   ? "MPI_SUM"
           : op == MPI_MAX ? "MPI_MAX"
           : op == MPI_MIN ? "MPI_MIN"
                           : "MPI_PROD";
}

/* Contribution of rank r to element i: small integers so products stay exact. */
static int ival(int r, int i, MPI_Op op)
{
    if (op == MPI_PROD) return ((r + i) % 3) - 1 == 0 ? 2 : ((r + i) % 3) - 1; /* -1, 2, 1 */
    return (r * 7 + i * 3) % 101 - 50;
}

static int iexpect(int n, int i, MPI_Op op)
{
    int acc = ival(0, i, op);
    for (int r = 1; r < n; r++) {
        int v = ival(r, i, op);
        if (op == MPI_SUM)
            acc += v;
        else if (op == MPI_MAX)
            acc = v > acc ? v : acc;
        else if (op == MPI_MIN)
            acc = v < acc ? v : acc;
        else
            acc *= v;
    }
    return acc;
}

static void test_bcast(void)
{
    for (int c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        double *d = mt_xmalloc(sizeof(double) * (size_t)n);
        for (int root = 0; root < mt_size; root++) {
            for (int i = 0; i < n; i++)
                d[i] = mt_rank == root ? root * 1e6 + i + 0.5 : -1.0;
            CALL(MPI_Bcast(d, n, MPI_DOUBLE, root, MPI_COMM_WORLD));
            for (int i = 0; i < n; i++)
                CHECK(d[i] == root * 1e6 + i + 0.5,
                      "MPI_Bcast of %d doubles from root %d: "
                      "element %d is %g",
                      n, root, i, d[i]);
        }
        free(d);
    }
    /* a byte count that is not a multiple of anything */
    unsigned char b[777];
    for (int root = 0; root < mt_size; root++) {
        if (mt_rank == root)
            mt_fill(b, sizeof(b), (unsigned)root);
        else
            memset(b, 0, sizeof(b));
        CALL(MPI_Bcast(b, sizeof(b), MPI_BYTE, root, MPI_COMM_WORLD));
        CHECK_DATA(b, sizeof(b), (unsigned)root, "MPI_Bcast of 777 bytes");
    }
}

static void test_reduce(void)
{
    MPI_Op ops[4] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};
    for (int c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        int *is = mt_xmalloc(sizeof(int) * (size_t)n), *ir = mt_xmalloc(sizeof(int) * (size_t)n);
        double *ds = mt_xmalloc(sizeof(double) * (size_t)n);
        double *dr = mt_xmalloc(sizeof(double) * (size_t)n);
        for (int o = 0; o < 4; o++) {
            MPI_Op op = ops[o];
            for (int i = 0; i < n; i++) {
                is[i] = ival(mt_rank, i, op);
                ds[i] = ival(mt_rank, i, op) * 0.5; /* exact in binary */
            }
            /* Allreduce */
            for (int i = 0; i < n; i++) {
                ir[i] = 12345;
                dr[i] = 12345;
            }
            CALL(MPI_Allreduce(is, ir, n, MPI_INT, op, MPI_COMM_WORLD));
            CALL(MPI_Allreduce(ds, dr, n, MPI_DOUBLE, op, MPI_COMM_WORLD));
            for (int i = 0; i < n; i++) {
                int w = iexpect(mt_size, i, op);
                double wd = op == MPI_PROD ? w * ldexp(1.0, -mt_size) : w * 0.5;
                CHECK(ir[i] == w, "MPI_Allreduce %s int, count %d: element %d is %d, want %d",
                      op_name(op), n, i, ir[i], w);
                CHECK(dr[i] == wd, "MPI_Allreduce %s double, count %d: element %d is %g, want %g",
                      op_name(op), n, i, dr[i], wd);
            }
            /* Allreduce in place */
            for (int i = 0; i < n; i++)
                ir[i] = is[i];
            CALL(MPI_Allreduce(MPI_IN_PLACE, ir, n, MPI_INT, op, MPI_COMM_WORLD));
            for (int i = 0; i < n; i++)
                CHECK(ir[i] == iexpect(mt_size, i, op),
                      "MPI_Allreduce(MPI_IN_PLACE) %s count %d: element %d is %d, want %d",
                      op_name(op), n, i, ir[i], iexpect(mt_size, i, op));
            /* Reduce to each root (in place at the root every other time) */
            for (int root = 0; root < mt_size; root++) {
                int inplace = root % 2 == 1;
                for (int i = 0; i < n; i++)
                    ir[i] = (inplace && mt_rank == root) ? is[i] : -777;
                const void *sb = (inplace && mt_rank == root) ? MPI_IN_PLACE : (const void *)is;
                CALL(MPI_Reduce(sb, ir, n, MPI_INT, op, root, MPI_COMM_WORLD));
                for (int i = 0; i < n; i++) {
                    if (mt_rank == root)
                        CHECK(ir[i] == iexpect(mt_size, i, op),
                              "MPI_Reduce%s %s count %d root %d: element %d is %d, want %d",
                              inplace ? "(MPI_IN_PLACE)" : "", op_name(op), n, root, i, ir[i],
                              iexpect(mt_size, i, op));
                    else
                        CHECK(ir[i] == -777,
                              "MPI_Reduce wrote the receive buffer of non-root "
                              "rank (element %d)",
                              i);
                }
                CALL(MPI_Reduce(ds, dr, n, MPI_DOUBLE, op, root, MPI_COMM_WORLD));
                if (mt_rank == root)
                    for (int i = 0; i < n; i++) {
                        int w = iexpect(mt_size, i, op);
                        double wd = op == MPI_PROD ? w * ldexp(1.0, -mt_size) : w * 0.5;
                        CHECK(dr[i] == wd,
                              "MPI_Reduce %s double count %d root %d: element %d is "
                              "%g, want %g",
                              op_name(op), n, root, i, dr[i], wd);
                    }
            }
        }
        free(is);
        free(ir);
        free(ds);
        free(dr);
    }
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Barrier: nobody leaves before the last rank has arrived. The last rank
 * enters 300 ms late and says when (the ranks share one host's monotonic
 * clock); every rank must have left after that. A rank may itself enter
 * after the late one (held up in the barrier before, say waiting for a
 * lost message's retransmission) and then leave at once: that is
 * correct, so the check is against the late rank's entry, not a delay. */
static void test_barrier(void)
{
    for (int round = 0; round < 20; round++)
        CALL(MPI_Barrier(MPI_COMM_WORLD));
    double entered = 0;
    if (mt_rank == mt_size - 1) {
        struct timespec ts = {0, 300 * 1000 * 1000};
        nanosleep(&ts, NULL);
        entered = mono_now();
    }
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    double left = mono_now();
    CALL(MPI_Bcast(&entered, 1, MPI_DOUBLE, mt_size - 1, MPI_COMM_WORLD));
    CHECK(left >= entered, "left MPI_Barrier %.6f s before the late rank entered it",
          entered - left);
}

/* Collectives never match point-to-point receives, even fully wildcarded ones. */
static void test_isolation(void)
{
    int v = -1, flag = 1, one = 1, sum = 0;
    double d[3] = {1, 2, 3};
    MPI_Request r;
    MPI_Status st;
    CALL(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r));
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    CALL(MPI_Bcast(d, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    CALL(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CALL(MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, mt_size - 1, MPI_COMM_WORLD));
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    CALL(MPI_Test(&r, &flag, &st));
    CHECK(!flag, "a wildcard receive matched a collective's message (source %d tag %d)",
          st.MPI_SOURCE, st.MPI_TAG);
    /* every rank has tested before anyone sends the message that matches */
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    int x = 1000 + mt_rank;
    CALL(MPI_Send(&x, 1, MPI_INT, (mt_rank + 1) % mt_size, 3, MPI_COMM_WORLD));
    CALL(MPI_Wait(&r, &st));
    int left = (mt_rank + mt_size - 1) % mt_size;
    CHECK(v == 1000 + left && st.MPI_SOURCE == left && st.MPI_TAG == 3,
          "wildcard receive after collectives got %d from %d tag %d", v, st.MPI_SOURCE, st.MPI_TAG);
}

/* Bcast of a derived datatype: a matrix column, received in place of another layout. */
static void test_bcast_derived(void)
{
    enum { R = 50, C = 7 };
    double m[R][C];
    MPI_Datatype col;
    CALL(MPI_Type_vector(R, 1, C, MPI_DOUBLE, &col));
    CALL(MPI_Type_commit(&col));
    for (int root = 0; root < mt_size; root++) {
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++)
                m[i][j] = mt_rank == root ? i * 10 + j : -1;
        if (mt_rank == root) /* root sends column 2; the others receive it contiguously */
            CALL(MPI_Bcast(&m[0][2], 1, col, root, MPI_COMM_WORLD));
        else {
            double flat[R];
            CALL(MPI_Bcast(flat, R, MPI_DOUBLE, root, MPI_COMM_WORLD));
            for (int i = 0; i < R; i++)
                CHECK(flat[i] == i * 10 + 2, "MPI_Bcast of a column from %d: element %d is %g",
                      root, i, flat[i]);
        }
    }
    CALL(MPI_Type_free(&col));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "coll");
    test_barrier();
    test_bcast();
    test_reduce();
    test_isolation();
    test_bcast_derived();
    return mt_done();
}
