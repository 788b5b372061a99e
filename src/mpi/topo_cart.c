/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cartesian topologies (MPI 3.1 §7.5.1-7.5.5, 7.5.8): Cart_create,
 * Cart_coords, Cart_rank, Cart_shift, Cart_sub, Cart_get, Cartdim_get,
 * Cart_map, and Dims_create.
 *
 * Ranks are numbered in row-major order over the grid (the last dimension
 * varies fastest), and the grid takes the first dims[0]*...*dims[n-1]
 * ranks of the old communicator in their order (no reordering: see
 * topo_common.c). A zero-dimensional grid has one process.
 */
#include <limits.h>
#include <stdlib.h>

#include "mpi/topo.h"

int ump_mpi_cart_rank_of(const struct ump_mpi_topo *t, const int *coords)
{
    int r = 0;
    for (int d = 0; d < t->ndims; d++)
        r = r * t->dims[d] + coords[d];
    return r;
}

void ump_mpi_cart_coords_of(const struct ump_mpi_topo *t, int rank, int *coords)
{
    for (int d = t->ndims - 1; d >= 0; d--) {
        coords[d] = rank % t->dims[d];
        rank /= t->dims[d];
    }
}

/* Rank `disp` steps from this process along dimension d, or MPI_PROC_NULL
 * off the edge of a non-periodic dimension. */
static int shifted(const struct ump_mpi_topo *t, int d, int disp)
{
    int n = t->dims[d];
    long long c = (long long)t->coords[d] + disp;
    if (t->periods[d])
        c = ((c % n) + n) % n;
    else if (c < 0 || c >= n)
        return MPI_PROC_NULL;
    int stride = 1;
    for (int e = d + 1; e < t->ndims; e++)
        stride *= t->dims[e];
    return ump_mpi_cart_rank_of(t, t->coords) + ((int)c - t->coords[d]) * stride;
}

int ump_mpi_cart_lists(struct ump_mpi_topo *t, int rank)
{
    int n = 2 * t->ndims;
    t->coords = malloc(sizeof(int) * (size_t)(t->ndims ? t->ndims : 1));
    t->in = malloc(sizeof(int) * (size_t)(n ? n : 1));
    t->out = malloc(sizeof(int) * (size_t)(n ? n : 1));
    t->in_tag = malloc((size_t)(n ? n : 1));
    t->out_tag = malloc((size_t)(n ? n : 1));
    if (!t->coords || !t->in || !t->out || !t->in_tag || !t->out_tag) return MPI_ERR_NO_MEM;
    ump_mpi_cart_coords_of(t, rank, t->coords);
    t->indeg = t->outdeg = n;
    /* Per dimension the negative neighbour, then the positive one, for
     * both lists (MPI 3.1 §7.6). What goes to the negative neighbour
     * arrives there from its positive neighbour: tag offsets 0 downwards,
     * 1 upwards. */
    for (int d = 0; d < t->ndims; d++) {
        t->in[2 * d] = t->out[2 * d] = shifted(t, d, -1);
        t->in[2 * d + 1] = t->out[2 * d + 1] = shifted(t, d, 1);
        t->out_tag[2 * d] = 0;
        t->out_tag[2 * d + 1] = 1;
        t->in_tag[2 * d] = 1;
        t->in_tag[2 * d + 1] = 0;
    }
    return MPI_SUCCESS;
}

/* A topology for a grid of ndims (dims, periods) seen from `rank`, or
 * NULL when out of memory. */
static struct ump_mpi_topo *cart_build(int ndims, const int *dims, const int *periods, int rank)
{
    struct ump_mpi_topo *t = ump_mpi_topo_new(MPI_CART);
    if (!t) return NULL;
    t->ndims = ndims;
    t->dims = ump_mpi_topo_intdup(dims, ndims);
    t->periods = malloc(sizeof(int) * (size_t)(ndims ? ndims : 1));
    if (!t->dims || !t->periods) goto err;
    for (int d = 0; d < ndims; d++)
        t->periods[d] = periods[d] != 0;
    if (ump_mpi_cart_lists(t, rank) != MPI_SUCCESS) goto err;
    return t;
err:
    ump_mpi_topo_destroy(t);
    return NULL;
}

/* Checks a grid description; *nnodes gets its number of processes. */
static int grid_check(const char *call, MPI_Comm comm, int ndims, const int *dims,
                      const int *periods, int *nnodes)
{
    if (ndims < 0) return ump_mpi_error(comm, MPI_ERR_DIMS, call, "ndims %d is negative", ndims);
    if (ndims > 0 && (!dims || !periods))
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "dims or periods is NULL with ndims %d",
                             ndims);
    long long n = 1;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] <= 0)
            return ump_mpi_error(comm, MPI_ERR_DIMS, call,
                                 "dims[%d] is %d; every dimension needs at least one process", d,
                                 dims[d]);
        n *= dims[d];
        if (n > comm->size)
            return ump_mpi_error(comm, MPI_ERR_TOPOLOGY, call,
                                 "the grid (dims[0..%d]) has more processes than the "
                                 "communicator (size %d)",
                                 d, comm->size);
    }
    *nnodes = (int)n;
    return MPI_SUCCESS;
}

/* Makes the communicator of a grid from the first nnodes ranks of comm
 * and attaches the topology; MPI_COMM_NULL on the other ranks. */
static int cart_make(const char *call, MPI_Comm comm, int ndims, const int *dims,
                     const int *periods, int nnodes, int color, int key, MPI_Comm *newcomm)
{
    MPI_Comm nc = MPI_COMM_NULL;
    (void)nnodes;
    int rc = PMPI_Comm_split(comm, color, key, &nc);
    if (rc != MPI_SUCCESS) return rc;
    if (nc == MPI_COMM_NULL) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    rc = ump_mpi_topo_attach(call, nc, cart_build(ndims, dims, periods, nc->rank));
    if (rc != MPI_SUCCESS) {
        PMPI_Comm_free(&nc);
        return rc;
    }
    *newcomm = nc;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_create = PMPI_Cart_create
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    static const char call[] = "MPI_Cart_create";
    (void)reorder; /* the identity mapping serves every reorder */
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm_old);
    UMP_MPI_CHECK_INTRA(call, comm_old);
    if (!comm_cart) return ump_mpi_error(comm_old, MPI_ERR_ARG, call, "comm_cart pointer is NULL");
    int nnodes, rc = grid_check(call, comm_old, ndims, dims, periods, &nnodes);
    if (rc != MPI_SUCCESS) return rc;
    int color = comm_old->rank < nnodes ? 0 : MPI_UNDEFINED;
    return cart_make(call, comm_old, ndims, dims, periods, nnodes, color, comm_old->rank,
                     comm_cart);
}

#pragma weak MPI_Cart_map = PMPI_Cart_map
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    static const char call[] = "MPI_Cart_map";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!newrank) return ump_mpi_error(comm, MPI_ERR_ARG, call, "newrank pointer is NULL");
    int nnodes, rc = grid_check(call, comm, ndims, dims, periods, &nnodes);
    if (rc != MPI_SUCCESS) return rc;
    *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get
int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    static const char call[] = "MPI_Cartdim_get";
    UMP_MPI_CHECK_INIT(call);
    int rc;
    struct ump_mpi_topo *t = ump_mpi_topo_get(call, comm, MPI_CART, &rc);
    if (!t) return rc;
    if (!ndims) return ump_mpi_error(comm, MPI_ERR_ARG, call, "ndims pointer is NULL");
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_get = PMPI_Cart_get
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    static const char call[] = "MPI_Cart_get";
    UMP_MPI_CHECK_INIT(call);
    int rc;
    struct ump_mpi_topo *t = ump_mpi_topo_get(call, comm, MPI_CART, &rc);
    if (!t) return rc;
    if (maxdims < t->ndims)
        return ump_mpi_error(comm, MPI_ERR_ARG, call,
                             "maxdims %d is smaller than the %d dimensions of the grid", maxdims,
                             t->ndims);
    if (t->ndims > 0 && (!dims || !periods || !coords))
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "dims, periods or coords is NULL");
    for (int d = 0; d < t->ndims; d++) {
        dims[d] = t->dims[d];
        periods[d] = t->periods[d];
        coords[d] = t->coords[d];
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_rank = PMPI_Cart_rank
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char call[] = "MPI_Cart_rank";
    UMP_MPI_CHECK_INIT(call);
    int rc;
    struct ump_mpi_topo *t = ump_mpi_topo_get(call, comm, MPI_CART, &rc);
    if (!t) return rc;
    if (!rank) return ump_mpi_error(comm, MPI_ERR_ARG, call, "rank pointer is NULL");
    if (t->ndims > 0 && !coords) return ump_mpi_error(comm, MPI_ERR_ARG, call, "coords is NULL");
    int r = 0;
    for (int d = 0; d < t->ndims; d++) {
        int n = t->dims[d], c = coords[d];
        if (t->periods[d]) {
            c = ((c % n) + n) % n;
        } else if (c < 0 || c >= n) {
            return ump_mpi_error(comm, MPI_ERR_ARG, call,
                                 "coords[%d] = %d is outside [0, %d) of a non-periodic dimension",
                                 d, c, n);
        }
        r = r * n + c;
    }
    *rank = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_coords = PMPI_Cart_coords
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char call[] = "MPI_Cart_coords";
    UMP_MPI_CHECK_INIT(call);
    int rc;
    struct ump_mpi_topo *t = ump_mpi_topo_get(call, comm, MPI_CART, &rc);
    if (!t) return rc;
    if (rank < 0 || rank >= comm->size)
        return ump_mpi_error(comm, MPI_ERR_RANK, call,
                             "rank %d is out of range [0, %d) of the grid", rank, comm->size);
    if (maxdims < t->ndims)
        return ump_mpi_error(comm, MPI_ERR_ARG, call,
                             "maxdims %d is smaller than the %d dimensions of the grid", maxdims,
                             t->ndims);
    if (t->ndims > 0 && !coords) return ump_mpi_error(comm, MPI_ERR_ARG, call, "coords is NULL");
    ump_mpi_cart_coords_of(t, rank, coords);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_shift = PMPI_Cart_shift
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    static const char call[] = "MPI_Cart_shift";
    UMP_MPI_CHECK_INIT(call);
    int rc;
    struct ump_mpi_topo *t = ump_mpi_topo_get(call, comm, MPI_CART, &rc);
    if (!t) return rc;
    if (!rank_source || !rank_dest)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "rank_source or rank_dest is NULL");
    if (direction < 0 || direction >= t->ndims)
        return ump_mpi_error(comm, MPI_ERR_ARG, call,
                             "direction %d is not a dimension of the grid [0, %d)", direction,
                             t->ndims);
    if (disp == INT_MIN)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "disp %d cannot be negated", disp);
    *rank_source = shifted(t, direction, -disp);
    *rank_dest = shifted(t, direction, disp);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_sub = PMPI_Cart_sub
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Cart_sub";
    UMP_MPI_CHECK_INIT(call);
    int rc;
    struct ump_mpi_topo *t = ump_mpi_topo_get(call, comm, MPI_CART, &rc);
    if (!t) return rc;
    if (!newcomm) return ump_mpi_error(comm, MPI_ERR_ARG, call, "newcomm pointer is NULL");
    if (t->ndims > 0 && !remain_dims)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "remain_dims is NULL");
    int *dims = malloc(sizeof(int) * (size_t)(t->ndims + 1));
    int *periods = malloc(sizeof(int) * (size_t)(t->ndims + 1));
    if (!dims || !periods) {
        free(dims);
        free(periods);
        return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    /* The processes that share the coordinates of the dropped dimensions
     * form one subgrid; the color numbers those coordinates row-major. The
     * key keeps the grid's row-major order inside each subgrid. */
    int k = 0, color = 0;
    for (int d = 0; d < t->ndims; d++) {
        if (remain_dims[d]) {
            dims[k] = t->dims[d];
            periods[k++] = t->periods[d];
        } else {
            color = color * t->dims[d] + t->coords[d];
        }
    }
    int nnodes = 1;
    for (int d = 0; d < k; d++)
        nnodes *= dims[d];
    rc = cart_make(call, comm, k, dims, periods, nnodes, color, comm->rank, newcomm);
    free(dims);
    free(periods);
    return rc;
}

/* --- Dims_create ------------------------------------------------------------ */

/* Whether d^k >= m (without overflow). */
static bool pow_at_least(long long d, int k, long long m)
{
    long long p = 1;
    for (int i = 0; i < k; i++) {
        p *= d;
        if (p >= m) return true;
    }
    return p >= m;
}

/* The lexicographically smallest non-increasing k-tuple of divisors (from
 * divs, ascending) with product m and first entry at most cap, into out;
 * false when there is none. Its largest factor is as small as it can be,
 * then the next, and so on: the dimensions are as close to each other as
 * the factors of m allow (MPI 3.1 §7.5.2). */
static bool balance(const int *divs, int ndivs, int m, int k, int cap, int *out)
{
    if (k == 0) return m == 1;
    if (k == 1) {
        if (m > cap) return false;
        out[0] = m;
        return true;
    }
    for (int i = 0; i < ndivs && divs[i] <= cap && divs[i] <= m; i++) {
        int d = divs[i];
        if (m % d || !pow_at_least(d, k, m)) continue;
        if (balance(divs, ndivs, m / d, k - 1, d, out + 1)) {
            out[0] = d;
            return true;
        }
    }
    return false;
}

#pragma weak MPI_Dims_create = PMPI_Dims_create
int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char call[] = "MPI_Dims_create";
    MPI_Comm w = MPI_COMM_WORLD;
    UMP_MPI_CHECK_INIT(call);
    if (nnodes <= 0)
        return ump_mpi_error(w, MPI_ERR_ARG, call, "nnodes %d is not positive", nnodes);
    if (ndims < 0) return ump_mpi_error(w, MPI_ERR_DIMS, call, "ndims %d is negative", ndims);
    if (ndims > 0 && !dims)
        return ump_mpi_error(w, MPI_ERR_ARG, call, "dims is NULL with ndims %d", ndims);
    long long fixed = 1;
    int free_dims = 0;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 0)
            return ump_mpi_error(w, MPI_ERR_DIMS, call, "dims[%d] = %d is negative", d, dims[d]);
        if (dims[d] == 0) {
            free_dims++;
            continue;
        }
        fixed *= dims[d];
        if (fixed > nnodes || nnodes % fixed)
            return ump_mpi_error(w, MPI_ERR_DIMS, call,
                                 "the fixed entries of dims (up to dims[%d]) do not divide "
                                 "nnodes %d",
                                 d, nnodes);
    }
    int m = nnodes / (int)fixed;
    if (free_dims == 0) {
        if (m != 1)
            return ump_mpi_error(w, MPI_ERR_DIMS, call,
                                 "dims has no free entry and its product is not nnodes %d", nnodes);
        return MPI_SUCCESS;
    }
    /* Divisors of m, ascending. */
    int ndivs = 0, cap = 2;
    int *divs = malloc(sizeof(int) * (size_t)cap);
    int *out = malloc(sizeof(int) * (size_t)free_dims);
    if (!divs || !out) goto nomem;
    for (int small = 0; small < 2; small++)
        for (long long i = 1; i * i <= m; i++) {
            if (m % i) continue;
            /* first pass the small divisors, second the large ones */
            int d = small == 0 ? (int)i : m / (int)i;
            if (small == 1 && d == (int)i) continue;
            if (ndivs == cap) {
                int *p = realloc(divs, sizeof(int) * (size_t)(cap *= 2));
                if (!p) goto nomem;
                divs = p;
            }
            divs[ndivs++] = d;
        }
    /* The large divisors came out descending: reverse them. */
    int nsmall = 0;
    while (nsmall < ndivs && (long long)divs[nsmall] * divs[nsmall] <= m)
        nsmall++;
    for (int i = nsmall, j = ndivs - 1; i < j; i++, j--) {
        int x = divs[i];
        divs[i] = divs[j];
        divs[j] = x;
    }
    if (!balance(divs, ndivs, m, free_dims, m, out)) {
        free(divs);
        free(out);
        return ump_mpi_error(w, MPI_ERR_INTERN, call, "no factorization of %d found", m);
    }
    for (int d = 0, k = 0; d < ndims; d++)
        if (dims[d] == 0) dims[d] = out[k++];
    free(divs);
    free(out);
    return MPI_SUCCESS;
nomem:
    free(divs);
    free(out);
    return ump_mpi_error(w, MPI_ERR_NO_MEM, call, "out of memory");
}
