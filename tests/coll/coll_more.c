/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gather(v), Scatter(v), Allgather(v), Alltoall(v, w), Reduce_scatter(_block),
 * Scan, Exscan and the nonblocking versions, against serial references,
 * with every algorithm forced in turn, MPI_IN_PLACE, uneven counts and a
 * non-commutative op (first-nonzero: a op b = a unless a is 0), which shows
 * any departure from rank order.
 */
#include "coll_common.h"

static const size_t counts[] = {0, 1, 3, 17, 300, 5000};
#define NCOUNTS (sizeof(counts) / sizeof(counts[0]))

/* Block of rank r for rank d (alltoall), or rank r's block (gather). */
static int gv(int r, int d, size_t i)
{
    return r * 100000 + d * 1000 + (int)(i % 997);
}

/* a op b = a if a != 0 else b: associative, not commutative. */
static void first_nz(void *in_, void *io_, int *len, MPI_Datatype *dt)
{
    const int *a = in_;
    int *b = io_;
    for (int i = 0; i < *len; i++)
        if (a[i]) b[i] = a[i];
}
static MPI_Op op_first;
/* Input of rank r for first_nz: zero on most ranks. */
static int fv(int r, size_t i)
{
    return ((r + (int)i) % 3 == 0) ? r * 10 + 1 : 0;
}
static int fref(int from, int to, size_t i)
{
    for (int r = from; r <= to; r++)
        if (fv(r, i)) return fv(r, i);
    return 0;
}

static int *ib(size_t n)
{
    return calloc(n ? n : 1, sizeof(int));
}

static void t_gather(size_t count, int root, bool inplace, bool v)
{
    int n = T_size, me = T_rank;
    /* v: rank r sends count + r elements, placed with gaps of 2. */
    int *rc = ib((size_t)n), *dis = ib((size_t)n);
    size_t total = 0;
    for (int r = 0; r < n; r++) {
        rc[r] = (int)count + (v ? r : 0);
        dis[r] = (int)total + (v ? 2 : 0);
        total += (size_t)rc[r] + (v ? 2 : 0);
    }
    int *s = ib((size_t)rc[me]), *rb = ib(total);
    for (int i = 0; i < rc[me]; i++)
        s[i] = gv(me, 0, (size_t)i);
    for (size_t i = 0; i < total; i++)
        rb[i] = -7;
    const void *sb = s;
    if (inplace && me == root) {
        memcpy(rb + dis[me], s, sizeof(int) * (size_t)rc[me]);
        sb = MPI_IN_PLACE;
    }
    if (v)
        TMPI(MPI_Gatherv(sb, rc[me], MPI_INT, rb, rc, dis, MPI_INT, root, MPI_COMM_WORLD));
    else
        TMPI(MPI_Gather(sb, (int)count, MPI_INT, rb, (int)count, MPI_INT, root, MPI_COMM_WORLD));
    if (me == root)
        for (int r = 0; r < n; r++)
            for (int i = 0; i < rc[r]; i++)
                TCHECK(rb[dis[r] + i] == gv(r, 0, (size_t)i), "block %d [%d]=%d", r, i,
                       rb[dis[r] + i]);
    /* Scatter back the same layout. */
    int *out = ib((size_t)rc[me]);
    void *ob = out;
    if (inplace && me == root) ob = MPI_IN_PLACE;
    if (v)
        TMPI(MPI_Scatterv(rb, rc, dis, MPI_INT, ob, rc[me], MPI_INT, root, MPI_COMM_WORLD));
    else
        TMPI(MPI_Scatter(rb, (int)count, MPI_INT, ob, (int)count, MPI_INT, root, MPI_COMM_WORLD));
    if (!(inplace && me == root))
        for (int i = 0; i < rc[me]; i++)
            TCHECK(out[i] == gv(me, 0, (size_t)i), "scatter [%d]=%d", i, out[i]);
    free(out);
    free(s);
    free(rb);
    free(rc);
    free(dis);
}

static void t_allgather(size_t count, bool inplace, bool v)
{
    int n = T_size, me = T_rank;
    int *rc = ib((size_t)n), *dis = ib((size_t)n);
    size_t total = 0;
    for (int r = 0; r < n; r++) {
        rc[r] = (int)count + (v ? (r % 3) : 0);
        dis[r] = (int)total + (v ? 1 : 0);
        total += (size_t)rc[r] + (v ? 1 : 0);
    }
    int *s = ib((size_t)rc[me]), *rb = ib(total);
    for (int i = 0; i < rc[me]; i++)
        s[i] = gv(me, 1, (size_t)i);
    const void *sb = s;
    if (inplace) {
        memcpy(rb + dis[me], s, sizeof(int) * (size_t)rc[me]);
        sb = MPI_IN_PLACE;
    }
    if (v)
        TMPI(MPI_Allgatherv(sb, rc[me], MPI_INT, rb, rc, dis, MPI_INT, MPI_COMM_WORLD));
    else
        TMPI(MPI_Allgather(sb, (int)count, MPI_INT, rb, (int)count, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < n; r++)
        for (int i = 0; i < rc[r]; i++)
            TCHECK(rb[dis[r] + i] == gv(r, 1, (size_t)i), "block %d [%d]=%d", r, i, rb[dis[r] + i]);
    free(s);
    free(rb);
    free(rc);
    free(dis);
}

static void t_alltoall(size_t count, bool inplace, int mode)
{
    int n = T_size, me = T_rank;
    /* mode 0: uniform; 1: v with counts depending on (sender, receiver); 2: w. */
    int *sc = ib((size_t)n), *sd = ib((size_t)n), *rc = ib((size_t)n), *rd = ib((size_t)n);
    MPI_Datatype *st = calloc((size_t)n, sizeof(MPI_Datatype)),
                 *rt = calloc((size_t)n, sizeof(MPI_Datatype));
    size_t stot = 0, rtot = 0;
    for (int r = 0; r < n; r++) {
        sc[r] = (int)count + (mode ? (me + 2 * r) % 3 : 0);
        rc[r] = (int)count + (mode ? (r + 2 * me) % 3 : 0);
        sd[r] = (int)stot;
        rd[r] = (int)rtot;
        stot += (size_t)sc[r] + (mode ? 1 : 0);
        rtot += (size_t)rc[r] + (mode ? 1 : 0);
        st[r] = rt[r] = MPI_INT;
    }
    if (inplace) {
        /* In place, the send layout is the receive layout. */
        memcpy(sc, rc, sizeof(int) * (size_t)n);
        memcpy(sd, rd, sizeof(int) * (size_t)n);
        stot = rtot;
        for (int r = 0; r < n; r++)
            sc[r] = rc[r] = (int)count + (mode ? (r + me) % 2 : 0);
        /* symmetric counts keep both sides in agreement */
    }
    int *s = ib(stot), *rb = ib(rtot);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < sc[r]; i++)
            s[sd[r] + i] = gv(me, r, (size_t)i);
    const void *sb = s;
    if (inplace) {
        memcpy(rb, s, sizeof(int) * rtot);
        sb = MPI_IN_PLACE;
    }
    if (mode == 0) {
        TMPI(MPI_Alltoall(sb, (int)count, MPI_INT, rb, (int)count, MPI_INT, MPI_COMM_WORLD));
    } else if (mode == 1) {
        TMPI(MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD));
    } else {
        for (int r = 0; r < n; r++) {
            sd[r] *= (int)sizeof(int);
            rd[r] *= (int)sizeof(int);
        }
        TMPI(MPI_Alltoallw(sb, sc, sd, st, rb, rc, rd, rt, MPI_COMM_WORLD));
        for (int r = 0; r < n; r++)
            rd[r] /= (int)sizeof(int);
    }
    for (int r = 0; r < n; r++)
        for (int i = 0; i < rc[r]; i++)
            TCHECK(rb[rd[r] + i] == gv(r, me, (size_t)i), "from %d [%d]=%d want %d", r, i,
                   rb[rd[r] + i], gv(r, me, (size_t)i));
    free(s);
    free(rb);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(st);
    free(rt);
}

static void t_redscat(size_t count, bool inplace, bool block, MPI_Op op)
{
    int n = T_size, me = T_rank;
    int *rc = ib((size_t)n);
    size_t total = 0, off = 0;
    for (int r = 0; r < n; r++) {
        rc[r] = (int)count + (block ? 0 : r % 2);
        if (r < me) off += (size_t)rc[r];
        total += (size_t)rc[r];
    }
    int *s = ib(total), *rb = ib(total);
    bool first = op == op_first;
    for (size_t i = 0; i < total; i++)
        s[i] = first ? fv(me, i) : tval(me, i, 2);
    const void *sb = s;
    if (inplace) {
        memcpy(rb, s, sizeof(int) * total);
        sb = MPI_IN_PLACE;
    }
    if (block)
        TMPI(MPI_Reduce_scatter_block(sb, rb, (int)count, MPI_INT, op, MPI_COMM_WORLD));
    else
        TMPI(MPI_Reduce_scatter(sb, rb, rc, MPI_INT, op, MPI_COMM_WORLD));
    for (int i = 0; i < rc[me]; i++) {
        size_t gi = off + (size_t)i;
        int want = 0;
        if (first)
            want = fref(0, n - 1, gi);
        else
            for (int r = 0; r < n; r++)
                want += tval(r, gi, 2);
        TCHECK(rb[i] == want, "[%d]=%d want %d", i, rb[i], want);
    }
    free(s);
    free(rb);
    free(rc);
}

static void t_scan(size_t count, bool inplace, bool ex, MPI_Op op)
{
    int me = T_rank;
    int *s = ib(count), *rb = ib(count);
    bool first = op == op_first;
    for (size_t i = 0; i < count; i++) {
        s[i] = first ? fv(me, i) : tval(me, i, 4);
        rb[i] = -5;
    }
    const void *sb = s;
    if (inplace) {
        memcpy(rb, s, sizeof(int) * count);
        sb = MPI_IN_PLACE;
    }
    if (ex)
        TMPI(MPI_Exscan(sb, rb, (int)count, MPI_INT, op, MPI_COMM_WORLD));
    else
        TMPI(MPI_Scan(sb, rb, (int)count, MPI_INT, op, MPI_COMM_WORLD));
    int hi = ex ? me - 1 : me; /* exscan: rank 0's buffer is undefined */
    for (size_t i = 0; i < count && hi >= 0; i++) {
        int want = 0;
        if (first)
            want = fref(0, hi, i);
        else
            for (int r = 0; r <= hi; r++)
                want += tval(r, i, 4);
        TCHECK(rb[i] == want, "[%zu]=%d want %d", i, rb[i], want);
    }
    free(s);
    free(rb);
}

static void run_all(const char *label)
{
    for (size_t c = 0; c < NCOUNTS; c++) {
        size_t count = counts[c];
        for (int v = 0; v < 2; v++)
            for (int ip = 0; ip < 2; ip++) {
                int roots[2] = {0, T_size - 1};
                for (int k = 0; k < 2; k++) {
                    tcase("%s gather%s count %zu root %d%s", label, v ? "v" : "", count, roots[k],
                          ip ? " in place" : "");
                    t_gather(count, roots[k], ip, v);
                }
                tcase("%s allgather%s count %zu%s", label, v ? "v" : "", count,
                      ip ? " in place" : "");
                t_allgather(count, ip, v);
            }
        for (int mode = 0; mode < 3; mode++)
            for (int ip = 0; ip < 2; ip++) {
                tcase("%s alltoall mode %d count %zu%s", label, mode, count, ip ? " in place" : "");
                t_alltoall(count, ip, mode);
            }
        for (int b = 0; b < 2; b++)
            for (int ip = 0; ip < 2; ip++) {
                tcase("%s reduce_scatter%s count %zu%s sum", label, b ? "_block" : "", count,
                      ip ? " in place" : "");
                t_redscat(count, ip, b, MPI_SUM);
                tcase("%s reduce_scatter%s count %zu%s first", label, b ? "_block" : "", count,
                      ip ? " in place" : "");
                t_redscat(count, ip, b, op_first);
            }
        for (int ex = 0; ex < 2; ex++)
            for (int ip = 0; ip < 2; ip++) {
                tcase("%s %sscan count %zu%s", label, ex ? "ex" : "", count, ip ? " in place" : "");
                t_scan(count, ip, ex, MPI_SUM);
                t_scan(count, ip, ex, op_first);
            }
    }
}

/* The nonblocking versions, two or three in flight at once. */
static void t_nonblocking(size_t count)
{
    int n = T_size, me = T_rank;
    MPI_Request q[6];
    int *gs = ib(count), *gr = ib(count * (size_t)n), *as = ib(count), *ar = ib(count * (size_t)n);
    int *ts = ib(count * (size_t)n), *tr = ib(count * (size_t)n), *sr = ib(count);
    for (size_t i = 0; i < count; i++)
        gs[i] = as[i] = gv(me, 0, i);
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < count; i++)
            ts[(size_t)r * count + i] = gv(me, r, i);
    TMPI(MPI_Igather(gs, (int)count, MPI_INT, gr, (int)count, MPI_INT, 0, MPI_COMM_WORLD, &q[0]));
    TMPI(MPI_Iallgather(as, (int)count, MPI_INT, ar, (int)count, MPI_INT, MPI_COMM_WORLD, &q[1]));
    TMPI(MPI_Ialltoall(ts, (int)count, MPI_INT, tr, (int)count, MPI_INT, MPI_COMM_WORLD, &q[2]));
    int *cnts = ib((size_t)n), *dis = ib((size_t)n);
    for (int r = 0; r < n; r++) {
        cnts[r] = (int)count;
        dis[r] = r * (int)count;
    }
    int *vr = ib(count * (size_t)n), *ar2 = ib(count * (size_t)n), *tv = ib(count * (size_t)n);
    TMPI(MPI_Igatherv(gs, (int)count, MPI_INT, vr, cnts, dis, MPI_INT, n - 1, MPI_COMM_WORLD,
                      &q[3]));
    TMPI(MPI_Iallgatherv(as, (int)count, MPI_INT, ar2, cnts, dis, MPI_INT, MPI_COMM_WORLD, &q[4]));
    TMPI(MPI_Ialltoallv(ts, cnts, dis, MPI_INT, tv, cnts, dis, MPI_INT, MPI_COMM_WORLD, &q[5]));
    /* Half waited for, half polled with MPI_Test. */
    for (int k = 5; k >= 3; k--)
        TMPI(MPI_Wait(&q[k], MPI_STATUS_IGNORE));
    for (int k = 0; k < 3; k++) {
        int flag = 0;
        double t0 = MPI_Wtime();
        while (!flag) {
            TMPI(MPI_Test(&q[k], &flag, MPI_STATUS_IGNORE));
            TCHECK(MPI_Wtime() - t0 < 60, "MPI_Test never completed request %d", k);
        }
        TCHECK(q[k] == MPI_REQUEST_NULL, "completed request not freed");
    }
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < count; i++) {
            size_t j = (size_t)r * count + i;
            if (me == 0) TCHECK(gr[j] == gv(r, 0, i), "igather");
            if (me == n - 1) TCHECK(vr[j] == gv(r, 0, i), "igatherv");
            TCHECK(ar[j] == gv(r, 0, i), "iallgather");
            TCHECK(ar2[j] == gv(r, 0, i), "iallgatherv");
            TCHECK(tr[j] == gv(r, me, i), "ialltoall");
            TCHECK(tv[j] == gv(r, me, i), "ialltoallv");
        }
    /* Iscatter(v) of what was gathered. */
    TMPI(MPI_Iscatter(gr, (int)count, MPI_INT, sr, (int)count, MPI_INT, 0, MPI_COMM_WORLD, &q[0]));
    int *sr2 = ib(count);
    TMPI(MPI_Iscatterv(vr, cnts, dis, MPI_INT, sr2, (int)count, MPI_INT, n - 1, MPI_COMM_WORLD,
                       &q[1]));
    TMPI(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    TMPI(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
    for (size_t i = 0; i < count; i++) {
        TCHECK(sr[i] == gv(me, 0, i), "iscatter");
        TCHECK(sr2[i] == gv(me, 0, i), "iscatterv");
    }
    free(gs);
    free(gr);
    free(as);
    free(ar);
    free(ts);
    free(tr);
    free(sr);
    free(sr2);
    free(cnts);
    free(dis);
    free(vr);
    free(ar2);
    free(tv);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &T_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &T_size);
    TMPI(MPI_Op_create(first_nz, 0, &op_first));
    /* Thresholds low enough that every algorithm runs at these counts. */
    set_size("UMP_COLL_GATHER_LONG", 1024);
    set_size("UMP_COLL_ALLGATHER_LONG", 8192);
    set_size("UMP_COLL_ALLTOALL_LONG", 4096);
    set_size("UMP_COLL_REDUCE_SCATTER_LONG", 1024);
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
        {"UMP_COLL_GATHER_ALGO", "binomial"},
        {"UMP_COLL_GATHER_ALGO", "linear"},
        {"UMP_COLL_ALLGATHER_ALGO", "recdbl"},
        {"UMP_COLL_ALLGATHER_ALGO", "bruck"},
        {"UMP_COLL_ALLGATHER_ALGO", "ring"},
        {"UMP_COLL_ALLTOALL_ALGO", "bruck"},
        {"UMP_COLL_ALLTOALL_ALGO", "linear"},
        {"UMP_COLL_ALLTOALL_ALGO", "pairwise"},
        {"UMP_COLL_REDUCE_SCATTER_ALGO", "ring"},
        {"UMP_COLL_REDUCE_SCATTER_ALGO", "reduce_scatterv"},
        {"UMP_COLL_SCAN_ALGO", "recdbl"},
        {"UMP_COLL_SCAN_ALGO", "linear"},
    };
    for (size_t f = 0; f < sizeof(forced) / sizeof(forced[0]); f++) {
        set_enum(forced[f].var, forced[f].choice);
        char label[128];
        snprintf(label, sizeof(label), "%s=%s", forced[f].var, forced[f].choice);
        run_all(label);
        set_enum(forced[f].var, "auto");
    }
    for (size_t c = 0; c < NCOUNTS; c++) {
        tcase("nonblocking count %zu", counts[c]);
        t_nonblocking(counts[c]);
    }
    TMPI(MPI_Op_free(&op_first));
    if (T_rank == 0) printf("coll_more: %d ranks OK\n", T_size);
    MPI_Finalize();
    return 0;
}
