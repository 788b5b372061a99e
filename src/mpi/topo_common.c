/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every process topology shares: the object's life cycle (made by a
 * constructor, attached to a new communicator with a hidden duplicate for
 * neighbourhood traffic, copied by MPI_Comm_dup, freed with the
 * communicator) and MPI_Topo_test.
 *
 * Reordering: every constructor keeps the rank order of the old
 * communicator (the identity mapping, which the standard allows for any
 * `reorder`). A mapping that follows the node layout is a later step.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/topo.h"

/* MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY: only their addresses matter. */
int ump_mpi_unweighted[1], ump_mpi_weights_empty[1];

struct ump_mpi_topo *ump_mpi_topo_new(int kind)
{
    struct ump_mpi_topo *t = calloc(1, sizeof(*t));
    if (t) t->kind = kind;
    return t;
}

void ump_mpi_topo_destroy(struct ump_mpi_topo *t)
{
    if (!t) return;
    free(t->dims);
    free(t->periods);
    free(t->coords);
    free(t->index);
    free(t->edges);
    free(t->sweights);
    free(t->dweights);
    free(t->in);
    free(t->out);
    free(t->in_tag);
    free(t->out_tag);
    free(t);
}

int *ump_mpi_topo_intdup(const int *a, int n)
{
    int *p = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (p && n > 0) memcpy(p, a, sizeof(int) * (size_t)n);
    return p;
}

static uint8_t *bytedup(const uint8_t *a, int n)
{
    uint8_t *p = malloc((size_t)(n > 0 ? n : 1));
    if (p && n > 0) memcpy(p, a, (size_t)n);
    return p;
}

/* Releases the hidden duplicate (never given to the user, so it has no
 * attributes and nothing else to call back). */
static void hidden_free(MPI_Comm h)
{
    if (!h) return;
    ump_mpi_comm_unref(h);
}

int ump_mpi_topo_attach(const char *call, MPI_Comm c, struct ump_mpi_topo *t)
{
    /* c has no attributes and no topology yet, so the duplicate copies
     * nothing but the group. Every member duplicates, even one whose
     * topology could not be built (t NULL), or the others would wait for
     * it forever. */
    MPI_Comm h = MPI_COMM_NULL;
    int rc = PMPI_Comm_dup(c, &h);
    if (rc != MPI_SUCCESS) {
        ump_mpi_topo_destroy(t);
        return ump_mpi_error(c, rc, call,
                             "duplicating the communicator for neighbour traffic failed");
    }
    if (!t) {
        hidden_free(h);
        return ump_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory for the topology");
    }
    t->hidden = h;
    t->seq = 0;
    c->topo = t;
    return MPI_SUCCESS;
}

void ump_mpi_topo_free(MPI_Comm c)
{
    struct ump_mpi_topo *t = c->topo;
    c->topo = NULL;
    if (!t) return;
    hidden_free(t->hidden);
    ump_mpi_topo_destroy(t);
}

int ump_mpi_topo_dup(const char *call, MPI_Comm oldc, MPI_Comm newc)
{
    const struct ump_mpi_topo *o = oldc->topo;
    struct ump_mpi_topo *t = ump_mpi_topo_new(o->kind);
    bool ok = t != NULL;
    if (ok) {
        t->ndims = o->ndims;
        t->nnodes = o->nnodes;
        t->nedges = o->nedges;
        t->weighted = o->weighted;
        t->indeg = o->indeg;
        t->outdeg = o->outdeg;
        ok = (t->in = ump_mpi_topo_intdup(o->in, o->indeg)) &&
             (t->out = ump_mpi_topo_intdup(o->out, o->outdeg)) &&
             (t->in_tag = bytedup(o->in_tag, o->indeg)) &&
             (t->out_tag = bytedup(o->out_tag, o->outdeg));
        if (ok && o->kind == MPI_CART)
            ok = (t->dims = ump_mpi_topo_intdup(o->dims, o->ndims)) &&
                 (t->periods = ump_mpi_topo_intdup(o->periods, o->ndims)) &&
                 (t->coords = ump_mpi_topo_intdup(o->coords, o->ndims));
        if (ok && o->kind == MPI_GRAPH)
            ok = (t->index = ump_mpi_topo_intdup(o->index, o->nnodes)) &&
                 (t->edges = ump_mpi_topo_intdup(o->edges, o->nedges));
        if (ok && o->weighted)
            ok = (t->sweights = ump_mpi_topo_intdup(o->sweights, o->indeg)) &&
                 (t->dweights = ump_mpi_topo_intdup(o->dweights, o->outdeg));
    }
    /* Every member takes part in the duplicate even when out of memory,
     * or the others would wait for it forever. */
    MPI_Comm h = MPI_COMM_NULL;
    int rc = PMPI_Comm_dup(o->hidden, &h);
    if (rc != MPI_SUCCESS) {
        ump_mpi_topo_destroy(t);
        return ump_mpi_error(oldc, rc, call,
                             "duplicating the topology's private communicator failed");
    }
    if (!ok) {
        hidden_free(h);
        ump_mpi_topo_destroy(t);
        return ump_mpi_error(oldc, MPI_ERR_NO_MEM, call, "out of memory copying the topology");
    }
    t->hidden = h;
    newc->topo = t;
    return MPI_SUCCESS;
}

static const char *kind_name(int kind)
{
    return kind == MPI_CART ? "Cartesian" : kind == MPI_GRAPH ? "graph" : "distributed graph";
}

struct ump_mpi_topo *ump_mpi_topo_get(const char *call, MPI_Comm comm, int kind, int *err)
{
    if (!ump_mpi_comm_ok(comm)) {
        *err = ump_mpi_error(MPI_COMM_NULL, MPI_ERR_COMM, call, "invalid communicator");
        return NULL;
    }
    if (comm->rgroup) {
        *err = ump_mpi_error(comm, MPI_ERR_COMM, call,
                             "the communicator is an intercommunicator, which has no process "
                             "topology");
        return NULL;
    }
    struct ump_mpi_topo *t = comm->topo;
    if (!t) {
        *err = ump_mpi_error(comm, MPI_ERR_TOPOLOGY, call,
                             kind ? "the communicator has no %s topology"
                                  : "the communicator has no topology%s",
                             kind ? kind_name(kind) : "");
        return NULL;
    }
    if (kind && t->kind != kind) {
        *err = ump_mpi_error(comm, MPI_ERR_TOPOLOGY, call,
                             "the communicator has a %s topology, not a %s one", kind_name(t->kind),
                             kind_name(kind));
        return NULL;
    }
    *err = MPI_SUCCESS;
    return t;
}

#pragma weak MPI_Topo_test = PMPI_Topo_test
int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    static const char call[] = "MPI_Topo_test";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!status) return ump_mpi_error(comm, MPI_ERR_ARG, call, "status pointer is NULL");
    *status = comm->topo ? comm->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
