/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicators (ump_comm_t): the ranks a collective runs over, and their
 * collective state: the sequence number that tags each collective, and the
 * node layout hierarchical algorithms use.
 */
#include <pthread.h>
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

static int topo(ump_comm_t comm, ump_coll_comm_t *st)
{
    int n = comm->size;
    int *nid = malloc(sizeof(int) * (size_t)n);
    st->node_of = calloc((size_t)n, sizeof(int));
    st->leaders = malloc(sizeof(int) * (size_t)n);
    st->leader_crank = malloc(sizeof(int) * (size_t)n);
    st->local = malloc(sizeof(int) * (size_t)n);
    if (!nid || !st->node_of || !st->leaders || !st->leader_crank || !st->local) {
        free(nid);
        return UMP_ERR_NO_MEMORY;
    }
    /* Node indices are numbered by their lowest communicator rank, so
     * every rank computes the same numbering. Members of several jobs
     * (processes met at run time) know each other's nodes only within
     * their own job: such a communicator puts each member on a node of its
     * own, which every member computes alike. */
    bool mixed = false;
    for (int i = 0; i < n; i++)
        mixed |= ump_coll_wrank(comm, i) >= ump_size();
    st->nnodes = 0;
    for (int i = 0; i < n; i++) {
        nid[i] = mixed ? i : node_id(ump_coll_wrank(comm, i));
        int j;
        for (j = 0; j < i; j++)
            if (nid[j] == nid[i]) break;
        if (j < i) {
            st->node_of[i] = st->node_of[j];
        } else {
            st->node_of[i] = st->nnodes;
            st->leaders[st->nnodes] = ump_coll_wrank(comm, i);
            st->leader_crank[st->nnodes] = i;
            st->nnodes++;
        }
    }
    st->my_node = st->node_of[comm->rank];
    st->nlocal = 0;
    for (int i = 0; i < n; i++) {
        if (st->node_of[i] != st->my_node) continue;
        if (i == comm->rank) st->local_me = st->nlocal;
        st->local[st->nlocal++] = ump_coll_wrank(comm, i);
    }
    /* Ranks of the whole job on this node, against the cores we may use. */
    int here = 0, me = node_id(ump_rank());
    for (int r = 0; r < ump_size(); r++)
        here += node_id(r) == me;
    /* The algorithms chosen by it must agree on every member: one constant
     * for a communicator of several jobs. */
    st->oversub = mixed || here > ump_num_cpus();
    free(nid);
    st->topo_done = true;
    return UMP_OK;
}

ump_coll_comm_t *ump_coll_state(ump_comm_t comm)
{
    ump_coll_comm_t *st = comm->coll;
    if (st) return st;
    st = calloc(1, sizeof(*st));
    if (!st) return NULL;
    if (topo(comm, st) != UMP_OK) {
        comm->coll = st;
        ump_coll_comm_free(comm);
        return NULL;
    }
    comm->coll = st;
    return st;
}

void ump_coll_comm_free(ump_comm_t comm)
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

/* --- the public communicator calls ---------------------------------------- */

int ump_comm_create(const int *world_ranks, int n, uint32_t ctx, ump_comm_t *out)
{
    static const char call[] = "ump_comm_create";
    if (!ump_initialized()) return UMP_ERR_NOT_INIT;
    /* Processes of other jobs met at run time count too (ump_npeers). */
    int me = ump_rank(), size = ump_npeers();
    if (!out) {
        ump_error("%s: out is NULL (rank %d)", call, me);
        return UMP_ERR_INVALID;
    }
    *out = NULL;
    if (n <= 0 || !world_ranks) {
        ump_error("%s: %d ranks at %p: a communicator needs at least one (rank %d)", call, n,
                  (const void *)world_ranks, me);
        return n <= 0 ? UMP_ERR_COUNT : UMP_ERR_INVALID;
    }
    struct ump_comm *c = calloc(1, sizeof(*c));
    char *seen = calloc((size_t)size, 1);
    if (c) c->world = malloc(sizeof(int) * (size_t)n);
    if (!c || !seen || !c->world) {
        free(seen);
        if (c) free(c->world);
        free(c);
        return UMP_ERR_NO_MEMORY;
    }
    c->rank = -1;
    for (int i = 0; i < n; i++) {
        int w = world_ranks[i];
        if (w < 0 || w >= size || seen[w]) {
            ump_error("%s: world_ranks[%d] = %d is %s (%d processes known; rank %d)", call, i, w,
                      w < 0 || w >= size ? "not a rank" : "repeated", size, me);
            free(seen);
            free(c->world);
            free(c);
            return UMP_ERR_RANK;
        }
        seen[w] = 1;
        c->world[i] = w;
        if (w == me) c->rank = i;
    }
    free(seen);
    if (c->rank < 0) {
        ump_error("%s: this process (rank %d) is not in world_ranks", call, me);
        free(c->world);
        free(c);
        return UMP_ERR_RANK;
    }
    c->size = n;
    c->ctx = ctx;
    *out = c;
    return UMP_OK;
}

static void comm_destroy(struct ump_comm *c)
{
    ump_coll_comm_free(c);
    free(c->world);
    free(c->rworld);
    free(c);
}

int ump_comm_free(ump_comm_t *comm)
{
    if (!comm || !*comm) return UMP_ERR_INVALID;
    if ((*comm)->predefined) {
        ump_error("ump_comm_free: ump_comm_world() cannot be freed (rank %d)", ump_rank());
        return UMP_ERR_INVALID;
    }
    comm_destroy(*comm);
    *comm = NULL;
    return UMP_OK;
}

/* The world communicator lives from its first use to the end of the
 * process (freed at exit so leak checkers stay quiet). */
static struct ump_comm *world;
static pthread_once_t world_once = PTHREAD_ONCE_INIT;

static void world_free(void)
{
    if (world) comm_destroy(world);
    world = NULL;
}

static void world_make(void)
{
    int n = ump_size();
    struct ump_comm *c = calloc(1, sizeof(*c));
    if (c) c->world = malloc(sizeof(int) * (size_t)n);
    if (!c || !c->world) {
        free(c);
        ump_error("ump_comm_world: out of memory for %d ranks", n);
        return;
    }
    for (int i = 0; i < n; i++)
        c->world[i] = i;
    c->rank = ump_rank();
    c->size = n;
    c->ctx = UMP_CTX_WORLD_COLL;
    c->predefined = true;
    world = c;
    atexit(world_free);
}

ump_comm_t ump_comm_world(void)
{
    if (!ump_initialized()) return NULL;
    pthread_once(&world_once, world_make);
    return world;
}

int ump_comm_rank(ump_comm_t comm)
{
    return comm ? comm->rank : -1;
}

int ump_comm_size(ump_comm_t comm)
{
    return comm ? comm->size : -1;
}

int ump_comm_world_rank(ump_comm_t comm, int rank)
{
    if (!comm || rank < 0 || rank >= comm->size) return -1;
    return comm->world[rank];
}
