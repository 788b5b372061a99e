/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Distributed graph topologies (MPI 3.1 §7.5.4, 7.5.5):
 * Dist_graph_create_adjacent, Dist_graph_create, Dist_graph_neighbors_count,
 * Dist_graph_neighbors.
 *
 * Each process keeps only its own in- and out-neighbours (and their
 * weights). The adjacent form is given them directly. In the general form
 * any process may name any edge, so the edges are exchanged with one
 * Alltoall of counts and one Alltoallv of (other end, weight, direction)
 * records, each edge going to both of its ends; a process then lists its
 * neighbours in the order of the rank that named the edge, and within that
 * in the order that rank gave them. The info argument is checked and
 * otherwise ignored; the group keeps its order (no reordering).
 */
#include <stdlib.h>

#include "mpi/topo.h"

/* Checks `n` ranks of comm named by argument `what`. */
static int ranks_check(const char *call, MPI_Comm comm, const int *r, int n, const char *what)
{
    if (n > 0 && !r) return ump_mpi_error(comm, MPI_ERR_ARG, call, "%s is NULL", what);
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= comm->size)
            return ump_mpi_error(comm, MPI_ERR_RANK, call,
                                 "%s[%d] = %d is not a rank of the communicator [0, %d)", what, i,
                                 r[i], comm->size);
    return MPI_SUCCESS;
}

/* Checks the weights of n edges (w is MPI_UNWEIGHTED when unweighted). */
static int weights_check(const char *call, MPI_Comm comm, const int *w, int n, const char *what)
{
    if (w == MPI_UNWEIGHTED) return MPI_SUCCESS;
    if (w == MPI_WEIGHTS_EMPTY) {
        if (n == 0) return MPI_SUCCESS;
        return ump_mpi_error(comm, MPI_ERR_ARG, call,
                             "%s is MPI_WEIGHTS_EMPTY but there are %d edges", what, n);
    }
    if (n > 0 && !w) return ump_mpi_error(comm, MPI_ERR_ARG, call, "%s is NULL", what);
    for (int i = 0; i < n; i++)
        if (w[i] < 0)
            return ump_mpi_error(comm, MPI_ERR_ARG, call, "%s[%d] = %d is negative", what, i, w[i]);
    return MPI_SUCCESS;
}

static int info_check(const char *call, MPI_Comm comm, MPI_Info info)
{
    if (info != MPI_INFO_NULL && !ump_mpi_info_ok(info))
        return ump_mpi_error(comm, MPI_ERR_INFO, call, "invalid info object");
    return MPI_SUCCESS;
}

/* A distributed-graph topology with the given lists (weights NULL when
 * unweighted), or NULL when out of memory. */
static struct ump_mpi_topo *dist_build(int indeg, const int *in, const int *sw, int outdeg,
                                       const int *out, const int *dw, bool weighted)
{
    struct ump_mpi_topo *t = ump_mpi_topo_new(MPI_DIST_GRAPH);
    if (!t) return NULL;
    t->indeg = indeg;
    t->outdeg = outdeg;
    t->weighted = weighted;
    t->in = ump_mpi_topo_intdup(in, indeg);
    t->out = ump_mpi_topo_intdup(out, outdeg);
    t->in_tag = calloc((size_t)(indeg ? indeg : 1), 1);
    t->out_tag = calloc((size_t)(outdeg ? outdeg : 1), 1);
    bool ok = t->in && t->out && t->in_tag && t->out_tag;
    if (ok && weighted) {
        t->sweights = ump_mpi_topo_intdup(sw, indeg);
        t->dweights = ump_mpi_topo_intdup(dw, outdeg);
        ok = t->sweights && t->dweights;
    }
    if (!ok) {
        ump_mpi_topo_destroy(t);
        return NULL;
    }
    return t;
}

/* The new communicator (the old group, same order) with t attached. */
static int dist_make(const char *call, MPI_Comm comm, struct ump_mpi_topo *t, MPI_Comm *newcomm)
{
    MPI_Comm nc = MPI_COMM_NULL;
    int rc = PMPI_Comm_split(comm, 0, comm->rank, &nc);
    if (rc != MPI_SUCCESS) {
        ump_mpi_topo_destroy(t);
        return rc;
    }
    rc = ump_mpi_topo_attach(call, nc, t);
    if (rc != MPI_SUCCESS) {
        PMPI_Comm_free(&nc);
        return rc;
    }
    *newcomm = nc;
    return MPI_SUCCESS;
}

#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    static const char call[] = "MPI_Dist_graph_create_adjacent";
    (void)reorder; /* the identity mapping serves every reorder */
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm_old);
    UMP_MPI_CHECK_INTRA(call, comm_old);
    MPI_Comm c = comm_old;
    if (!comm_dist_graph)
        return ump_mpi_error(c, MPI_ERR_ARG, call, "comm_dist_graph pointer is NULL");
    if (indegree < 0 || outdegree < 0)
        return ump_mpi_error(c, MPI_ERR_ARG, call, "indegree %d or outdegree %d is negative",
                             indegree, outdegree);
    int rc;
    if ((rc = ranks_check(call, c, sources, indegree, "sources")) != MPI_SUCCESS ||
        (rc = ranks_check(call, c, destinations, outdegree, "destinations")) != MPI_SUCCESS ||
        (rc = weights_check(call, c, sourceweights, indegree, "sourceweights")) != MPI_SUCCESS ||
        (rc = weights_check(call, c, destweights, outdegree, "destweights")) != MPI_SUCCESS ||
        (rc = info_check(call, c, info)) != MPI_SUCCESS)
        return rc;
    /* MPI_UNWEIGHTED on either side makes the graph unweighted. */
    bool weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    struct ump_mpi_topo *t = dist_build(indegree, sources, sourceweights, outdegree, destinations,
                                        destweights, weighted);
    return dist_make(call, c, t, comm_dist_graph);
}

/* An edge as its end learns it: the rank at the other end, the weight,
 * and whether it is an out-edge (ROLE_OUT) or an in-edge of the receiver. */
enum { REC = 3, ROLE_OUT = 0, ROLE_IN = 1 };

/* Exchanges the edges this process names so each process learns its own;
 * *tp gets the topology. Collective over comm. */
static int exchange(const char *call, MPI_Comm comm, int n, const int *sources, const int *degrees,
                    const int *destinations, const int *weights, struct ump_mpi_topo **tp)
{
    int size = comm->size, rc = MPI_SUCCESS, nedges = 0, total = 0, indeg = 0, outdeg = 0;
    for (int i = 0; i < n; i++)
        nedges += degrees[i];
    int mine = weights != MPI_UNWEIGHTED, weighted = 0;
    size_t sz = (size_t)size;
    int *scount = calloc(sz, sizeof(int)), *rcount = calloc(sz, sizeof(int));
    int *sdisp = calloc(sz, sizeof(int)), *rdisp = calloc(sz, sizeof(int));
    int *pos = calloc(sz, sizeof(int));
    int *srec = malloc(sizeof(int) * REC * 2 * (size_t)(nedges ? nedges : 1));
    int *rrec = NULL, *in = NULL, *out = NULL, *sw = NULL, *dw = NULL;
    if (!scount || !rcount || !sdisp || !rdisp || !pos || !srec) goto nomem;
    /* Each edge goes to its source (as an out-edge) and to its destination
     * (as an in-edge); counted per receiver first, then laid out. */
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            scount[sources[i]] += REC;
            scount[destinations[e]] += REC;
        }
    for (int r = 1; r < size; r++)
        sdisp[r] = sdisp[r - 1] + scount[r - 1];
    for (int r = 0; r < size; r++)
        pos[r] = sdisp[r];
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            int s = sources[i], d = destinations[e], w = mine ? weights[e] : 1;
            int *p = srec + pos[s];
            p[0] = d;
            p[1] = w;
            p[2] = ROLE_OUT;
            pos[s] += REC;
            p = srec + pos[d];
            p[0] = s;
            p[1] = w;
            p[2] = ROLE_IN;
            pos[d] += REC;
        }
    /* Weighted when any process gave weights (the standard asks all or none). */
    if ((rc = PMPI_Allreduce(&mine, &weighted, 1, MPI_INT, MPI_MAX, comm)) != MPI_SUCCESS ||
        (rc = PMPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm)) != MPI_SUCCESS)
        goto out;
    for (int r = 0; r < size; r++) {
        rdisp[r] = total;
        total += rcount[r];
    }
    int nrec = total / REC, cap = nrec ? nrec : 1;
    rrec = malloc(sizeof(int) * (size_t)(total ? total : 1));
    in = malloc(sizeof(int) * (size_t)cap);
    out = malloc(sizeof(int) * (size_t)cap);
    sw = malloc(sizeof(int) * (size_t)cap);
    dw = malloc(sizeof(int) * (size_t)cap);
    /* Out of memory here is reported after the exchange, so the others do
     * not wait for this process forever. */
    bool ok = rrec && in && out && sw && dw;
    if (!ok)
        for (int r = 0; r < size; r++)
            rcount[r] = 0;
    rc = PMPI_Alltoallv(srec, scount, sdisp, MPI_INT, ok ? rrec : srec, rcount, rdisp, MPI_INT,
                        comm);
    if (rc != MPI_SUCCESS) goto out;
    if (!ok) goto nomem;
    for (int i = 0; i < nrec; i++) {
        const int *p = rrec + REC * i;
        if (p[2] == ROLE_OUT) {
            dw[outdeg] = p[1];
            out[outdeg++] = p[0];
        } else {
            sw[indeg] = p[1];
            in[indeg++] = p[0];
        }
    }
    *tp = dist_build(indeg, in, sw, outdeg, out, dw, weighted != 0);
    goto out;
nomem:
    rc = ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory exchanging the edges");
out:
    free(scount);
    free(rcount);
    free(sdisp);
    free(rdisp);
    free(pos);
    free(srec);
    free(rrec);
    free(in);
    free(out);
    free(sw);
    free(dw);
    return rc;
}

#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    static const char call[] = "MPI_Dist_graph_create";
    (void)reorder; /* the identity mapping serves every reorder */
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm_old);
    UMP_MPI_CHECK_INTRA(call, comm_old);
    MPI_Comm c = comm_old;
    if (!comm_dist_graph)
        return ump_mpi_error(c, MPI_ERR_ARG, call, "comm_dist_graph pointer is NULL");
    if (n < 0) return ump_mpi_error(c, MPI_ERR_ARG, call, "n %d is negative", n);
    if (n > 0 && !degrees) return ump_mpi_error(c, MPI_ERR_ARG, call, "degrees is NULL");
    long long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return ump_mpi_error(c, MPI_ERR_ARG, call, "degrees[%d] = %d is negative", i,
                                 degrees[i]);
        nedges += degrees[i];
    }
    if (nedges > (1 << 26))
        return ump_mpi_error(c, MPI_ERR_ARG, call, "%lld edges from one process are too many",
                             nedges);
    int rc;
    if ((rc = ranks_check(call, c, sources, n, "sources")) != MPI_SUCCESS ||
        (rc = ranks_check(call, c, destinations, (int)nedges, "destinations")) != MPI_SUCCESS ||
        (rc = weights_check(call, c, weights, (int)nedges, "weights")) != MPI_SUCCESS ||
        (rc = info_check(call, c, info)) != MPI_SUCCESS)
        return rc;
    struct ump_mpi_topo *t = NULL;
    rc = exchange(call, c, n, sources, degrees, destinations, weights, &t);
    if (rc != MPI_SUCCESS) {
        ump_mpi_topo_destroy(t);
        return rc;
    }
    return dist_make(call, c, t, comm_dist_graph);
}

#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    static const char call[] = "MPI_Dist_graph_neighbors_count";
    UMP_MPI_CHECK_INIT(call);
    int rc;
    struct ump_mpi_topo *t = ump_mpi_topo_get(call, comm, MPI_DIST_GRAPH, &rc);
    if (!t) return rc;
    if (!indegree || !outdegree || !weighted)
        return ump_mpi_error(comm, MPI_ERR_ARG, call,
                             "indegree, outdegree or weighted pointer is NULL");
    *indegree = t->indeg;
    *outdegree = t->outdeg;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}

#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    static const char call[] = "MPI_Dist_graph_neighbors";
    UMP_MPI_CHECK_INIT(call);
    int rc;
    struct ump_mpi_topo *t = ump_mpi_topo_get(call, comm, MPI_DIST_GRAPH, &rc);
    if (!t) return rc;
    if (maxindegree < 0 || maxoutdegree < 0)
        return ump_mpi_error(comm, MPI_ERR_ARG, call,
                             "maxindegree %d or maxoutdegree %d is negative", maxindegree,
                             maxoutdegree);
    if ((maxindegree > 0 && t->indeg > 0 && !sources) ||
        (maxoutdegree > 0 && t->outdeg > 0 && !destinations))
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "sources or destinations is NULL");
    /* Weights are returned only for a weighted graph, into arrays given. */
    bool wsrc = t->weighted && sourceweights && sourceweights != MPI_UNWEIGHTED &&
                sourceweights != MPI_WEIGHTS_EMPTY;
    bool wdst = t->weighted && destweights && destweights != MPI_UNWEIGHTED &&
                destweights != MPI_WEIGHTS_EMPTY;
    for (int i = 0; i < t->indeg && i < maxindegree; i++) {
        sources[i] = t->in[i];
        if (wsrc) sourceweights[i] = t->sweights[i];
    }
    for (int i = 0; i < t->outdeg && i < maxoutdegree; i++) {
        destinations[i] = t->out[i];
        if (wdst) destweights[i] = t->dweights[i];
    }
    return MPI_SUCCESS;
}
