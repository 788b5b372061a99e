/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * inter_coll.c - every collective on intercommunicators (MPI 3.1 §5.2.2),
 * blocking and nonblocking, against a serial reference each side computes:
 * Barrier, Bcast (also of a non-contiguous type), Gather(v), Scatter(v),
 * Allgather(v), Alltoall(v,w), Reduce and Allreduce (MPI_SUM and a
 * non-commutative user op, so the order of the remote group counts),
 * Reduce_scatter and Reduce_scatter_block. Rooted calls run with every
 * root of both groups (MPI_ROOT on it, MPI_PROC_NULL on its group, its
 * rank on the other); buffers a call must not touch are checked unchanged.
 * Counts reach past the eager limit. The world is cut into group A (the
 * first `a` ranks) and B (the rest) for a = 1, size/2 and size-1.
 * Needs 2 or more ranks.
 */
#include "mt.h"

static int grp, na, nb, lrank, lsize, rsize, nbmode;

#define SENT (-12345)

/* Element k of the data of rank r of group g. */
static int V(int g, int r, int k)
{
    return g * 1000003 + r * 10007 + k;
}

static int rootarg(int rg, int r)
{
    return grp == rg ? (lrank == r ? MPI_ROOT : MPI_PROC_NULL) : r;
}

static int gsize(int g)
{
    return g == 0 ? na : nb;
}

/* Runs the blocking call, or the nonblocking one (which names rq_) and
 * waits for it. */
#define COLL(icall, bcall)                                                                         \
    do {                                                                                           \
        if (nbmode) {                                                                              \
            MPI_Request rq_ = MPI_REQUEST_NULL;                                                    \
            CALL(icall);                                                                           \
            CALL(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                                               \
        } else {                                                                                   \
            CALL(bcall);                                                                           \
        }                                                                                          \
    } while (0)

static int *ints(size_t n, int v)
{
    int *p = mt_xmalloc(sizeof(int) * (n ? n : 1));
    for (size_t i = 0; i < n; i++)
        p[i] = v;
    return p;
}

static void bcast(MPI_Comm ic)
{
    static const int counts[] = {3, 20000};
    for (int ci = 0; ci < 2; ci++)
        for (int rg = 0; rg < 2; rg++)
            for (int r = 0; r < gsize(rg); r++) {
                int c = counts[ci], root = rootarg(rg, r);
                int *b = ints((size_t)c, SENT);
                if (root == MPI_ROOT)
                    for (int k = 0; k < c; k++)
                        b[k] = V(rg, r, k);
                COLL(MPI_Ibcast(b, c, MPI_INT, root, ic, &rq_), MPI_Bcast(b, c, MPI_INT, root, ic));
                for (int k = 0; k < c; k++) {
                    int want = root == MPI_PROC_NULL ? SENT : V(rg, r, k);
                    CHECK(b[k] == want, "bcast count %d root %d/%d: [%d] = %d, want %d", c, rg, r,
                          k, b[k], want);
                }
                free(b);
            }
    /* A non-contiguous type: every other int; the gaps stay untouched. */
    MPI_Datatype vec;
    CALL(MPI_Type_vector(50, 1, 2, MPI_INT, &vec));
    CALL(MPI_Type_commit(&vec));
    int b[100], root = rootarg(1, nb - 1);
    for (int k = 0; k < 100; k++)
        b[k] = root == MPI_ROOT && k % 2 == 0 ? V(1, nb - 1, k) : SENT;
    COLL(MPI_Ibcast(b, 1, vec, root, ic, &rq_), MPI_Bcast(b, 1, vec, root, ic));
    for (int k = 0; k < 100; k++) {
        int want = root != MPI_PROC_NULL && k % 2 == 0 ? V(1, nb - 1, k) : SENT;
        CHECK(b[k] == want, "bcast of a vector type: [%d] = %d, want %d", k, b[k], want);
    }
    CALL(MPI_Type_free(&vec));
}

/* 2x2 matrices of unsigned ints, multiplied (wrapping): not commutative. */
typedef struct {
    unsigned a, b, c, d;
} mat_t;

static mat_t mat_of(int g, int r)
{
    return (mat_t){(unsigned)r + 2u, (unsigned)g + 1u, 1u, (unsigned)(r * 3) + 1u};
}

static mat_t mat_mul(mat_t x, mat_t y)
{
    return (mat_t){x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c,
                   x.c * y.b + x.d * y.d};
}

static void mat_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    mat_t *x = in, *y = inout;
    for (int i = 0; i < *len; i++)
        y[i] = mat_mul(x[i], y[i]);
}

static void reduce(MPI_Comm ic)
{
    static const int counts[] = {1, 20000};
    for (int ci = 0; ci < 2; ci++) {
        int c = counts[ci];
        int *s = ints((size_t)c, 0), *want = ints((size_t)c, 0);
        for (int k = 0; k < c; k++) {
            s[k] = V(grp, lrank, k);
            for (int j = 0; j < rsize; j++)
                want[k] += V(1 - grp, j, k);
        }
        for (int rg = 0; rg < 2; rg++)
            for (int r = 0; r < gsize(rg); r++) {
                int root = rootarg(rg, r), *rb = ints((size_t)c, SENT);
                COLL(MPI_Ireduce(s, rb, c, MPI_INT, MPI_SUM, root, ic, &rq_),
                     MPI_Reduce(s, rb, c, MPI_INT, MPI_SUM, root, ic));
                for (int k = 0; k < c; k++) {
                    int w = root == MPI_ROOT ? want[k] : SENT;
                    CHECK(rb[k] == w, "reduce count %d root %d/%d: [%d] = %d, want %d", c, rg, r, k,
                          rb[k], w);
                }
                free(rb);
            }
        int *rb = ints((size_t)c, SENT);
        COLL(MPI_Iallreduce(s, rb, c, MPI_INT, MPI_SUM, ic, &rq_),
             MPI_Allreduce(s, rb, c, MPI_INT, MPI_SUM, ic));
        for (int k = 0; k < c; k++)
            CHECK(rb[k] == want[k], "allreduce count %d: [%d] = %d, want %d", c, k, rb[k], want[k]);
        free(rb);
        free(s);
        free(want);
    }
    /* The user op: the remote group's matrices multiplied in rank order. */
    MPI_Datatype mt;
    MPI_Op op;
    CALL(MPI_Type_contiguous(4, MPI_UNSIGNED, &mt));
    CALL(MPI_Type_commit(&mt));
    CALL(MPI_Op_create(mat_op, 0, &op));
    mat_t mine[3], got[3], want = mat_of(1 - grp, 0);
    for (int j = 1; j < rsize; j++)
        want = mat_mul(want, mat_of(1 - grp, j));
    for (int i = 0; i < 3; i++)
        mine[i] = mat_of(grp, lrank);
    memset(got, 0, sizeof(got));
    COLL(MPI_Iallreduce(mine, got, 3, mt, op, ic, &rq_), MPI_Allreduce(mine, got, 3, mt, op, ic));
    for (int i = 0; i < 3; i++)
        CHECK(!memcmp(&got[i], &want, sizeof(want)),
              "allreduce of a non-commutative op: element %d is {%u %u %u %u}, want {%u %u %u %u}",
              i, got[i].a, got[i].b, got[i].c, got[i].d, want.a, want.b, want.c, want.d);
    int root = rootarg(0, 0);
    memset(got, 0, sizeof(got));
    COLL(MPI_Ireduce(mine, got, 3, mt, op, root, ic, &rq_),
         MPI_Reduce(mine, got, 3, mt, op, root, ic));
    if (root == MPI_ROOT)
        CHECK(!memcmp(&got[2], &want, sizeof(want)), "reduce of a non-commutative op is wrong");
    CALL(MPI_Op_free(&op));
    CALL(MPI_Type_free(&mt));
}

/* Displacements of counts laid out in reverse rank order. */
static void rev_displs(const int *counts, int n, int *displs)
{
    int d = 0;
    for (int j = n - 1; j >= 0; j--) {
        displs[j] = d;
        d += counts[j];
    }
}

static void gather_scatter(MPI_Comm ic)
{
    static const int counts[] = {2, 9000};
    for (int ci = 0; ci < 2; ci++)
        for (int rg = 0; rg < 2; rg++)
            for (int r = 0; r < gsize(rg); r++) {
                int c = counts[ci], root = rootarg(rg, r), m = rsize;
                int *s = ints((size_t)c * (size_t)mt_size, 0),
                    *rb = ints((size_t)c * (size_t)m, SENT);
                for (int k = 0; k < c; k++)
                    s[k] = V(grp, lrank, k);
                COLL(MPI_Igather(s, c, MPI_INT, rb, c, MPI_INT, root, ic, &rq_),
                     MPI_Gather(s, c, MPI_INT, rb, c, MPI_INT, root, ic));
                for (int j = 0; j < m; j++)
                    for (int k = 0; k < c; k++) {
                        int w = root == MPI_ROOT ? V(1 - grp, j, k) : SENT;
                        CHECK(rb[j * c + k] == w, "gather count %d root %d/%d: from %d [%d] = %d",
                              c, rg, r, j, k, rb[j * c + k]);
                    }
                /* Scatter: the root's block j goes to remote rank j. */
                for (int k = 0; k < c * rsize; k++)
                    s[k] = V(grp, lrank, k);
                int *one = ints((size_t)c, SENT);
                COLL(MPI_Iscatter(s, c, MPI_INT, one, c, MPI_INT, root, ic, &rq_),
                     MPI_Scatter(s, c, MPI_INT, one, c, MPI_INT, root, ic));
                for (int k = 0; k < c; k++) {
                    int w = root >= 0 ? V(rg, r, lrank * c + k) : SENT;
                    CHECK(one[k] == w, "scatter count %d root %d/%d: [%d] = %d, want %d", c, rg, r,
                          k, one[k], w);
                }
                free(one);
                free(s);
                free(rb);
            }
    /* The v-forms: remote rank j contributes j + 1 (gather) and gets j + 2
     * (scatter) elements, laid out in reverse rank order. */
    for (int rg = 0; rg < 2; rg++)
        for (int r = 0; r < gsize(rg); r++) {
            int root = rootarg(rg, r), m = rsize;
            int *cnt = ints((size_t)m, 0), *dsp = ints((size_t)m, 0);
            for (int j = 0; j < m; j++)
                cnt[j] = j + 1;
            rev_displs(cnt, m, dsp);
            int total = m * (m + 1) / 2, s[16];
            int *rb = ints((size_t)total, SENT);
            for (int k = 0; k < lrank + 1; k++)
                s[k] = V(grp, lrank, k);
            COLL(MPI_Igatherv(s, lrank + 1, MPI_INT, rb, cnt, dsp, MPI_INT, root, ic, &rq_),
                 MPI_Gatherv(s, lrank + 1, MPI_INT, rb, cnt, dsp, MPI_INT, root, ic));
            for (int j = 0; j < m; j++)
                for (int k = 0; k < cnt[j]; k++) {
                    int w = root == MPI_ROOT ? V(1 - grp, j, k) : SENT;
                    CHECK(rb[dsp[j] + k] == w, "gatherv root %d/%d: from %d [%d] = %d", rg, r, j, k,
                          rb[dsp[j] + k]);
                }
            free(rb);
            for (int j = 0; j < m; j++)
                cnt[j] = j + 2;
            rev_displs(cnt, m, dsp);
            total += m;
            int *sb = ints((size_t)total, 0), one[16];
            for (int k = 0; k < total; k++)
                sb[k] = V(grp, lrank, k);
            for (int k = 0; k < 16; k++)
                one[k] = SENT;
            COLL(MPI_Iscatterv(sb, cnt, dsp, MPI_INT, one, lrank + 2, MPI_INT, root, ic, &rq_),
                 MPI_Scatterv(sb, cnt, dsp, MPI_INT, one, lrank + 2, MPI_INT, root, ic));
            /* My block's place in the root's buffer: reverse layout over my group. */
            int d = 0;
            for (int j = lsize - 1; j > lrank; j--)
                d += j + 2;
            for (int k = 0; k < lrank + 2; k++) {
                int w = root >= 0 ? V(rg, r, d + k) : SENT;
                CHECK(one[k] == w, "scatterv root %d/%d: [%d] = %d, want %d", rg, r, k, one[k], w);
            }
            free(sb);
            free(cnt);
            free(dsp);
        }
}

static void allgather_alltoall(MPI_Comm ic)
{
    int m = rsize;
    static const int counts[] = {1, 3000};
    for (int ci = 0; ci < 2; ci++) {
        int c = counts[ci];
        int *s = ints((size_t)c * (size_t)m, 0), *rb = ints((size_t)c * (size_t)m, SENT);
        for (int k = 0; k < c; k++)
            s[k] = V(grp, lrank, k);
        COLL(MPI_Iallgather(s, c, MPI_INT, rb, c, MPI_INT, ic, &rq_),
             MPI_Allgather(s, c, MPI_INT, rb, c, MPI_INT, ic));
        for (int j = 0; j < m; j++)
            for (int k = 0; k < c; k++)
                CHECK(rb[j * c + k] == V(1 - grp, j, k), "allgather count %d: from %d [%d] = %d", c,
                      j, k, rb[j * c + k]);
        for (int j = 0; j < m; j++)
            for (int k = 0; k < c; k++)
                s[j * c + k] = V(grp, lrank, j * c + k);
        COLL(MPI_Ialltoall(s, c, MPI_INT, rb, c, MPI_INT, ic, &rq_),
             MPI_Alltoall(s, c, MPI_INT, rb, c, MPI_INT, ic));
        for (int j = 0; j < m; j++)
            for (int k = 0; k < c; k++)
                CHECK(rb[j * c + k] == V(1 - grp, j, lrank * c + k),
                      "alltoall count %d: from %d [%d] = %d", c, j, k, rb[j * c + k]);
        free(s);
        free(rb);
    }
    /* Allgatherv: remote rank j sends j % 3 + 1 elements, reverse layout. */
    int *cnt = ints((size_t)m, 0), *dsp = ints((size_t)m, 0), s[8], rb[64];
    for (int j = 0; j < m; j++)
        cnt[j] = j % 3 + 1;
    rev_displs(cnt, m, dsp);
    for (int k = 0; k < 8; k++)
        s[k] = V(grp, lrank, k);
    for (int k = 0; k < 64; k++)
        rb[k] = SENT;
    COLL(MPI_Iallgatherv(s, lrank % 3 + 1, MPI_INT, rb, cnt, dsp, MPI_INT, ic, &rq_),
         MPI_Allgatherv(s, lrank % 3 + 1, MPI_INT, rb, cnt, dsp, MPI_INT, ic));
    for (int j = 0; j < m; j++)
        for (int k = 0; k < cnt[j]; k++)
            CHECK(rb[dsp[j] + k] == V(1 - grp, j, k), "allgatherv from %d [%d] = %d", j, k,
                  rb[dsp[j] + k]);
    /* Alltoallv and w: (me, remote j) moves (me + j) % 3 + 1 elements. */
    int *sc = ints((size_t)m, 0), *sd = ints((size_t)m, 0), *rc = ints((size_t)m, 0);
    int *rd = ints((size_t)m, 0), *sdb = ints((size_t)m, 0), *rdb = ints((size_t)m, 0);
    MPI_Datatype *ty = mt_xmalloc(sizeof(MPI_Datatype) * (size_t)m);
    int sbuf[64], rbuf[64];
    for (int j = 0; j < m; j++) {
        sc[j] = rc[j] = (lrank + j) % 3 + 1;
        ty[j] = MPI_INT;
    }
    rev_displs(sc, m, sd);
    for (int j = 0, d = 0; j < m; j++) {
        rd[j] = d;
        d += rc[j];
        sdb[j] = sd[j] * (int)sizeof(int);
        rdb[j] = rd[j] * (int)sizeof(int);
    }
    for (int j = 0; j < m; j++)
        for (int k = 0; k < sc[j]; k++)
            sbuf[sd[j] + k] = V(grp, lrank, 100 * j + k);
    for (int w = 0; w < 2; w++) {
        for (int k = 0; k < 64; k++)
            rbuf[k] = SENT;
        if (w)
            COLL(MPI_Ialltoallw(sbuf, sc, sdb, ty, rbuf, rc, rdb, ty, ic, &rq_),
                 MPI_Alltoallw(sbuf, sc, sdb, ty, rbuf, rc, rdb, ty, ic));
        else
            COLL(MPI_Ialltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, ic, &rq_),
                 MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, ic));
        for (int j = 0; j < m; j++)
            for (int k = 0; k < rc[j]; k++)
                CHECK(rbuf[rd[j] + k] == V(1 - grp, j, 100 * lrank + k),
                      "alltoall%s from %d [%d] = %d", w ? "w" : "v", j, k, rbuf[rd[j] + k]);
    }
    free(cnt);
    free(dsp);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sdb);
    free(rdb);
    free(ty);
}

static void reduce_scatter(MPI_Comm ic)
{
    /* Both groups' counts add up to T (the standard requires it). */
    int T = 2 * na * nb + 3, *rc = ints((size_t)lsize, 0), d = 0;
    for (int i = 0; i < lsize; i++) {
        rc[i] = T / lsize + (i < T % lsize);
        if (i < lrank) d += rc[i];
    }
    int *s = ints((size_t)T, 0), *rb = ints((size_t)T, SENT);
    for (int k = 0; k < T; k++)
        s[k] = V(grp, lrank, k);
    COLL(MPI_Ireduce_scatter(s, rb, rc, MPI_INT, MPI_SUM, ic, &rq_),
         MPI_Reduce_scatter(s, rb, rc, MPI_INT, MPI_SUM, ic));
    for (int k = 0; k < T; k++) {
        int w = SENT;
        if (k < rc[lrank]) {
            w = 0;
            for (int j = 0; j < rsize; j++)
                w += V(1 - grp, j, d + k);
        }
        CHECK(rb[k] == w, "reduce_scatter [%d] = %d, want %d", k, rb[k], w);
    }
    /* Block: each of my group gets 2 * rsize, so both groups send 2 * na * nb. */
    int bc = 2 * rsize;
    for (int k = 0; k < T; k++)
        rb[k] = SENT;
    COLL(MPI_Ireduce_scatter_block(s, rb, bc, MPI_INT, MPI_SUM, ic, &rq_),
         MPI_Reduce_scatter_block(s, rb, bc, MPI_INT, MPI_SUM, ic));
    for (int k = 0; k < bc + 1; k++) {
        int w = SENT;
        if (k < bc) {
            w = 0;
            for (int j = 0; j < rsize; j++)
                w += V(1 - grp, j, lrank * bc + k);
        }
        CHECK(rb[k] == w, "reduce_scatter_block [%d] = %d, want %d", k, rb[k], w);
    }
    free(rc);
    free(s);
    free(rb);
}

/* Several nonblocking collectives in flight at once on one communicator. */
static void overlapped(MPI_Comm ic)
{
    MPI_Request rq[3];
    int b = rootarg(0, 0) == MPI_ROOT ? 77 : SENT, s = V(grp, lrank, 0), sum = SENT;
    CALL(MPI_Ibarrier(ic, &rq[0]));
    CALL(MPI_Ibcast(&b, 1, MPI_INT, rootarg(0, 0), ic, &rq[1]));
    CALL(MPI_Iallreduce(&s, &sum, 1, MPI_INT, MPI_SUM, ic, &rq[2]));
    CALL(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    int want = 0;
    for (int j = 0; j < rsize; j++)
        want += V(1 - grp, j, 0);
    CHECK(sum == want, "overlapped allreduce %d, want %d", sum, want);
    CHECK(b == (rootarg(0, 0) == MPI_PROC_NULL ? SENT : 77), "overlapped bcast %d", b);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "inter_coll");
    CHECK(mt_size >= 2, "needs 2 or more ranks, has %d", mt_size);
    int splits[3] = {1, mt_size / 2, mt_size - 1};
    for (int i = 0; i < 3; i++) {
        if (i > 0 && splits[i] == splits[i - 1]) continue;
        na = splits[i];
        nb = mt_size - na;
        grp = mt_rank < na ? 0 : 1;
        MPI_Comm local, ic;
        CALL(MPI_Comm_split(MPI_COMM_WORLD, grp, mt_rank, &local));
        CALL(MPI_Comm_rank(local, &lrank));
        CALL(MPI_Comm_size(local, &lsize));
        rsize = grp == 0 ? nb : na;
        CALL(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, grp == 0 ? na : 0, 5, &ic));
        for (nbmode = 0; nbmode < 2; nbmode++) {
            COLL(MPI_Ibarrier(ic, &rq_), MPI_Barrier(ic));
            bcast(ic);
            reduce(ic);
            gather_scatter(ic);
            allgather_alltoall(ic);
            reduce_scatter(ic);
        }
        overlapped(ic);
        CALL(MPI_Comm_free(&ic));
        CALL(MPI_Comm_free(&local));
    }
    return mt_done();
}
