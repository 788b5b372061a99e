/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Graph topologies (MPI 3.1 §7.5.3, 7.5.5, 7.5.8): Graph_create,
 * Graph_get, Graphdims_get, Graph_neighbors_count, Graph_neighbors,
 * Graph_map.
 *
 * Every process keeps the whole graph, as the standard's queries return
 * it. Node i is rank i of the new communicator, which takes the first
 * nnodes ranks of the old one in their order (no reordering). Self loops
 * and repeated edges are kept: a neighbourhood collective sends to and
 * receives from each adjacency entry, in the adjacency order.
 */
#include <stdlib.h>

#include "mpi/topo.h"

static int graph_check(const char *call, MPI_Comm comm, int nnodes, const int *index,
                       const int *edges)
{
    if (nnodes < 0) return ump_mpi_error(comm, MPI_ERR_ARG, call, "nnodes %d is negative", nnodes);
    if (nnodes > comm->size)
        return ump_mpi_error(comm, MPI_ERR_TOPOLOGY, call,
                             "nnodes %d is larger than the communicator (size %d)", nnodes,
                             comm->size);
    if (nnodes > 0 && !index) return ump_mpi_error(comm, MPI_ERR_ARG, call, "index is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return ump_mpi_error(comm, MPI_ERR_ARG, call,
                                 "index[%d] = %d is smaller than the entry before it (%d)", i,
                                 index[i], i ? index[i - 1] : 0);
    int nedges = nnodes ? index[nnodes - 1] : 0;
    if (nedges > 0 && !edges) return ump_mpi_error(comm, MPI_ERR_ARG, call, "edges is NULL");
    for (int e = 0; e < nedges; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return ump_mpi_error(comm, MPI_ERR_RANK, call,
                                 "edges[%d] = %d is not a node of the graph [0, %d)", e, edges[e],
                                 nnodes);
    return MPI_SUCCESS;
}

static struct ump_mpi_topo *graph_build(int nnodes, const int *index, const int *edges, int rank)
{
    struct ump_mpi_topo *t = ump_mpi_topo_new(MPI_GRAPH);
    if (!t) return NULL;
    t->nnodes = nnodes;
    t->nedges = index[nnodes - 1];
    int first = rank ? index[rank - 1] : 0, n = index[rank] - first;
    t->index = ump_mpi_topo_intdup(index, nnodes);
    t->edges = ump_mpi_topo_intdup(edges, t->nedges);
    t->in = ump_mpi_topo_intdup(edges + first, n);
    t->out = ump_mpi_topo_intdup(edges + first, n);
    t->in_tag = calloc((size_t)(n ? n : 1), 1);
    t->out_tag = calloc((size_t)(n ? n : 1), 1);
    t->indeg = t->outdeg = n;
    if (!t->index || !t->edges || !t->in || !t->out || !t->in_tag || !t->out_tag) {
        ump_mpi_topo_destroy(t);
        return NULL;
    }
    return t;
}

#pragma weak MPI_Graph_create = PMPI_Graph_create
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    static const char call[] = "MPI_Graph_create";
    (void)reorder; /* the identity mapping serves every reorder */
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm_old);
    UMP_MPI_CHECK_INTRA(call, comm_old);
    if (!comm_graph)
        return ump_mpi_error(comm_old, MPI_ERR_ARG, call, "comm_graph pointer is NULL");
    int rc = graph_check(call, comm_old, nnodes, index, edges);
    if (rc != MPI_SUCCESS) return rc;
    if (nnodes == 0) {
        /* An empty graph: MPI_COMM_NULL everywhere (MPI 3.1 §7.5.3). */
        *comm_graph = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    MPI_Comm nc = MPI_COMM_NULL;
    int color = comm_old->rank < nnodes ? 0 : MPI_UNDEFINED;
    rc = PMPI_Comm_split(comm_old, color, comm_old->rank, &nc);
    if (rc != MPI_SUCCESS) return rc;
    if (nc == MPI_COMM_NULL) {
        *comm_graph = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    rc = ump_mpi_topo_attach(call, nc, graph_build(nnodes, index, edges, nc->rank));
    if (rc != MPI_SUCCESS) {
        PMPI_Comm_free(&nc);
        return rc;
    }
    *comm_graph = nc;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_map = PMPI_Graph_map
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    static const char call[] = "MPI_Graph_map";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!newrank) return ump_mpi_error(comm, MPI_ERR_ARG, call, "newrank pointer is NULL");
    int rc = graph_check(call, comm, nnodes, index, edges);
    if (rc != MPI_SUCCESS) return rc;
    *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get
int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    static const char call[] = "MPI_Graphdims_get";
    UMP_MPI_CHECK_INIT(call);
    int rc;
    struct ump_mpi_topo *t = ump_mpi_topo_get(call, comm, MPI_GRAPH, &rc);
    if (!t) return rc;
    if (!nnodes || !nedges)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "nnodes or nedges pointer is NULL");
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_get = PMPI_Graph_get
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    static const char call[] = "MPI_Graph_get";
    UMP_MPI_CHECK_INIT(call);
    int rc;
    struct ump_mpi_topo *t = ump_mpi_topo_get(call, comm, MPI_GRAPH, &rc);
    if (!t) return rc;
    if (maxindex < 0 || maxedges < 0)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "maxindex %d or maxedges %d is negative",
                             maxindex, maxedges);
    if ((maxindex > 0 && !index) || (maxedges > 0 && !edges))
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "index or edges is NULL");
    /* The arrays are as long as the caller says; what fits is returned. */
    for (int i = 0; i < maxindex && i < t->nnodes; i++)
        index[i] = t->index[i];
    for (int e = 0; e < maxedges && e < t->nedges; e++)
        edges[e] = t->edges[e];
    return MPI_SUCCESS;
}

/* The adjacency of `rank` in t (first entry and count), after checking rank. */
static int adjacency(const char *call, MPI_Comm comm, const struct ump_mpi_topo *t, int rank,
                     int *first, int *n)
{
    if (rank < 0 || rank >= t->nnodes)
        return ump_mpi_error(comm, MPI_ERR_RANK, call, "rank %d is not a node of the graph [0, %d)",
                             rank, t->nnodes);
    *first = rank ? t->index[rank - 1] : 0;
    *n = t->index[rank] - *first;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    static const char call[] = "MPI_Graph_neighbors_count";
    UMP_MPI_CHECK_INIT(call);
    int rc, first, n;
    struct ump_mpi_topo *t = ump_mpi_topo_get(call, comm, MPI_GRAPH, &rc);
    if (!t) return rc;
    if (!nneighbors) return ump_mpi_error(comm, MPI_ERR_ARG, call, "nneighbors pointer is NULL");
    if ((rc = adjacency(call, comm, t, rank, &first, &n)) != MPI_SUCCESS) return rc;
    *nneighbors = n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    static const char call[] = "MPI_Graph_neighbors";
    UMP_MPI_CHECK_INIT(call);
    int rc, first, n;
    struct ump_mpi_topo *t = ump_mpi_topo_get(call, comm, MPI_GRAPH, &rc);
    if (!t) return rc;
    if ((rc = adjacency(call, comm, t, rank, &first, &n)) != MPI_SUCCESS) return rc;
    if (maxneighbors < 0)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "maxneighbors %d is negative", maxneighbors);
    if (maxneighbors > 0 && !neighbors)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "neighbors is NULL");
    for (int i = 0; i < n && i < maxneighbors; i++)
        neighbors[i] = t->edges[first + i];
    return MPI_SUCCESS;
}
