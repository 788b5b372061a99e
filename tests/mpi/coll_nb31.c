/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll_nb31.c - the nonblocking collectives MPI 3.1 adds beyond the basic
 * ones: Iscan, Iexscan, Ireduce_scatter, Ireduce_scatter_block and
 * Ialltoallw. Each result is compared element by element with a serial
 * reference and with its blocking form, at counts 0, 1, 1000 and 20000
 * (long enough for the ring reduce_scatter and the transports' rendezvous),
 * with a non-commutative user op for the scans (rank order must hold) and
 * a derived datatype, and bad arguments are refused with the right class.
 */
#include "mt.h"

static const int counts[] = {0, 1, 1000, 20000};
#define NCOUNTS 4

static int val(int r, int i)
{
    return (r * 31 + i * 7) % 97 - 40;
}

/* Non-commutative and associative: 2x2 matrix products (unsigned, mod
 * 2^32) with the lower rank's operand on the left, so an order mistake
 * changes the result. The datatype is 4 contiguous unsigned. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        unsigned r0 = a[0] * b[0] + a[1] * b[2], r1 = a[0] * b[1] + a[1] * b[3];
        unsigned r2 = a[2] * b[0] + a[3] * b[2], r3 = a[2] * b[1] + a[3] * b[3];
        b[0] = r0, b[1] = r1, b[2] = r2, b[3] = r3;
    }
}

static void mat_of(int r, int i, unsigned m[4])
{
    m[0] = (unsigned)(r + 2), m[1] = (unsigned)(i + 1), m[2] = (unsigned)r * 5u + 1u, m[3] = 3u;
}

/* Serial reference: the product of the matrices of ranks lo..hi. */
static void mat_ref(int lo, int hi, int i, unsigned out[4])
{
    unsigned m[4];
    mat_of(lo, i, out);
    for (int k = lo + 1; k <= hi; k++) {
        int one = 1;
        unsigned t[4];
        memcpy(t, out, sizeof(t));
        mat_of(k, i, m);
        matmul(t, m, &one, NULL);
        memcpy(out, m, sizeof(t));
    }
}

static void test_scans(void)
{
    MPI_Op mop;
    MPI_Datatype mat;
    CALL(MPI_Op_create(matmul, 0, &mop));
    CALL(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat));
    CALL(MPI_Type_commit(&mat));
    for (int c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        size_t sz = (size_t)(n ? n : 1);
        int *s = malloc(sizeof(int) * sz), *r = malloc(sizeof(int) * sz),
            *b = malloc(sizeof(int) * sz);
        unsigned *us = malloc(sizeof(unsigned) * 4 * sz), *ur = malloc(sizeof(unsigned) * 4 * sz);
        for (int i = 0; i < n; i++) {
            s[i] = val(mt_rank, i);
            mat_of(mt_rank, i, us + 4 * i);
        }
        MPI_Request q;
        /* Iscan with MPI_SUM against the serial prefix and MPI_Scan. */
        for (int i = 0; i < n; i++)
            r[i] = -7;
        CALL(MPI_Iscan(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q));
        CALL(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK(q == MPI_REQUEST_NULL, "MPI_Wait left the Iscan request set");
        CALL(MPI_Scan(s, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++) {
            int want = 0;
            for (int k = 0; k <= mt_rank; k++)
                want += val(k, i);
            CHECK(r[i] == want && b[i] == want, "Iscan count %d element %d: %d (Scan %d), want %d",
                  n, i, r[i], b[i], want);
        }
        /* Iexscan; rank 0's buffer is left as it was. */
        for (int i = 0; i < n; i++)
            r[i] = -7;
        CALL(MPI_Iexscan(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q));
        CALL(MPI_Wait(&q, MPI_STATUS_IGNORE));
        for (int i = 0; i < n; i++) {
            int want = 0;
            for (int k = 0; k < mt_rank; k++)
                want += val(k, i);
            if (mt_rank == 0) want = -7;
            CHECK(r[i] == want, "Iexscan count %d element %d: %d, want %d", n, i, r[i], want);
        }
        /* Non-commutative op on a derived type, in place. */
        memcpy(ur, us, sizeof(unsigned) * 4 * (size_t)n);
        CALL(MPI_Iscan(MPI_IN_PLACE, ur, n, mat, mop, MPI_COMM_WORLD, &q));
        CALL(MPI_Wait(&q, MPI_STATUS_IGNORE));
        for (int i = 0; i < n; i++) {
            unsigned want[4];
            mat_ref(0, mt_rank, i, want);
            CHECK(!memcmp(ur + 4 * i, want, sizeof(want)),
                  "Iscan(non-commutative) count %d element %d: %u %u %u %u, want %u %u %u %u", n, i,
                  ur[4 * i], ur[4 * i + 1], ur[4 * i + 2], ur[4 * i + 3], want[0], want[1], want[2],
                  want[3]);
        }
        CALL(MPI_Iexscan(us, ur, n, mat, mop, MPI_COMM_WORLD, &q));
        CALL(MPI_Wait(&q, MPI_STATUS_IGNORE));
        if (mt_rank > 0)
            for (int i = 0; i < n; i++) {
                unsigned want[4];
                mat_ref(0, mt_rank - 1, i, want);
                CHECK(!memcmp(ur + 4 * i, want, sizeof(want)),
                      "Iexscan(non-commutative) count %d element %d differs", n, i);
            }
        free(s);
        free(r);
        free(b);
        free(us);
        free(ur);
    }
    CALL(MPI_Op_free(&mop));
    CALL(MPI_Type_free(&mat));
}

static void test_reduce_scatter(void)
{
    for (int c = 0; c < NCOUNTS; c++) {
        int blk = counts[c];
        /* Unequal blocks for the v-form: rank i gets blk + i elements. */
        int *rc = malloc(sizeof(int) * (size_t)mt_size);
        int total = 0;
        for (int i = 0; i < mt_size; i++) {
            rc[i] = blk ? blk + i : 0;
            total += rc[i];
        }
        size_t all = (size_t)(blk * mt_size > total ? blk * mt_size : total) + 1;
        double *s = malloc(sizeof(double) * all), *r = malloc(sizeof(double) * all);
        for (size_t i = 0; i < all; i++)
            s[i] = val(mt_rank, (int)i) + 0.25;
        MPI_Request q;
        for (size_t i = 0; i < all; i++)
            r[i] = -1.0;
        CALL(MPI_Ireduce_scatter_block(s, r, blk, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q));
        CALL(MPI_Wait(&q, MPI_STATUS_IGNORE));
        for (int i = 0; i < blk; i++) {
            int g = mt_rank * blk + i;
            double want = 0;
            for (int k = 0; k < mt_size; k++)
                want += val(k, g) + 0.25;
            CHECK(r[i] == want, "Ireduce_scatter_block count %d element %d: %g, want %g", blk, i,
                  r[i], want);
        }
        CHECK(r[blk] == -1.0, "Ireduce_scatter_block wrote past its block");
        for (size_t i = 0; i < all; i++)
            r[i] = -1.0;
        CALL(MPI_Ireduce_scatter(s, r, rc, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &q));
        int flag = 0;
        while (!flag)
            CALL(MPI_Test(&q, &flag, MPI_STATUS_IGNORE));
        int off = 0;
        for (int k = 0; k < mt_rank; k++)
            off += rc[k];
        for (int i = 0; i < rc[mt_rank]; i++) {
            double want = -1e9;
            for (int k = 0; k < mt_size; k++)
                want = val(k, off + i) + 0.25 > want ? val(k, off + i) + 0.25 : want;
            CHECK(r[i] == want, "Ireduce_scatter count %d element %d: %g, want %g", rc[mt_rank], i,
                  r[i], want);
        }
        CHECK(r[rc[mt_rank]] == -1.0, "Ireduce_scatter wrote past its block");
        /* In place: the input is in recvbuf. */
        for (size_t i = 0; i < all; i++)
            r[i] = s[i];
        CALL(MPI_Ireduce_scatter(MPI_IN_PLACE, r, rc, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q));
        CALL(MPI_Wait(&q, MPI_STATUS_IGNORE));
        for (int i = 0; i < rc[mt_rank]; i++) {
            double want = 0;
            for (int k = 0; k < mt_size; k++)
                want += val(k, off + i) + 0.25;
            CHECK(r[i] == want, "Ireduce_scatter(IN_PLACE) element %d: %g, want %g", i, r[i], want);
        }
        free(rc);
        free(s);
        free(r);
    }
}

/* Ialltoallw: to rank j, rank i sends (i + j + 1) * m ints of a pattern,
 * received as a vector type (every other int) from odd ranks. */
static void test_alltoallw(void)
{
    for (int c = 1; c < NCOUNTS; c++) {
        int m = counts[c] / 10 + 1, n = mt_size;
        int *sc = malloc(sizeof(int) * (size_t)n * 6);
        int *sd = sc + n, *rcn = sc + 2 * n, *rd = sc + 3 * n;
        MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * (size_t)n * 2), *rt = st + n;
        MPI_Datatype strided;
        CALL(MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &strided));
        CALL(MPI_Type_commit(&strided));
        int stot = 0, rtot = 0;
        for (int j = 0; j < n; j++) {
            sc[j] = (mt_rank + j + 1) * m;
            sd[j] = stot * (int)sizeof(int);
            st[j] = MPI_INT;
            stot += sc[j];
            rcn[j] = (j + mt_rank + 1) * m;
            rd[j] = rtot * (int)sizeof(int);
            rt[j] = j % 2 ? strided : MPI_INT;
            rtot += rcn[j] * (j % 2 ? 2 : 1);
        }
        int *s = malloc(sizeof(int) * (size_t)stot), *r = malloc(sizeof(int) * (size_t)rtot + 4);
        int pos = 0;
        for (int j = 0; j < n; j++)
            for (int k = 0; k < sc[j]; k++)
                s[pos++] = mt_rank * 1000000 + j * 10000 + k;
        memset(r, 0xee, sizeof(int) * (size_t)rtot + 4);
        MPI_Request q;
        CALL(MPI_Ialltoallw(s, sc, sd, st, r, rcn, rd, rt, MPI_COMM_WORLD, &q));
        CALL(MPI_Wait(&q, MPI_STATUS_IGNORE));
        for (int j = 0; j < n; j++) {
            int step = j % 2 ? 2 : 1;
            for (int k = 0; k < rcn[j]; k++) {
                int got = r[rd[j] / (int)sizeof(int) + k * step];
                int want = j * 1000000 + mt_rank * 10000 + k;
                CHECK(got == want, "Ialltoallw from %d element %d (count %d): %d, want %d", j, k,
                      rcn[j], got, want);
                if (step == 2)
                    CHECK(r[rd[j] / (int)sizeof(int) + k * 2 + 1] == (int)0xeeeeeeee,
                          "Ialltoallw from %d wrote into a gap of the strided type", j);
            }
        }
        CALL(MPI_Type_free(&strided));
        free(sc);
        free(st);
        free(s);
        free(r);
    }
}

/* Several started before any completes, completed out of order. */
static void test_overlap(void)
{
    int a = mt_rank + 1, b[1], c = 2 * mt_rank, d[1] = {-5};
    MPI_Request q[2];
    CALL(MPI_Iscan(&a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]));
    CALL(MPI_Iexscan(&c, d, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &q[1]));
    CALL(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
    CALL(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    CHECK(b[0] == (mt_rank + 1) * (mt_rank + 2) / 2, "overlapped Iscan: %d", b[0]);
    CHECK(mt_rank == 0 ? d[0] == -5 : d[0] == 2 * (mt_rank - 1), "overlapped Iexscan: %d", d[0]);
}

static void test_errors(void)
{
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int x = 1, y = 0, rc1[64] = {1};
    MPI_Request q;
    EXPECT_CLASS(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
    EXPECT_CLASS(MPI_Iscan(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Iexscan(&x, &y, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD, &q),
                 MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Iexscan(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &q), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, &q), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Ireduce_scatter(&x, &y, NULL, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q),
                 MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Ireduce_scatter_block(&x, &y, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q),
                 MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Ireduce_scatter(&x, &y, rc1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL),
                 MPI_ERR_REQUEST);
    double dx = 1, dy;
    EXPECT_CLASS(MPI_Iscan(&dx, &dy, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD, &q), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Ialltoallw(&x, rc1, rc1, NULL, &y, rc1, rc1, NULL, MPI_COMM_WORLD, &q),
                 MPI_ERR_ARG);
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL), msg, &len);
    CHECK(strstr(msg, "MPI_Iscan") != NULL, "error text does not name the call: %s", msg);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "coll_nb31");
    test_scans();
    test_reduce_scatter();
    test_alltoallw();
    test_overlap();
    test_errors();
    return mt_done();
}
