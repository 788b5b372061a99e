/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-communicator collective state: the sequence number that tags each
 * collective, and the node layout hierarchical algorithms use.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/coll_int.h"

UMP_CFG(ump_coll_fake_ppn, "UMP_COLL_FAKE_PPN", UMP_CFG_INT, "0",
        "testing: pretend world ranks sit on nodes of this many ranks (0: real nodes)");

static int node_id(int world)
{
    if (ump_coll_fake_ppn.v.i > 0) return world / (int)ump_coll_fake_ppn.v.i;
    int id = ump_node_id(world);
    return id < 0 ? 0 : id;
}

static int topo(MPI_Comm comm, ump_coll_comm_t *st)
{
    int n = comm->size;
    int *nid = malloc(sizeof(int) * (size_t)n);
    st->node_of = calloc((size_t)n, sizeof(int));
    st->leaders = malloc(sizeof(int) * (size_t)n);
    st->leader_crank = malloc(sizeof(int) * (size_t)n);
    st->local = malloc(sizeof(int) * (size_t)n);
    if (!nid || !st->node_of || !st->leaders || !st->leader_crank || !st->local) {
        free(nid);
        return MPI_ERR_NO_MEM;
    }
    /* Node indices are numbered by their lowest communicator rank, so
     * every rank computes the same numbering. */
    st->nnodes = 0;
    for (int i = 0; i < n; i++) {
        nid[i] = node_id(ump_mpi_world_rank(comm, i));
        int j;
        for (j = 0; j < i; j++)
            if (nid[j] == nid[i]) break;
        if (j < i) {
            st->node_of[i] = st->node_of[j];
        } else {
            st->node_of[i] = st->nnodes;
            st->leaders[st->nnodes] = ump_mpi_world_rank(comm, i);
            st->leader_crank[st->nnodes] = i;
            st->nnodes++;
        }
    }
    st->my_node = st->node_of[comm->rank];
    st->nlocal = 0;
    for (int i = 0; i < n; i++) {
        if (st->node_of[i] != st->my_node) continue;
        if (i == comm->rank) st->local_me = st->nlocal;
        st->local[st->nlocal++] = ump_mpi_world_rank(comm, i);
    }
    /* Ranks of the whole job on this node, against the cores we may use. */
    int here = 0, me = node_id(ump_rank());
    for (int r = 0; r < ump_size(); r++)
        here += node_id(r) == me;
    st->oversub = here > ump_num_cpus();
    free(nid);
    st->topo_done = true;
    return MPI_SUCCESS;
}

ump_coll_comm_t *ump_coll_state(MPI_Comm comm)
{
    ump_coll_comm_t *st = comm->coll;
    if (st) return st;
    st = calloc(1, sizeof(*st));
    if (!st) return NULL;
    if (topo(comm, st) != MPI_SUCCESS) {
        comm->coll = st;
        ump_coll_comm_free(comm);
        return NULL;
    }
    comm->coll = st;
    return st;
}

void ump_coll_comm_free(MPI_Comm comm)
{
    ump_coll_comm_t *st = comm->coll;
    if (!st) return;
    free(st->node_of);
    free(st->leaders);
    free(st->leader_crank);
    free(st->local);
    free(st->ftmp);
    free(st);
    comm->coll = NULL;
}
