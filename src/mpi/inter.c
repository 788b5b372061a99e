/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Intercommunicators: MPI_Intercomm_create and _merge, the remote group,
 * and the intercommunicator forms of Comm_dup, _split, _create and
 * _compare (MPI 3.1 §6.6, §6.4.2).
 *
 * Steps that span both groups go through the two leaders (local rank 0 of
 * each group), which swap a message on the intercommunicator's collective
 * context (tags above the collectives', UMP_MPI_TAG_COMM_BASE...) and
 * broadcast what they got over their local intracommunicator. A new
 * context id must be free on every member of both groups: each group ANDs
 * its free bitmaps, the leaders swap and AND the two, and everyone takes
 * the lowest id left.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/inter.h"
#include "util/util.h"

/* The local intracommunicator of intercommunicator id n uses these two
 * contexts, above those of every MPI communicator id. */
#define LOCAL_CTX_BASE (UMP_MPI_CTX_BASE + 2u * UMP_MPI_MAX_CTX_IDS)

enum {
    TAG_SWAP = UMP_MPI_TAG_COMM_BASE + 0x10,
    TAG_LEADERS = UMP_MPI_TAG_COMM_BASE + 0x1000, /* + (user tag & 0xfff) */
};

enum { NWORDS = UMP_MPI_MAX_CTX_IDS / 64 };

static void local_free(MPI_Comm l)
{
    if (!l) return;
    if (l->ucomm) ump_comm_free(&l->ucomm);
    ump_mpi_group_unref(l->group);
    ump_mpi_errh_unref(l->errh);
    l->magic = UMP_MPI_MAGIC_DEAD;
    free(l);
}

void ump_mpi_inter_free(MPI_Comm c)
{
    local_free(c->local);
    c->local = NULL;
    ump_mpi_group_unref(c->rgroup);
    c->rgroup = NULL;
}

/* The intercommunicator of groups lg (this process in it) and rg on context
 * id `id` (marked used here). References to the groups are taken. */
static int make(MPI_Group lg, MPI_Group rg, int id, bool low, MPI_Errhandler errh, MPI_Comm *out)
{
    MPI_Comm c = calloc(1, sizeof(*c));
    MPI_Comm l = calloc(1, sizeof(*l));
    if (!c || !l) {
        free(c);
        free(l);
        return MPI_ERR_NO_MEM;
    }
    l->magic = UMP_MPI_MAGIC_COMM;
    l->predefined = true; /* never freed through a handle: inter_free does */
    l->rank = lg->rank;
    l->size = lg->size;
    l->group = lg;
    ump_mpi_group_ref(lg);
    l->ctx_id = id;
    l->ctx_p2p = LOCAL_CTX_BASE + 2u * (uint32_t)id;
    l->ctx_coll = l->ctx_p2p + 1;
    l->errh = errh;
    ump_mpi_errh_ref(errh);
    l->refcount = 1;
    snprintf(l->name, sizeof(l->name), "<local group of intercommunicator %d>", id);

    c->magic = UMP_MPI_MAGIC_COMM;
    c->rank = lg->rank;
    c->size = lg->size;
    c->group = lg;
    ump_mpi_group_ref(lg);
    c->rgroup = rg;
    ump_mpi_group_ref(rg);
    c->local = l;
    c->low = low;
    c->ctx_id = id;
    c->ctx_p2p = UMP_MPI_CTX_BASE + 2u * (uint32_t)id;
    c->ctx_coll = c->ctx_p2p + 1;
    c->errh = errh;
    ump_mpi_errh_ref(errh);
    c->refcount = 1;
    ump_mpi_ctx_mark(id, true);
    int rc = ump_comm_create(lg->world, lg->size, l->ctx_coll, &l->ucomm);
    if (rc == UMP_OK)
        rc = ump_intercomm_create(lg->world, lg->size, rg->world, rg->size, c->ctx_coll, &c->ucomm);
    if (rc != UMP_OK) {
        ump_mpi_comm_unref(c); /* frees l and gives the id back */
        return ump_mpi_class_of(rc);
    }
    *out = c;
    return MPI_SUCCESS;
}

int ump_mpi_intercomm_build(MPI_Comm local, MPI_Group remote, int ctx_id, bool low,
                            MPI_Comm *newcomm)
{
    static const char call[] = "ump_mpi_intercomm_build";
    UMP_MPI_CHECK_COMM(call, local);
    UMP_MPI_CHECK_INTRA(call, local);
    if (!ump_mpi_group_ok(remote) || remote->size == 0)
        return ump_mpi_error(local, MPI_ERR_GROUP, call, "remote group is invalid or empty");
    if (ctx_id < 0 || ctx_id >= UMP_MPI_MAX_CTX_IDS)
        return ump_mpi_error(local, MPI_ERR_INTERN, call, "context id %d is out of range", ctx_id);
    if (!newcomm) return ump_mpi_error(local, MPI_ERR_ARG, call, "newcomm pointer is NULL");
    int rc = make(local->group, remote, ctx_id, low, local->errh, newcomm);
    if (rc != MPI_SUCCESS)
        return ump_mpi_error(local, rc, call, "making the intercommunicator failed");
    return MPI_SUCCESS;
}

/* --- steps across the groups ------------------------------------------------------ */

/* The leaders swap `mine` (mlen bytes) for the other group's (tlen bytes),
 * which every local member then receives too. ump status. */
static int swap(MPI_Comm c, const void *mine, size_t mlen, void *theirs, size_t tlen)
{
    int rc = UMP_OK;
    if (c->rank == 0) {
        int peer = c->rgroup->world[0];
        ump_req_t r = UMP_REQ_NULL;
        rc = ump_isend(mine, mlen, UMP_BYTE, peer, TAG_SWAP, c->ctx_coll, &r);
        if (rc == UMP_OK) {
            rc = ump_recv(theirs, tlen, UMP_BYTE, peer, TAG_SWAP, c->ctx_coll, NULL);
            int wrc = ump_wait(&r, NULL);
            if (rc == UMP_OK) rc = wrc;
        }
    }
    if (c->size > 1) {
        /* Every member takes part even after a failure, so none waits forever. */
        int brc = ump_bcast(theirs, tlen, UMP_BYTE, 0, c->local->ucomm);
        if (rc == UMP_OK) rc = brc;
    }
    return rc;
}

/* A context id free on every member of both groups of c. */
static int agree(const char *call, MPI_Comm c, int *id)
{
    uint64_t mine[NWORDS], theirs[NWORDS];
    int rc = ump_mpi_ctx_free_mask(c->local, mine);
    if (rc != MPI_SUCCESS)
        return ump_mpi_error(c, rc, call, "context id agreement in the local group failed");
    int urc = swap(c, mine, sizeof(mine), theirs, sizeof(theirs));
    if (urc != UMP_OK)
        return ump_mpi_error(c, ump_mpi_class_of(urc), call,
                             "context id agreement with the remote group failed: %s",
                             ump_strerror(urc));
    for (int i = 0; i < NWORDS; i++)
        mine[i] &= theirs[i];
    *id = ump_mpi_ctx_pick(mine);
    if (*id < 0)
        return ump_mpi_error(c, MPI_ERR_INTERN, call,
                             "no context id is free on every member of both groups (%d at most)",
                             UMP_MPI_MAX_CTX_IDS);
    return MPI_SUCCESS;
}

static int inter_check(const char *call, MPI_Comm c)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, c);
    if (!c->rgroup)
        return ump_mpi_error(c, MPI_ERR_COMM, call, "the communicator is not an intercommunicator");
    return MPI_SUCCESS;
}

int ump_mpi_inter_dup(const char *call, MPI_Comm c, MPI_Comm *newcomm)
{
    MPI_Comm d;
    int id, rc = agree(call, c, &id);
    if (rc != MPI_SUCCESS) return rc;
    rc = make(c->group, c->rgroup, id, c->low, c->errh, &d);
    if (rc != MPI_SUCCESS) return ump_mpi_error(c, rc, call, "making the intercommunicator failed");
    /* As MPI_Comm_dup does for intracommunicators (they have no topology). */
    rc = ump_mpi_comm_info_copy(c, d);
    if (rc != MPI_SUCCESS) {
        ump_mpi_comm_unref(d);
        return rc;
    }
    rc = ump_mpi_attr_copy_all(c, d);
    if (rc != MPI_SUCCESS) {
        ump_mpi_attr_delete_all(d);
        ump_mpi_comm_unref(d);
        return ump_mpi_error(c, rc, call, "an attribute copy callback failed");
    }
    *newcomm = d;
    return MPI_SUCCESS;
}

int ump_mpi_inter_compare(MPI_Comm a, MPI_Comm b)
{
    if (!a->rgroup || !b->rgroup) return MPI_UNEQUAL;
    int l = ump_mpi_group_compare(a->group, b->group);
    int r = ump_mpi_group_compare(a->rgroup, b->rgroup);
    if (l == MPI_UNEQUAL || r == MPI_UNEQUAL) return MPI_UNEQUAL;
    return l == MPI_IDENT && r == MPI_IDENT ? MPI_CONGRUENT : MPI_SIMILAR;
}

/* --- split and create ----------------------------------------------------------------- */

struct ck {
    int color, key, rank;
};

static int cmp_ck(const void *a, const void *b)
{
    const struct ck *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* World ranks of the members of `all` (n of them, in rank order of the
 * group `g`) with colour `color`, ordered by key then rank; their number. */
static int members(struct ck *all, int n, int color, MPI_Group g, int *w)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (all[i].color == color) all[k++] = (struct ck){color, all[i].key, i};
    qsort(all, (size_t)k, sizeof(*all), cmp_ck);
    for (int i = 0; i < k; i++)
        w[i] = g->world[all[i].rank];
    return k;
}

int ump_mpi_inter_split(const char *call, MPI_Comm c, int color, int key, MPI_Comm *newcomm)
{
    int n = c->size, m = c->rgroup->size;
    int mine[2] = {color, key};
    int *lall = malloc(sizeof(int) * 2 * (size_t)n), *rall = malloc(sizeof(int) * 2 * (size_t)m);
    struct ck *ck = malloc(sizeof(*ck) * (size_t)UMP_MAX(n, m));
    int *lw = malloc(sizeof(int) * (size_t)n), *rw = malloc(sizeof(int) * (size_t)m);
    int rc = MPI_SUCCESS;
    /* Allocation failures still take part, or the others would wait. */
    int urc = lall && rall ? ump_allgather(mine, 2, UMP_INT, lall, 2, UMP_INT, c->local->ucomm)
                           : UMP_ERR_NO_MEMORY;
    if (urc == UMP_OK)
        urc = swap(c, lall, sizeof(int) * 2 * (size_t)n, rall, sizeof(int) * 2 * (size_t)m);
    if (urc != UMP_OK) {
        rc = ump_mpi_error(c, ump_mpi_class_of(urc), call, "exchange of colors failed: %s",
                           ump_strerror(urc));
        goto out;
    }
    int id;
    if ((rc = agree(call, c, &id)) != MPI_SUCCESS) goto out;
    *newcomm = MPI_COMM_NULL;
    if (color == MPI_UNDEFINED) goto out;
    if (!ck || !lw || !rw) {
        rc = ump_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++)
        ck[i] = (struct ck){lall[2 * i], lall[2 * i + 1], i};
    int nl = members(ck, n, color, c->group, lw);
    for (int i = 0; i < m; i++)
        ck[i] = (struct ck){rall[2 * i], rall[2 * i + 1], i};
    int nr = members(ck, m, color, c->rgroup, rw);
    if (nr == 0) goto out; /* no partner group of this colour */
    MPI_Group lg = ump_mpi_group_new(nl, lw), rg = ump_mpi_group_new(nr, rw);
    if (!lg || !rg)
        rc = MPI_ERR_NO_MEM;
    else
        rc = make(lg, rg, id, c->low, c->errh, newcomm);
    ump_mpi_group_unref(lg);
    ump_mpi_group_unref(rg);
    if (rc != MPI_SUCCESS) rc = ump_mpi_error(c, rc, call, "making the intercommunicator failed");
out:
    free(lall);
    free(rall);
    free(ck);
    free(lw);
    free(rw);
    return rc;
}

int ump_mpi_inter_create(const char *call, MPI_Comm c, MPI_Group group, MPI_Comm *newcomm)
{
    /* MPI 3.1 §6.4.2: group is a subgroup of the local group (the same on
     * every local member); the remote side names its own. */
    int k = group->size, *ranks = malloc(sizeof(int) * (size_t)(k + 1));
    if (!ranks) return ump_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory");
    for (int i = 0; i < k; i++) {
        ranks[i] = ump_mpi_group_rank_of(c->group, group->world[i]);
        if (ranks[i] == MPI_UNDEFINED) {
            free(ranks);
            return ump_mpi_error(c, MPI_ERR_GROUP, call,
                                 "group rank %d (world rank %d) is not in the local group of the "
                                 "intercommunicator",
                                 i, group->world[i]);
        }
    }
    int rk = 0, rc = MPI_SUCCESS, *rranks = NULL, *rw = NULL;
    int urc = swap(c, &k, sizeof(int), &rk, sizeof(int));
    if (urc == UMP_OK) {
        rranks = malloc(sizeof(int) * (size_t)(rk + 1));
        urc = rranks ? swap(c, ranks, sizeof(int) * (size_t)k, rranks, sizeof(int) * (size_t)rk)
                     : UMP_ERR_NO_MEMORY;
    }
    if (urc != UMP_OK) {
        rc = ump_mpi_error(c, ump_mpi_class_of(urc), call, "exchange of groups failed: %s",
                           ump_strerror(urc));
        goto out;
    }
    int id;
    if ((rc = agree(call, c, &id)) != MPI_SUCCESS) goto out;
    *newcomm = MPI_COMM_NULL;
    if (group->rank == MPI_UNDEFINED || rk == 0) goto out;
    rw = malloc(sizeof(int) * (size_t)rk);
    if (!rw) {
        rc = ump_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    for (int i = 0; i < rk; i++) {
        if (rranks[i] < 0 || rranks[i] >= c->rgroup->size) {
            rc = ump_mpi_error(c, MPI_ERR_GROUP, call, "the remote group named rank %d of %d",
                               rranks[i], c->rgroup->size);
            goto out;
        }
        rw[i] = c->rgroup->world[rranks[i]];
    }
    MPI_Group rg = ump_mpi_group_new(rk, rw);
    rc = rg ? make(group, rg, id, c->low, c->errh, newcomm) : MPI_ERR_NO_MEM;
    ump_mpi_group_unref(rg);
    if (rc != MPI_SUCCESS) rc = ump_mpi_error(c, rc, call, "making the intercommunicator failed");
out:
    free(ranks);
    free(rranks);
    free(rw);
    return rc;
}

/* --- the MPI calls ------------------------------------------------------------------- */

#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size
int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    static const char call[] = "MPI_Comm_remote_size";
    int rc = inter_check(call, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (!size) return ump_mpi_error(comm, MPI_ERR_ARG, call, "size pointer is NULL");
    *size = comm->rgroup->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    static const char call[] = "MPI_Comm_remote_group";
    int rc = inter_check(call, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (!group) return ump_mpi_error(comm, MPI_ERR_ARG, call, "group pointer is NULL");
    ump_mpi_group_ref(comm->rgroup);
    *group = comm->rgroup;
    return MPI_SUCCESS;
}

/* The leaders' exchange over peer_comm: sizes, then the world ranks of the
 * groups, then their context-id masks; `low` is the side whose leader has
 * the lower rank in peer_comm. ump status. */
static int leaders_swap(MPI_Comm peer, int remote, int tag, const void *mine, size_t mlen,
                        void *theirs, size_t tlen)
{
    ump_req_t r = UMP_REQ_NULL;
    int w = ump_mpi_world_rank(peer, remote), t = TAG_LEADERS + (tag & 0xfff);
    int rc = ump_isend(mine, mlen, UMP_BYTE, w, t, peer->ctx_coll, &r);
    if (rc != UMP_OK) return rc;
    rc = ump_recv(theirs, tlen, UMP_BYTE, w, t, peer->ctx_coll, NULL);
    int wrc = ump_wait(&r, NULL);
    return rc == UMP_OK ? wrc : rc;
}

static int leader_checks(const char *call, MPI_Comm local, MPI_Comm peer, int remote_leader,
                         int tag)
{
    if (!ump_mpi_comm_ok(peer))
        return ump_mpi_error(local, MPI_ERR_COMM, call,
                             "peer_comm is MPI_COMM_NULL or invalid at the local leader");
    int n = ump_mpi_peer_size(peer);
    if (remote_leader < 0 || remote_leader >= n)
        return ump_mpi_error(local, MPI_ERR_RANK, call,
                             "remote_leader %d is out of range [0, %d) of peer_comm", remote_leader,
                             n);
    if (!peer->rgroup && remote_leader == peer->rank)
        return ump_mpi_error(local, MPI_ERR_RANK, call,
                             "remote_leader %d is the local leader itself", remote_leader);
    if (ump_mpi_group_rank_of(local->group, ump_mpi_world_rank(peer, remote_leader)) !=
        MPI_UNDEFINED)
        return ump_mpi_error(local, MPI_ERR_RANK, call,
                             "remote_leader %d of peer_comm is a member of local_comm: the groups "
                             "must be disjoint",
                             remote_leader);
    if (tag < 0 || tag > UMP_TAG_UB)
        return ump_mpi_error(local, MPI_ERR_TAG, call, "tag %d is outside [0, MPI_TAG_UB]", tag);
    return MPI_SUCCESS;
}

#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    static const char call[] = "MPI_Intercomm_create";
    UMP_MPI_CHECK_INIT(call);
    if (!ump_mpi_comm_ok(local_comm))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_COMM, call,
                             "local_comm is MPI_COMM_NULL or invalid");
    if (local_comm->rgroup)
        return ump_mpi_error(local_comm, MPI_ERR_COMM, call,
                             "local_comm is an intercommunicator; it must be an intracommunicator");
    if (!newintercomm)
        return ump_mpi_error(local_comm, MPI_ERR_ARG, call, "newintercomm pointer is NULL");
    if (local_leader < 0 || local_leader >= local_comm->size)
        return ump_mpi_error(local_comm, MPI_ERR_RANK, call,
                             "local_leader %d is out of range [0, %d) of local_comm", local_leader,
                             local_comm->size);
    bool leader = local_comm->rank == local_leader;
    /* head: the leader's error class (or 0), remote size, low. */
    int head[3] = {0, 0, 0}, n = local_comm->size, rc;
    int *rw = NULL;
    if (leader) {
        head[0] = leader_checks(call, local_comm, peer_comm, remote_leader, tag);
        if (head[0] == MPI_SUCCESS) {
            int urc =
                leaders_swap(peer_comm, remote_leader, tag, &n, sizeof(n), &head[1], sizeof(int));
            if (urc == UMP_OK && (head[1] <= 0 || !(rw = malloc(sizeof(int) * (size_t)head[1]))))
                urc = UMP_ERR_NO_MEMORY;
            if (urc == UMP_OK)
                urc = leaders_swap(peer_comm, remote_leader, tag, local_comm->group->world,
                                   sizeof(int) * (size_t)n, rw, sizeof(int) * (size_t)head[1]);
            if (urc != UMP_OK)
                head[0] = ump_mpi_error(local_comm, ump_mpi_class_of(urc), call,
                                        "exchange with the remote leader (peer_comm rank %d) "
                                        "failed: %s",
                                        remote_leader, ump_strerror(urc));
            head[2] = peer_comm->rgroup ? peer_comm->low : peer_comm->rank < remote_leader;
        }
    }
    int urc = ump_bcast(head, 3, UMP_INT, local_leader, local_comm->ucomm);
    if (urc != UMP_OK) {
        free(rw);
        return ump_mpi_error(local_comm, ump_mpi_class_of(urc), call,
                             "broadcast from the local leader failed: %s", ump_strerror(urc));
    }
    if (head[0] != MPI_SUCCESS) {
        free(rw);
        if (leader) return head[0]; /* raised above */
        return ump_mpi_error(local_comm, head[0], call,
                             "the local leader (rank %d) failed with the peer communicator",
                             local_leader);
    }
    if (!leader && !(rw = malloc(sizeof(int) * (size_t)head[1])))
        return ump_mpi_error(local_comm, MPI_ERR_NO_MEM, call, "out of memory");
    urc = ump_bcast(rw, (size_t)head[1], UMP_INT, local_leader, local_comm->ucomm);
    /* The context id: free on both groups. */
    uint64_t mine[NWORDS], theirs[NWORDS];
    rc = urc == UMP_OK ? ump_mpi_ctx_free_mask(local_comm, mine) : ump_mpi_class_of(urc);
    if (rc == MPI_SUCCESS && leader) {
        urc =
            leaders_swap(peer_comm, remote_leader, tag, mine, sizeof(mine), theirs, sizeof(theirs));
        if (urc != UMP_OK) memset(theirs, 0, sizeof(theirs));
        for (int i = 0; i < NWORDS; i++)
            mine[i] &= theirs[i];
    }
    if (rc == MPI_SUCCESS)
        rc = ump_mpi_class_of_fast(
            ump_bcast(mine, NWORDS, UMP_UINT64, local_leader, local_comm->ucomm));
    int id = rc == MPI_SUCCESS ? ump_mpi_ctx_pick(mine) : -1;
    if (rc != MPI_SUCCESS || id < 0) {
        free(rw);
        return ump_mpi_error(local_comm, rc != MPI_SUCCESS ? rc : MPI_ERR_INTERN, call,
                             "no context id is free on every member of both groups");
    }
    MPI_Group rg = ump_mpi_group_new(head[1], rw);
    free(rw);
    rc = rg ? make(local_comm->group, rg, id, head[2], local_comm->errh, newintercomm)
            : MPI_ERR_NO_MEM;
    ump_mpi_group_unref(rg);
    if (rc != MPI_SUCCESS)
        return ump_mpi_error(local_comm, rc, call, "making the intercommunicator failed");
    return MPI_SUCCESS;
}

#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    static const char call[] = "MPI_Intercomm_merge";
    int rc = inter_check(call, intercomm);
    if (rc != MPI_SUCCESS) return rc;
    if (!newintracomm)
        return ump_mpi_error(intercomm, MPI_ERR_ARG, call, "newintracomm pointer is NULL");
    MPI_Comm c = intercomm;
    /* The leaders' high flags stand for their groups (the standard has
     * every member of a group pass the same one). */
    int mine = high != 0, theirs = 0;
    int urc = swap(c, &mine, sizeof(mine), &theirs, sizeof(theirs));
    if (urc != UMP_OK)
        return ump_mpi_error(c, ump_mpi_class_of(urc), call, "exchange of high flags failed: %s",
                             ump_strerror(urc));
    if (c->size > 1) {
        /* The leader's flag is the one the remote group saw: it stands for
         * this group on every member. */
        urc = ump_bcast(&mine, 1, UMP_INT, 0, c->local->ucomm);
        if (urc != UMP_OK)
            return ump_mpi_error(c, ump_mpi_class_of(urc), call, "broadcast failed: %s",
                                 ump_strerror(urc));
    }
    /* The group with high false comes first; on a tie, the low side. */
    bool first = mine != theirs ? !mine : c->low;
    int n = c->size, m = c->rgroup->size, id;
    if ((rc = agree(call, c, &id)) != MPI_SUCCESS) return rc;
    int *w = malloc(sizeof(int) * (size_t)(n + m));
    if (!w) return ump_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory");
    memcpy(w + (first ? 0 : m), c->group->world, sizeof(int) * (size_t)n);
    memcpy(w + (first ? n : 0), c->rgroup->world, sizeof(int) * (size_t)m);
    MPI_Group g = ump_mpi_group_new(n + m, w);
    free(w);
    MPI_Comm nc = g ? ump_mpi_comm_new(g, id, c) : NULL;
    if (!nc) {
        ump_mpi_group_unref(g);
        return ump_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory");
    }
    ump_mpi_ctx_mark(id, true);
    *newintracomm = nc;
    return MPI_SUCCESS;
}
