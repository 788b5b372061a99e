/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Barrier, Bcast, Reduce, Allreduce against the serial reference every rank
 * computes, with every algorithm forced in turn, counts 0, 1 and around
 * each algorithm switch, several roots, MPI_IN_PLACE, a non-commutative
 * user op (2x2 matrix products mod 7, which must come out in rank order),
 * and the nonblocking versions with two in flight at once.
 */
#include "coll_common.h"

/* --- the non-commutative op: 2x2 matrices, inout = in x inout (mod 7) ---- */

static MPI_Datatype mat_t;

static void matmul(void *in_, void *io_, int *len, MPI_Datatype *dt)
{
    const int *a = in_;
    int *b = io_;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int r0 = (a[0] * b[0] + a[1] * b[2]) % 7, r1 = (a[0] * b[1] + a[1] * b[3]) % 7;
        int r2 = (a[2] * b[0] + a[3] * b[2]) % 7, r3 = (a[2] * b[1] + a[3] * b[3]) % 7;
        b[0] = r0;
        b[1] = r1;
        b[2] = r2;
        b[3] = r3;
    }
}

static void mat_of(int rank, size_t i, int *m)
{
    for (int j = 0; j < 4; j++)
        m[j] = (tval(rank, i * 4 + (size_t)j, 1) + 7) % 7;
    if (m[0] == 0 && m[1] == 0) m[1] = 1 + rank % 3; /* never the zero row */
}

static void mat_ref(int n, size_t i, int *out)
{
    int acc[4], m[4];
    mat_of(n - 1, i, acc);
    for (int r = n - 2; r >= 0; r--) {
        mat_of(r, i, m);
        int len = 1;
        matmul(m, acc, &len, NULL);
    }
    memcpy(out, acc, sizeof(acc));
}

static MPI_Op op_mat;

/* --- helpers ------------------------------------------------------------- */

static const size_t counts[] = {0, 1, 2, 3, 7, 64, 1000, 4095, 4096, 4097, 20000, 40000};
#define NCOUNTS (sizeof(counts) / sizeof(counts[0]))

static int *ibuf(size_t n)
{
    return calloc(n ? n : 1, sizeof(int));
}

static void check_bcast(size_t count, int root)
{
    int *b = ibuf(count);
    for (size_t i = 0; i < count; i++)
        b[i] = T_rank == root ? tval(root, i, 9) : -99;
    TMPI(MPI_Bcast(b, (int)count, MPI_INT, root, MPI_COMM_WORLD));
    for (size_t i = 0; i < count; i++)
        TCHECK(b[i] == tval(root, i, 9), "b[%zu]=%d want %d", i, b[i], tval(root, i, 9));
    free(b);
}

static void sum_ref(size_t count, int *want)
{
    for (size_t i = 0; i < count; i++) {
        want[i] = 0;
        for (int r = 0; r < T_size; r++)
            want[i] += tval(r, i, 3);
    }
}

static void check_reduce(size_t count, int root, bool inplace)
{
    int *s = ibuf(count), *r = ibuf(count), *want = ibuf(count);
    for (size_t i = 0; i < count; i++)
        s[i] = tval(T_rank, i, 3);
    sum_ref(count, want);
    if (inplace && T_rank == root) {
        memcpy(r, s, count * sizeof(int));
        TMPI(MPI_Reduce(MPI_IN_PLACE, r, (int)count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    } else {
        TMPI(MPI_Reduce(s, r, (int)count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    }
    if (T_rank == root)
        for (size_t i = 0; i < count; i++)
            TCHECK(r[i] == want[i], "sum[%zu]=%d want %d", i, r[i], want[i]);
    for (size_t i = 0; i < count; i++)
        TCHECK(s[i] == tval(T_rank, i, 3), "send buffer changed");

    /* Non-commutative, in rank order. */
    int *ms = ibuf(4 * count), *mr = ibuf(4 * count), mw[4];
    for (size_t i = 0; i < count; i++)
        mat_of(T_rank, i, ms + 4 * i);
    TMPI(MPI_Reduce(ms, mr, (int)count, mat_t, op_mat, root, MPI_COMM_WORLD));
    if (T_rank == root)
        for (size_t i = 0; i < count; i++) {
            mat_ref(T_size, i, mw);
            TCHECK(!memcmp(mw, mr + 4 * i, sizeof(mw)), "matrix product %zu out of order", i);
        }
    free(ms);
    free(mr);
    free(s);
    free(r);
    free(want);
}

static void check_allreduce(size_t count, bool inplace)
{
    int *s = ibuf(count), *r = ibuf(count), *want = ibuf(count);
    for (size_t i = 0; i < count; i++)
        s[i] = tval(T_rank, i, 3);
    sum_ref(count, want);
    if (inplace) {
        memcpy(r, s, count * sizeof(int));
        TMPI(MPI_Allreduce(MPI_IN_PLACE, r, (int)count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    } else {
        TMPI(MPI_Allreduce(s, r, (int)count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    }
    for (size_t i = 0; i < count; i++)
        TCHECK(r[i] == want[i], "sum[%zu]=%d want %d", i, r[i], want[i]);

    /* MAX on doubles and the non-commutative product. */
    double *ds = calloc(count + 1, sizeof(double)), *dr = calloc(count + 1, sizeof(double));
    for (size_t i = 0; i < count; i++)
        ds[i] = tval(T_rank, i, 5) * 0.5;
    TMPI(MPI_Allreduce(ds, dr, (int)count, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    for (size_t i = 0; i < count; i++) {
        double w = -1e9;
        for (int q = 0; q < T_size; q++)
            w = UMP_MAX(w, tval(q, i, 5) * 0.5);
        TCHECK(dr[i] == w, "max[%zu]=%g want %g", i, dr[i], w);
    }
    free(ds);
    free(dr);
    int *ms = ibuf(4 * count), *mr = ibuf(4 * count), mw[4];
    for (size_t i = 0; i < count; i++)
        mat_of(T_rank, i, ms + 4 * i);
    if (inplace) {
        memcpy(mr, ms, 16 * count);
        TMPI(MPI_Allreduce(MPI_IN_PLACE, mr, (int)count, mat_t, op_mat, MPI_COMM_WORLD));
    } else {
        TMPI(MPI_Allreduce(ms, mr, (int)count, mat_t, op_mat, MPI_COMM_WORLD));
    }
    for (size_t i = 0; i < count; i++) {
        mat_ref(T_size, i, mw);
        TCHECK(!memcmp(mw, mr + 4 * i, sizeof(mw)), "matrix product %zu out of order", i);
    }
    free(ms);
    free(mr);
    free(s);
    free(r);
    free(want);
}

static void check_barrier(void)
{
    /* Rank 0 arrives late: nobody may leave before it entered. The ranks
     * share one host, so their monotonic clocks compare. */
    double enter = 0;
    if (T_rank == 0) {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
        enter = MPI_Wtime();
    }
    TMPI(MPI_Barrier(MPI_COMM_WORLD));
    double left = MPI_Wtime();
    TMPI(MPI_Bcast(&enter, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    TCHECK(left >= enter, "left the barrier %.6f s before rank 0 entered", enter - left);
    for (int k = 0; k < 20; k++)
        TMPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void run_all(const char *label)
{
    tcase("%s barrier", label);
    check_barrier();
    for (size_t c = 0; c < NCOUNTS; c++) {
        size_t count = counts[c];
        int roots[3] = {0, T_size - 1, T_size / 2};
        for (int k = 0; k < 3; k++) {
            tcase("%s bcast count %zu root %d", label, count, roots[k]);
            check_bcast(count, roots[k]);
            tcase("%s reduce count %zu root %d", label, count, roots[k]);
            check_reduce(count, roots[k], k == 1);
        }
        tcase("%s allreduce count %zu", label, count);
        check_allreduce(count, false);
        tcase("%s allreduce in place count %zu", label, count);
        check_allreduce(count, true);
    }
}

/* Two nonblocking collectives in flight at once, then a blocking one. */
static void check_nonblocking(void)
{
    for (size_t c = 0; c < NCOUNTS; c += 2) {
        size_t count = counts[c];
        tcase("ibcast+iallreduce count %zu", count);
        int *b = ibuf(count), *s = ibuf(count), *r = ibuf(count), *want = ibuf(count);
        int root = T_size - 1;
        for (size_t i = 0; i < count; i++) {
            b[i] = T_rank == root ? tval(root, i, 9) : -1;
            s[i] = tval(T_rank, i, 3);
        }
        MPI_Request q[3];
        TMPI(MPI_Ibcast(b, (int)count, MPI_INT, root, MPI_COMM_WORLD, &q[0]));
        TMPI(MPI_Iallreduce(s, r, (int)count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[1]));
        TMPI(MPI_Ibarrier(MPI_COMM_WORLD, &q[2]));
        int *r2 = ibuf(count);
        TMPI(MPI_Allreduce(s, r2, (int)count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        TMPI(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
        TMPI(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
        TMPI(MPI_Wait(&q[2], MPI_STATUS_IGNORE));
        sum_ref(count, want);
        for (size_t i = 0; i < count; i++) {
            TCHECK(b[i] == tval(root, i, 9), "ibcast b[%zu]", i);
            TCHECK(r[i] == want[i], "iallreduce r[%zu]=%d want %d", i, r[i], want[i]);
            TCHECK(r2[i] == want[i], "allreduce r2[%zu]", i);
        }
        int rr[1] = {0}, one = 1;
        MPI_Request q2;
        TMPI(MPI_Ireduce(&one, rr, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &q2));
        TMPI(MPI_Wait(&q2, MPI_STATUS_IGNORE));
        if (T_rank == 0) TCHECK(rr[0] == T_size, "ireduce %d", rr[0]);
        free(b);
        free(s);
        free(r);
        free(r2);
        free(want);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &T_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &T_size);
    TMPI(MPI_Type_contiguous(4, MPI_INT, &mat_t));
    TMPI(MPI_Type_commit(&mat_t));
    TMPI(MPI_Op_create(matmul, 0, &op_mat));
    /* Small thresholds so the long-message algorithms run at test sizes. */
    set_size("UMP_COLL_SEGSIZE", 4000);

    run_all("auto");
    /* Short blocking collectives run without a schedule (fast.c): check the
     * schedules at short sizes too, and the direct code at every size
     * (rendezvous messages included). */
    set_size("UMP_COLL_FAST_MAX", 0);
    run_all("auto, no fast path");
    set_size("UMP_COLL_FAST_MAX", 1 << 20);
    run_all("auto, fast path to 1 MiB");
    set_size("UMP_COLL_FAST_MAX", 16384);
    /* Oversubscribed (3 ranks and more here), the direct code exchanges
     * in one phase; check its log n rounds too. */
    ump_cfg_find("UMP_COLL_FAST_OVERSUB")->v.b = false;
    run_all("auto, fast path in rounds");
    ump_cfg_find("UMP_COLL_FAST_OVERSUB")->v.b = true;
    static const struct {
        const char *var, *choice;
    } forced[] = {
        {"UMP_COLL_BCAST_ALGO", "binomial"},         {"UMP_COLL_BCAST_ALGO", "scatter_allgather"},
        {"UMP_COLL_BCAST_ALGO", "pipeline"},         {"UMP_COLL_REDUCE_ALGO", "binomial"},
        {"UMP_COLL_REDUCE_ALGO", "pipeline"},        {"UMP_COLL_REDUCE_ALGO", "rabenseifner"},
        {"UMP_COLL_ALLREDUCE_ALGO", "recdbl"},       {"UMP_COLL_ALLREDUCE_ALGO", "ring"},
        {"UMP_COLL_ALLREDUCE_ALGO", "rabenseifner"}, {"UMP_COLL_ALLREDUCE_ALGO", "reduce_bcast"},
    };
    for (size_t f = 0; f < sizeof(forced) / sizeof(forced[0]); f++) {
        set_enum(forced[f].var, forced[f].choice);
        char label[128];
        snprintf(label, sizeof(label), "%s=%s", forced[f].var, forced[f].choice);
        run_all(label);
        set_enum(forced[f].var, "auto");
    }
    /* Node-aware algorithms, pretending nodes of 2 and 3 ranks. */
    for (int ppn = 2; ppn <= 3; ppn++) {
        set_fake_ppn(MPI_COMM_WORLD, ppn);
        char label[64];
        snprintf(label, sizeof(label), "hier ppn %d", ppn);
        run_all(label);
        check_nonblocking();
    }
    set_fake_ppn(MPI_COMM_WORLD, 0);
    check_nonblocking();
    TMPI(MPI_Op_free(&op_mat));
    TCHECK(op_mat == MPI_OP_NULL, "Op_free did not reset the handle");
    TMPI(MPI_Type_free(&mat_t));
    if (T_rank == 0) printf("coll_basic: %d ranks OK\n", T_size);
    MPI_Finalize();
    return 0;
}
