/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo.c - process topologies (MPI 3.1 chapter 7, without the neighbourhood
 * collectives, which neighbor.c tests): Dims_create against the standard's
 * examples and the rules it states; Cart_create, Cart_get, Cartdim_get,
 * Cart_coords, Cart_rank, Cart_shift, Cart_sub and Cart_map on 1-, 2- and
 * 3-dimensional grids, periodic and not, checked against a serial
 * row-major model; Graph_create and its queries; Dist_graph_create_adjacent
 * and Dist_graph_create (edges named by one rank, or by each) with and
 * without weights; Topo_test; topology copied by Comm_dup and not by
 * Comm_split; a topology communicator working for point-to-point and
 * collectives; and the argument errors under MPI_ERRORS_RETURN.
 */
#include "mt.h"

#include <stdbool.h>

#ifdef OPEN_MPI
#define UMP_CLASSES 0 /* the exact classes and messages are ump's choice */
#else
#define UMP_CLASSES 1
#endif

/* --- Dims_create ------------------------------------------------------------ */

static void dims_expect(int nnodes, int ndims, const int *in, const int *want)
{
    int d[8];
    memcpy(d, in, sizeof(int) * (size_t)ndims);
    CALL(MPI_Dims_create(nnodes, ndims, d));
    for (int i = 0; i < ndims; i++)
        CHECK(d[i] == want[i], "MPI_Dims_create(%d, %d): dims[%d] = %d, want %d", nnodes, ndims, i,
              d[i], want[i]);
}

static void test_dims(void)
{
    /* The examples of MPI 3.1 §7.5.2. */
    dims_expect(6, 2, (int[]){0, 0}, (int[]){3, 2});
    dims_expect(7, 2, (int[]){0, 0}, (int[]){7, 1});
    dims_expect(6, 3, (int[]){0, 3, 0}, (int[]){2, 3, 1});
    /* More, with the balanced answer the standard asks for. */
    dims_expect(16, 3, (int[]){0, 0, 0}, (int[]){4, 2, 2});
    dims_expect(12, 2, (int[]){0, 0}, (int[]){4, 3});
    dims_expect(1, 3, (int[]){0, 0, 0}, (int[]){1, 1, 1});
    dims_expect(24, 3, (int[]){0, 0, 0}, (int[]){4, 3, 2});
    dims_expect(30, 2, (int[]){0, 5}, (int[]){6, 5});
    dims_expect(8, 3, (int[]){2, 2, 2}, (int[]){2, 2, 2});
    /* The rules, for every size up to 64 and up to 4 dimensions: the
     * product is nnodes, fixed entries stay, free ones do not increase. */
    for (int n = 1; n <= 64; n++)
        for (int nd = 1; nd <= 4; nd++) {
            int d[4] = {0, 0, 0, 0};
            if (nd >= 2 && n % 2 == 0) d[1] = 2;
            CALL(MPI_Dims_create(n, nd, d));
            int p = 1, prev = n + 1;
            for (int i = 0; i < nd; i++) {
                p *= d[i];
                CHECK(d[i] >= 1, "MPI_Dims_create(%d, %d): dims[%d] = %d", n, nd, i, d[i]);
                if (nd >= 2 && n % 2 == 0 && i == 1) {
                    CHECK(d[1] == 2, "MPI_Dims_create(%d, %d) changed a fixed entry", n, nd);
                    continue;
                }
                CHECK(d[i] <= prev, "MPI_Dims_create(%d, %d): dims not non-increasing at %d", n, nd,
                      i);
                prev = d[i];
            }
            CHECK(p == n, "MPI_Dims_create(%d, %d): product %d", n, nd, p);
        }
}

/* --- Cartesian --------------------------------------------------------------- */

/* Row-major coordinates of rank r in a grid. */
static void model_coords(int nd, const int *dims, int r, int *c)
{
    for (int i = nd - 1; i >= 0; i--) {
        c[i] = r % dims[i];
        r /= dims[i];
    }
}

static int model_rank(int nd, const int *dims, const int *c)
{
    int r = 0;
    for (int i = 0; i < nd; i++)
        r = r * dims[i] + c[i];
    return r;
}

/* Rank at c shifted by disp along dim, or MPI_PROC_NULL. */
static int model_shift(int nd, const int *dims, const int *periods, const int *c, int dim, int disp)
{
    int cc[8];
    memcpy(cc, c, sizeof(int) * (size_t)nd);
    int x = cc[dim] + disp;
    if (periods[dim])
        x = ((x % dims[dim]) + dims[dim]) % dims[dim];
    else if (x < 0 || x >= dims[dim])
        return MPI_PROC_NULL;
    cc[dim] = x;
    return model_rank(nd, dims, cc);
}

static void check_cart(MPI_Comm cart, int nd, const int *dims, const int *periods, int rank,
                       const char *what)
{
    int status, ndq, d[8], p[8], c[8], mc[8], size, r;
    CALL(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_CART, "%s: MPI_Topo_test gave %d, want MPI_CART", what, status);
    CALL(MPI_Cartdim_get(cart, &ndq));
    CHECK(ndq == nd, "%s: MPI_Cartdim_get gave %d, want %d", what, ndq, nd);
    CALL(MPI_Comm_size(cart, &size));
    CALL(MPI_Comm_rank(cart, &r));
    int nn = 1;
    for (int i = 0; i < nd; i++)
        nn *= dims[i];
    CHECK(size == nn, "%s: size %d, want %d", what, size, nn);
    CHECK(r == rank, "%s: rank %d, want %d (no reordering)", what, r, rank);
    CALL(MPI_Cart_get(cart, nd, d, p, c));
    model_coords(nd, dims, rank, mc);
    for (int i = 0; i < nd; i++) {
        CHECK(d[i] == dims[i] && !!p[i] == !!periods[i] && c[i] == mc[i],
              "%s: MPI_Cart_get dim %d gave (%d, %d, %d), want (%d, %d, %d)", what, i, d[i], p[i],
              c[i], dims[i], periods[i], mc[i]);
    }
    for (int q = 0; q < size; q++) {
        int qc[8], back;
        CALL(MPI_Cart_coords(cart, q, nd, qc));
        model_coords(nd, dims, q, mc);
        for (int i = 0; i < nd; i++)
            CHECK(qc[i] == mc[i], "%s: MPI_Cart_coords(%d)[%d] = %d, want %d", what, q, i, qc[i],
                  mc[i]);
        CALL(MPI_Cart_rank(cart, qc, &back));
        CHECK(back == q, "%s: MPI_Cart_rank(coords of %d) = %d", what, q, back);
    }
    /* Periodic dimensions wrap coordinates outside the grid. */
    model_coords(nd, dims, rank, mc);
    for (int i = 0; i < nd; i++) {
        if (!periods[i]) continue;
        int wc[8], wr;
        memcpy(wc, mc, sizeof(int) * (size_t)nd);
        wc[i] += 3 * dims[i];
        CALL(MPI_Cart_rank(cart, wc, &wr));
        CHECK(wr == rank, "%s: MPI_Cart_rank wrapped +3 periods in dim %d gave %d", what, i, wr);
        wc[i] = mc[i] - 2 * dims[i];
        CALL(MPI_Cart_rank(cart, wc, &wr));
        CHECK(wr == rank, "%s: MPI_Cart_rank wrapped -2 periods in dim %d gave %d", what, i, wr);
    }
    for (int i = 0; i < nd; i++)
        for (int disp = -3; disp <= 3; disp++) {
            int src, dst;
            CALL(MPI_Cart_shift(cart, i, disp, &src, &dst));
            int ws = model_shift(nd, dims, periods, mc, i, -disp);
            int wd = model_shift(nd, dims, periods, mc, i, disp);
            CHECK(src == ws && dst == wd,
                  "%s: MPI_Cart_shift(dim %d, disp %d) gave (%d, %d), want (%d, %d)", what, i, disp,
                  src, dst, ws, wd);
        }
    /* The communicator works for ordinary traffic and collectives. */
    int sum = 0, want = size * (size - 1) / 2;
    CALL(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, cart));
    CHECK(sum == want, "%s: MPI_Allreduce on the grid gave %d, want %d", what, sum, want);
    int x = 7000 + rank, y = -1, right = (rank + 1) % size, left = (rank + size - 1) % size;
    CALL(MPI_Sendrecv(&x, 1, MPI_INT, right, 5, &y, 1, MPI_INT, left, 5, cart, MPI_STATUS_IGNORE));
    CHECK(y == 7000 + left, "%s: ring on the grid gave %d", what, y);
}

static void test_cart_sub(MPI_Comm cart, int nd, const int *dims, const int *periods, int rank)
{
    int mc[8];
    model_coords(nd, dims, rank, mc);
    for (int mask = 0; mask < (1 << nd); mask++) {
        int remain[8], sd[8], sp[8], sc[8], k = 0;
        for (int i = 0; i < nd; i++) {
            remain[i] = (mask >> i) & 1;
            if (remain[i]) {
                sd[k] = dims[i];
                sp[k] = periods[i];
                sc[k++] = mc[i];
            }
        }
        MPI_Comm sub;
        CALL(MPI_Cart_sub(cart, remain, &sub));
        CHECK(sub != MPI_COMM_NULL, "MPI_Cart_sub(mask %d) gave MPI_COMM_NULL", mask);
        char what[64];
        snprintf(what, sizeof(what), "Cart_sub mask %d of %dD", mask, nd);
        check_cart(sub, k, sd, sp, model_rank(k, sd, sc), what);
        CALL(MPI_Comm_free(&sub));
    }
}

static void test_cart(void)
{
    for (int nd = 1; nd <= 3; nd++)
        for (int per = 0; per < 4; per++)
            for (int shrink = 0; shrink < 2; shrink++) {
                /* shrink: a grid of one rank fewer, leaving the last out */
                int n = shrink ? mt_size - 1 : mt_size;
                if (n < 1) continue;
                int dims[3] = {0, 0, 0}, periods[3];
                CALL(MPI_Dims_create(n, nd, dims));
                for (int i = 0; i < nd; i++)
                    periods[i] = per == 3 ? 1 : per == 0 ? 0 : (i % 2) == (per - 1);
                MPI_Comm cart;
                CALL(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &cart));
                int newrank;
                CALL(MPI_Cart_map(MPI_COMM_WORLD, nd, dims, periods, &newrank));
                if (mt_rank >= n) {
                    CHECK(cart == MPI_COMM_NULL, "rank outside the grid got a communicator");
                    /* MPI 3.1 §7.5.8; Open MPI 4.1 returns the old rank. */
                    if (UMP_CLASSES)
                        CHECK(newrank == MPI_UNDEFINED, "MPI_Cart_map outside the grid gave %d",
                              newrank);
                    continue;
                }
                CHECK(cart != MPI_COMM_NULL, "MPI_Cart_create gave MPI_COMM_NULL to rank %d",
                      mt_rank);
                CHECK(newrank == mt_rank, "MPI_Cart_map gave %d", newrank);
                char what[64];
                snprintf(what, sizeof(what), "%dD grid, periods %d, %d ranks", nd, per, n);
                check_cart(cart, nd, dims, periods, mt_rank, what);
                test_cart_sub(cart, nd, dims, periods, mt_rank);
                /* Comm_dup copies the topology; Comm_split does not. */
                MPI_Comm dup, split;
                CALL(MPI_Comm_dup(cart, &dup));
                check_cart(dup, nd, dims, periods, mt_rank, "dup of a grid");
                CALL(MPI_Comm_free(&cart));
                check_cart(dup, nd, dims, periods, mt_rank, "dup of a freed grid");
                CALL(MPI_Comm_split(dup, 0, mt_rank, &split));
                int st;
                CALL(MPI_Topo_test(split, &st));
                CHECK(st == MPI_UNDEFINED, "MPI_Comm_split of a grid kept topology %d", st);
                CALL(MPI_Comm_free(&split));
                CALL(MPI_Comm_free(&dup));
            }
    /* A zero-dimensional grid has one process. */
    MPI_Comm z;
    CALL(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &z));
    if (mt_rank == 0) {
        int size, nd;
        CHECK(z != MPI_COMM_NULL, "0-dimensional grid missing on rank 0");
        CALL(MPI_Comm_size(z, &size));
        CALL(MPI_Cartdim_get(z, &nd));
        CHECK(size == 1 && nd == 0, "0-dimensional grid: size %d, ndims %d", size, nd);
        CALL(MPI_Comm_free(&z));
    } else {
        CHECK(z == MPI_COMM_NULL, "0-dimensional grid on rank %d", mt_rank);
    }
    int st;
    CALL(MPI_Topo_test(MPI_COMM_WORLD, &st));
    CHECK(st == MPI_UNDEFINED, "MPI_COMM_WORLD has topology %d", st);
}

/* --- graph -------------------------------------------------------------------- */

/* Node i: i+1, i-1 (mod n), node 0 also a self loop, node 1 its edge to 2
 * twice (repeated edges and self loops are kept). */
static int graph_build(int n, int *index, int *edges)
{
    int e = 0;
    for (int i = 0; i < n; i++) {
        edges[e++] = (i + 1) % n;
        edges[e++] = (i + n - 1) % n;
        if (i == 0) edges[e++] = 0;
        if (i == 1) edges[e++] = 2 % n;
        index[i] = e;
    }
    return e;
}

static void test_graph(void)
{
    for (int shrink = 0; shrink < 2; shrink++) {
        int n = shrink ? mt_size - 1 : mt_size;
        if (n < 1) continue;
        int index[64], edges[256], ne = graph_build(n, index, edges);
        MPI_Comm g;
        CALL(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &g));
        int newrank;
        CALL(MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &newrank));
        if (mt_rank >= n) {
            CHECK(g == MPI_COMM_NULL, "rank outside the graph got a communicator");
            if (UMP_CLASSES) /* as Cart_map above */
                CHECK(newrank == MPI_UNDEFINED, "MPI_Graph_map outside the graph gave %d", newrank);
            continue;
        }
        CHECK(newrank == mt_rank, "MPI_Graph_map gave %d", newrank);
        int st, nn, nedges, qi[64], qe[256];
        CALL(MPI_Topo_test(g, &st));
        CHECK(st == MPI_GRAPH, "MPI_Topo_test of a graph gave %d", st);
        CALL(MPI_Graphdims_get(g, &nn, &nedges));
        CHECK(nn == n && nedges == ne, "MPI_Graphdims_get gave (%d, %d), want (%d, %d)", nn, nedges,
              n, ne);
        CALL(MPI_Graph_get(g, 64, 256, qi, qe));
        CHECK(!memcmp(qi, index, sizeof(int) * (size_t)n), "MPI_Graph_get: index differs");
        CHECK(!memcmp(qe, edges, sizeof(int) * (size_t)ne), "MPI_Graph_get: edges differ");
        for (int r = 0; r < n; r++) {
            int cnt, nb[16], first = r ? index[r - 1] : 0;
            CALL(MPI_Graph_neighbors_count(g, r, &cnt));
            CHECK(cnt == index[r] - first, "MPI_Graph_neighbors_count(%d) = %d", r, cnt);
            CALL(MPI_Graph_neighbors(g, r, 16, nb));
            for (int i = 0; i < cnt; i++)
                CHECK(nb[i] == edges[first + i], "MPI_Graph_neighbors(%d)[%d] = %d, want %d", r, i,
                      nb[i], edges[first + i]);
        }
        MPI_Comm dup;
        CALL(MPI_Comm_dup(g, &dup));
        CALL(MPI_Graphdims_get(dup, &nn, &nedges));
        CHECK(nn == n && nedges == ne, "dup of a graph: dims (%d, %d)", nn, nedges);
        int sum = 0;
        CALL(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, dup));
        CHECK(sum == n * (n - 1) / 2, "MPI_Allreduce on a graph gave %d", sum);
        CALL(MPI_Comm_free(&dup));
        CALL(MPI_Comm_free(&g));
    }
}

/* --- distributed graph ------------------------------------------------------------ */

/* Out-edges of rank r in the test graph: r+1, r+2, r (mod n), with weights
 * 100r + k; so in-edges of r: r-1, r-2, r. */
static int dist_out(int n, int r, int *dst, int *w)
{
    for (int k = 0; k < 3; k++) {
        dst[k] = (r + (k == 2 ? 0 : k + 1)) % n;
        w[k] = 100 * r + k;
    }
    return 3;
}

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* The expected (peer, weight) pairs of this rank, sorted; *nin, *nout. */
static void dist_expect(int n, int *in, int *nin, int *out, int *nout)
{
    int d[3], w[3];
    *nin = *nout = 0;
    for (int r = 0; r < n; r++) {
        int k = dist_out(n, r, d, w);
        for (int j = 0; j < k; j++) {
            if (r == mt_rank) {
                out[2 * *nout] = d[j];
                out[2 * (*nout)++ + 1] = w[j];
            }
            if (d[j] == mt_rank) {
                in[2 * *nin] = r;
                in[2 * (*nin)++ + 1] = w[j];
            }
        }
    }
    qsort(in, (size_t)*nin, 2 * sizeof(int), cmp_pair);
    qsort(out, (size_t)*nout, 2 * sizeof(int), cmp_pair);
}

static void check_dist(MPI_Comm g, bool weighted, bool ordered, const int *order_in,
                       const int *order_out, const char *what)
{
    int st, indeg, outdeg, wflag, ein[64], eout[64], nin, nout;
    CALL(MPI_Topo_test(g, &st));
    CHECK(st == MPI_DIST_GRAPH, "%s: MPI_Topo_test gave %d", what, st);
    CALL(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &wflag));
    dist_expect(mt_size, ein, &nin, eout, &nout);
    CHECK(indeg == nin && outdeg == nout, "%s: degrees (%d, %d), want (%d, %d)", what, indeg,
          outdeg, nin, nout);
    CHECK(!!wflag == weighted, "%s: weighted %d, want %d", what, wflag, weighted);
    int src[32], sw[32], dst[32], dw[32], pin[64], pout[64];
    CALL(MPI_Dist_graph_neighbors(g, indeg, src, weighted ? sw : MPI_UNWEIGHTED, outdeg, dst,
                                  weighted ? dw : MPI_UNWEIGHTED));
    if (ordered) {
        /* The adjacent form keeps the order it was given. */
        for (int i = 0; i < indeg; i++)
            CHECK(src[i] == order_in[i], "%s: sources[%d] = %d, want %d", what, i, src[i],
                  order_in[i]);
        for (int i = 0; i < outdeg; i++)
            CHECK(dst[i] == order_out[i], "%s: destinations[%d] = %d, want %d", what, i, dst[i],
                  order_out[i]);
    }
    for (int i = 0; i < indeg; i++) {
        pin[2 * i] = src[i];
        pin[2 * i + 1] = weighted ? sw[i] : ein[2 * i + 1];
    }
    for (int i = 0; i < outdeg; i++) {
        pout[2 * i] = dst[i];
        pout[2 * i + 1] = weighted ? dw[i] : eout[2 * i + 1];
    }
    if (!weighted) {
        /* compare ranks only */
        for (int i = 0; i < indeg; i++)
            pin[2 * i + 1] = 0, ein[2 * i + 1] = 0;
        for (int i = 0; i < outdeg; i++)
            pout[2 * i + 1] = 0, eout[2 * i + 1] = 0;
    }
    qsort(pin, (size_t)indeg, 2 * sizeof(int), cmp_pair);
    qsort(pout, (size_t)outdeg, 2 * sizeof(int), cmp_pair);
    qsort(ein, (size_t)nin, 2 * sizeof(int), cmp_pair);
    qsort(eout, (size_t)nout, 2 * sizeof(int), cmp_pair);
    CHECK(!memcmp(pin, ein, sizeof(int) * 2 * (size_t)indeg), "%s: in-neighbours differ", what);
    CHECK(!memcmp(pout, eout, sizeof(int) * 2 * (size_t)outdeg), "%s: out-neighbours differ", what);
    int sum = 0;
    CALL(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, g));
    CHECK(sum == mt_size * (mt_size - 1) / 2, "%s: MPI_Allreduce gave %d", what, sum);
}

static void test_dist(void)
{
    int n = mt_size, d[3], w[3];
    MPI_Info info;
    CALL(MPI_Info_create(&info));
    CALL(MPI_Info_set(info, "ump_test_hint", "1"));
    for (int weighted = 0; weighted < 2; weighted++) {
        /* adjacent: in-edges r-1, r-2, r; out-edges r+1, r+2, r */
        int src[3], sw[3], k = dist_out(n, mt_rank, d, w);
        for (int j = 0; j < 3; j++) {
            int r = (mt_rank + n - (j == 2 ? 0 : j + 1)) % n;
            src[j] = r;
            sw[j] = 100 * r + j;
        }
        MPI_Comm g, dup;
        CALL(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, src, weighted ? sw : MPI_UNWEIGHTED,
                                            k, d, weighted ? w : MPI_UNWEIGHTED,
                                            weighted ? info : MPI_INFO_NULL, 0, &g));
        check_dist(g, weighted, true, src, d, "Dist_graph_create_adjacent");
        CALL(MPI_Comm_dup(g, &dup));
        check_dist(dup, weighted, true, src, d, "dup of a distributed graph");
        CALL(MPI_Comm_free(&dup));
        CALL(MPI_Comm_free(&g));

        /* general, every rank naming its own out-edges */
        int me = mt_rank, deg = 3;
        CALL(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &deg, d, weighted ? w : MPI_UNWEIGHTED,
                                   info, 0, &g));
        check_dist(g, weighted, false, NULL, NULL, "Dist_graph_create, own edges");
        CALL(MPI_Comm_free(&g));

        /* general, rank 0 naming every edge; the others none */
        int *all_src = mt_xmalloc(sizeof(int) * (size_t)n),
            *all_deg = mt_xmalloc(sizeof(int) * (size_t)n),
            *all_dst = mt_xmalloc(sizeof(int) * 3 * (size_t)n),
            *all_w = mt_xmalloc(sizeof(int) * 3 * (size_t)n);
        for (int r = 0; r < n; r++) {
            all_src[r] = r;
            all_deg[r] = dist_out(n, r, all_dst + 3 * r, all_w + 3 * r);
        }
        const int *wts = !weighted ? MPI_UNWEIGHTED : mt_rank == 0 ? all_w : MPI_WEIGHTS_EMPTY;
        CALL(MPI_Dist_graph_create(MPI_COMM_WORLD, mt_rank == 0 ? n : 0, all_src, all_deg, all_dst,
                                   wts, MPI_INFO_NULL, 1, &g));
        check_dist(g, weighted, false, NULL, NULL, "Dist_graph_create from rank 0");
        CALL(MPI_Comm_free(&g));
        free(all_src);
        free(all_deg);
        free(all_dst);
        free(all_w);
    }
    CALL(MPI_Info_free(&info));
}

/* --- errors ------------------------------------------------------------------------ */

#define EXPECT_FAIL(call, cls)                                                                     \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK(rc_ != MPI_SUCCESS, "%s succeeded, want an error", #call);                           \
        if (UMP_CLASSES)                                                                           \
            CHECK(mt_class(rc_) == (cls), "%s: class %d (%s), want %s", #call, mt_class(rc_),      \
                  mt_errstr(rc_), #cls);                                                           \
    } while (0)

static void test_errors(void)
{
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int dims[3] = {mt_size + 1, 1, 1}, periods[3] = {0, 0, 0}, c[3], r, s, t;
    MPI_Comm out = MPI_COMM_NULL;
    EXPECT_FAIL(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &out), MPI_ERR_TOPOLOGY);
    dims[0] = -2;
    EXPECT_FAIL(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &out), MPI_ERR_DIMS);
    EXPECT_FAIL(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &out), MPI_ERR_DIMS);
    EXPECT_FAIL(MPI_Dims_create(7, 3, (int[]){0, 3, 0}), MPI_ERR_DIMS);
    EXPECT_FAIL(MPI_Dims_create(6, 2, (int[]){-1, 0}), MPI_ERR_DIMS);
    /* topology queries on a communicator without one */
    EXPECT_FAIL(MPI_Cart_coords(MPI_COMM_WORLD, 0, 1, c), MPI_ERR_TOPOLOGY);
    EXPECT_FAIL(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &s, &t), MPI_ERR_TOPOLOGY);
    EXPECT_FAIL(MPI_Cartdim_get(MPI_COMM_WORLD, &r), MPI_ERR_TOPOLOGY);
    EXPECT_FAIL(MPI_Graphdims_get(MPI_COMM_WORLD, &r, &s), MPI_ERR_TOPOLOGY);
    EXPECT_FAIL(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &r, &s, &t), MPI_ERR_TOPOLOGY);
    /* on a grid: bad rank, bad direction, a coordinate off a non-periodic edge */
    dims[0] = mt_size;
    MPI_Comm cart;
    CALL(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    CALL(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN));
    EXPECT_FAIL(MPI_Cart_coords(cart, mt_size, 1, c), MPI_ERR_RANK);
    EXPECT_FAIL(MPI_Cart_coords(cart, -1, 1, c), MPI_ERR_RANK);
    EXPECT_FAIL(MPI_Cart_shift(cart, 1, 1, &s, &t), MPI_ERR_ARG);
    c[0] = mt_size;
    EXPECT_FAIL(MPI_Cart_rank(cart, c, &r), MPI_ERR_ARG);
    EXPECT_FAIL(MPI_Graph_neighbors_count(cart, 0, &r), MPI_ERR_TOPOLOGY);
    CALL(MPI_Comm_free(&cart));
    /* graphs: an edge to a node that does not exist, a rank out of range */
    int index[1] = {1}, edges[1] = {mt_size + 3};
    EXPECT_FAIL(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &out), MPI_ERR_RANK);
    EXPECT_FAIL(MPI_Graph_create(MPI_COMM_WORLD, mt_size + 1, index, edges, 0, &out),
                MPI_ERR_TOPOLOGY);
    int bad = mt_size;
    EXPECT_FAIL(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad, MPI_UNWEIGHTED, 0, NULL,
                                               MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &out),
                MPI_ERR_RANK);
    int zero = 0, one = 1;
    EXPECT_FAIL(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &zero, &one, &bad, MPI_UNWEIGHTED,
                                      MPI_INFO_NULL, 0, &out),
                MPI_ERR_RANK);
    /* neighbourhood collectives: no topology, MPI_IN_PLACE, bad counts and types */
    int sb[8] = {0}, rb[8] = {0};
    MPI_Request req;
    EXPECT_FAIL(MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, MPI_COMM_WORLD),
                MPI_ERR_TOPOLOGY);
    EXPECT_FAIL(MPI_Ineighbor_allgather(sb, 1, MPI_INT, rb, 1, MPI_INT, MPI_COMM_WORLD, &req),
                MPI_ERR_TOPOLOGY);
    dims[0] = mt_size;
    periods[0] = 1;
    CALL(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    CALL(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN));
    EXPECT_FAIL(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, rb, 1, MPI_INT, cart),
                MPI_ERR_BUFFER);
    EXPECT_FAIL(MPI_Neighbor_allgather(sb, -1, MPI_INT, rb, 1, MPI_INT, cart), MPI_ERR_COUNT);
    EXPECT_FAIL(MPI_Neighbor_alltoall(sb, 1, MPI_DATATYPE_NULL, rb, 1, MPI_INT, cart),
                MPI_ERR_TYPE);
    int bad_counts[2] = {1, -4}, displs[2] = {0, 1};
    EXPECT_FAIL(MPI_Neighbor_alltoallv(sb, bad_counts, displs, MPI_INT, rb, bad_counts, displs,
                                       MPI_INT, cart),
                MPI_ERR_COUNT);
    EXPECT_FAIL(MPI_Ineighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, cart, NULL),
                MPI_ERR_REQUEST);
    /* ... and after the errors the grid still works */
    CALL(MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, cart));
    CALL(MPI_Comm_free(&cart));
#ifndef OPEN_MPI
    /* The message names the call and the argument. */
    char msg[MPI_MAX_ERROR_STRING];
    int len, rc = MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &out);
    CALL(MPI_Error_string(rc, msg, &len));
    CHECK(strstr(msg, "MPI_Graph_create") && strstr(msg, "edges[0]"),
          "error string \"%s\" does not name the call and the argument", msg);
#endif
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "topo");
    test_dims();
    test_cart();
    test_graph();
    test_dist();
    /* Open MPI does not detect some of these errors, so its run (which
     * validates the rest of this program) leaves them out. */
    if (UMP_CLASSES) test_errors();
    return mt_done();
}
