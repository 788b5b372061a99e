/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicators: the predefined ones, construction (dup, split, create)
 * and the context ids that keep their traffic apart.
 *
 * Context ids. Communicator id n owns two core contexts: UMP_MPI_CTX_BASE +
 * 2n for point-to-point and + 2n + 1 for collectives, so a collective never
 * matches a user's receive. Every process keeps a bitmap of the ids it
 * uses; a new communicator's members AND their free bitmaps over the
 * parent's collective context and take the lowest id free everywhere. Ids
 * only have to be unique per process, so the disjoint communicators that
 * one Comm_split makes share a single agreement (and a single id). The
 * agreement and the (color, key) exchange of Comm_split are small internal
 * collectives on reserved tags (UMP_MPI_TAG_COMM_BASE...), written here on
 * core sends so they do not depend on src/coll.
 *
 * Threads (MPI_THREAD_MULTIPLE) may create communicators at once from
 * different parents (or, with MPI_Comm_create_group, from one parent with
 * different tags); their agreements may run at once on overlapping sets of
 * processes. Two rules keep an id from going to two communicators and keep
 * the agreements from waiting on each other forever:
 *   - one agreement at a time per process owns the bitmap: it offers its
 *     free ids and marks the one agreed before giving the bitmap up; any
 *     other offers no id at all (it never waits for the bitmap, so no cycle
 *     of waits between processes can form), and every member retries when
 *     any member offered nothing (an extra word in the AND says so);
 *   - of the agreements pending on a process, only the one with the
 *     smallest key (parent's id, then create_group's tag) may take the
 *     bitmap. The smallest pending agreement everywhere therefore gets the
 *     bitmap on all its members once the rounds already running end, and
 *     succeeds; the others follow one by one.
 * A member of the parent that joins no new communicator (color
 * MPI_UNDEFINED, outside the group) marks nothing, so it offers every id
 * and needs no bitmap.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/inter.h"
#include "mpi/mpi_impl.h"
#include "util/util.h"

struct ump_mpi_comm ump_mpi_comm_world = {.magic = UMP_MPI_MAGIC_COMM, .predefined = true};
struct ump_mpi_comm ump_mpi_comm_self = {.magic = UMP_MPI_MAGIC_COMM, .predefined = true};
struct ump_mpi_comm ump_mpi_comm_null = {.magic = UMP_MPI_MAGIC_DEAD};

enum { NWORDS = UMP_MPI_MAX_CTX_IDS / 64 };
static uint64_t ctx_used[NWORDS]; /* under ump_mpi_lock */

/* An agreement waiting for (or holding) this process's bitmap; lives on
 * its caller's stack, listed under ump_mpi_lock. */
struct ctx_waiter {
    struct ctx_waiter *next;
    uint64_t key;
};
static struct ctx_waiter *ctx_waiters;
static bool ctx_mask_busy; /* an agreement's offer of free ids is in flight */

enum {
    TAG_REDUCE = UMP_MPI_TAG_COMM_BASE + 1,
    TAG_BCAST,
    TAG_GATHER,
};
/* MPI_Comm_create_group's agreements run on the parent's collective
 * context beside the parent's own collectives and creations, and beside
 * each other (other tags): each gets a pair of tags of its own between the
 * collectives' (below 2^30) and TAG_REDUCE, from its tag. */
#define GROUP_TAG_BASE  (1 << 30)
#define GROUP_TAG_PAIRS ((UMP_MPI_TAG_COMM_BASE - GROUP_TAG_BASE) / 2)

int ump_mpi_comm_rank_of(MPI_Comm c, int world_rank)
{
    if (c == MPI_COMM_WORLD)
        return world_rank >= 0 && world_rank < c->size ? world_rank : MPI_UNDEFINED;
    return ump_mpi_group_rank_of(ump_mpi_peer_group(c), world_rank);
}

const char *ump_mpi_comm_name(MPI_Comm c, char *buf, size_t len)
{
    /* A copy, under the lock: another thread may rename c meanwhile. */
    ump_mpi_lock();
    if (c->name[0])
        snprintf(buf, len, "%s", c->name);
    else
        snprintf(buf, len, "<unnamed, context id %d>", c->ctx_id);
    ump_mpi_unlock();
    return buf;
}

static void set_ctx(MPI_Comm c, int id)
{
    c->ctx_id = id;
    c->ctx_p2p = UMP_MPI_CTX_BASE + 2u * (uint32_t)id;
    c->ctx_coll = c->ctx_p2p + 1;
}

static void ctx_mark(int id, bool used)
{
    ump_mpi_lock();
    if (used)
        ctx_used[id / 64] |= 1ull << (id % 64);
    else
        ctx_used[id / 64] &= ~(1ull << (id % 64));
    ump_mpi_unlock();
}

/* The core communicator of c's collectives: its ranks, on ctx_coll. */
static int make_ucomm(MPI_Comm c)
{
    return ump_comm_create(c->group->world, c->size, c->ctx_coll, &c->ucomm);
}

int ump_mpi_comm_init(void)
{
    int n = ump_size(), me = ump_rank();
    int *w = malloc(sizeof(int) * (size_t)n);
    if (!w) return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        w[i] = i;
    MPI_Group gw = ump_mpi_group_new(n, w);
    MPI_Group gs = ump_mpi_group_new(1, &me);
    free(w);
    if (!gw || !gs) return MPI_ERR_NO_MEM;
    memset(ctx_used, 0, sizeof(ctx_used));

    MPI_Comm c = MPI_COMM_WORLD;
    c->magic = UMP_MPI_MAGIC_COMM;
    c->predefined = true;
    c->group = gw;
    c->rank = me;
    c->size = n;
    c->errh = MPI_ERRORS_ARE_FATAL;
    c->attrs = NULL;
    c->refcount = 1;
    set_ctx(c, 0);
    snprintf(c->name, sizeof(c->name), "MPI_COMM_WORLD");
    ctx_mark(0, true);
    if (make_ucomm(c) != UMP_OK) return MPI_ERR_NO_MEM;

    c = MPI_COMM_SELF;
    c->magic = UMP_MPI_MAGIC_COMM;
    c->predefined = true;
    c->group = gs;
    c->rank = 0;
    c->size = 1;
    c->errh = MPI_ERRORS_ARE_FATAL;
    c->attrs = NULL;
    c->refcount = 1;
    set_ctx(c, 1);
    snprintf(c->name, sizeof(c->name), "MPI_COMM_SELF");
    ctx_mark(1, true);
    if (make_ucomm(c) != UMP_OK) return MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}

void ump_mpi_comm_fini(void)
{
    /* MPI_COMM_SELF first: its delete callbacks may still use MPI. */
    MPI_Comm cs[] = {MPI_COMM_SELF, MPI_COMM_WORLD};
    for (int i = 0; i < 2; i++)
        ump_mpi_attr_delete_all(cs[i]);
    for (int i = 0; i < 2; i++) {
        ump_comm_free(&cs[i]->ucomm);
        ump_mpi_comm_info_free(cs[i]);
        ump_mpi_errh_unref(cs[i]->errh);
        cs[i]->errh = NULL;
        ump_mpi_group_unref(cs[i]->group);
        cs[i]->group = NULL;
    }
}

void ump_mpi_comm_free_last(MPI_Comm c)
{
    /* The id is reused only now: a receive still pending on a freed
     * communicator must not match traffic of a newer one. */
    ctx_mark(c->ctx_id, false);
    c->magic = UMP_MPI_MAGIC_DEAD;
    if (c->ucomm) ump_comm_free(&c->ucomm);
    if (c->topo) ump_mpi_topo_free(c);
    if (c->rgroup) ump_mpi_inter_free(c);
    ump_mpi_comm_info_free(c);
    ump_mpi_group_unref(c->group);
    ump_mpi_errh_unref(c->errh);
    free(c);
}

/* --- internal collectives on the parent's collective context -------------- */

/* Only on intracommunicators (and the local ones of intercommunicators). */
static int to_world(MPI_Comm c, int r)
{
    return c->group->world[r];
}

/* AND of `nwords` words over every member of c, result everywhere, on the
 * two tags given. */
static int and_allreduce(MPI_Comm c, uint64_t *bits, int nwords, int tag_reduce, int tag_bcast)
{
    int me = c->rank, n = c->size, rc = UMP_OK;
    size_t len = sizeof(uint64_t) * (size_t)nwords;
    uint64_t *tmp = malloc(len);
    if (!tmp) return UMP_ERR_NO_MEMORY;
    int mask = 1;
    /* Binomial reduction to rank 0. */
    for (; mask < n; mask <<= 1) {
        if (me & mask) {
            rc = ump_send(bits, len, UMP_BYTE, to_world(c, me - mask), tag_reduce, c->ctx_coll);
            break;
        }
        if (me + mask < n) {
            rc =
                ump_recv(tmp, len, UMP_BYTE, to_world(c, me + mask), tag_reduce, c->ctx_coll, NULL);
            if (rc != UMP_OK) break;
            for (int i = 0; i < nwords; i++)
                bits[i] &= tmp[i];
        }
    }
    free(tmp);
    if (rc != UMP_OK) return rc;
    /* Binomial broadcast from rank 0. */
    for (mask = 1; mask < n; mask <<= 1) {
        if (me & mask) {
            rc =
                ump_recv(bits, len, UMP_BYTE, to_world(c, me - mask), tag_bcast, c->ctx_coll, NULL);
            if (rc != UMP_OK) return rc;
            break;
        }
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (me + mask < n) {
            rc = ump_send(bits, len, UMP_BYTE, to_world(c, me + mask), tag_bcast, c->ctx_coll);
            if (rc != UMP_OK) return rc;
        }
    return UMP_OK;
}

/* Gathers `len` bytes from every member into all (ordered by rank), everywhere. */
static int allgather(MPI_Comm c, const void *mine, size_t len, void *all)
{
    int me = c->rank, n = c->size, rc = UMP_OK;
    char *a = all;
    if (me == 0) {
        memcpy(a, mine, len);
        for (int i = 1; i < n && rc == UMP_OK; i++)
            rc = ump_recv(a + (size_t)i * len, len, UMP_BYTE, to_world(c, i), TAG_GATHER,
                          c->ctx_coll, NULL);
    } else {
        rc = ump_send(mine, len, UMP_BYTE, to_world(c, 0), TAG_GATHER, c->ctx_coll);
    }
    if (rc != UMP_OK) return rc;
    size_t total = len * (size_t)n;
    int mask;
    for (mask = 1; mask < n; mask <<= 1)
        if (me & mask) {
            rc = ump_recv(a, total, UMP_BYTE, to_world(c, me - mask), TAG_BCAST, c->ctx_coll, NULL);
            if (rc != UMP_OK) return rc;
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (me + mask < n) {
            rc = ump_send(a, total, UMP_BYTE, to_world(c, me + mask), TAG_BCAST, c->ctx_coll);
            if (rc != UMP_OK) return rc;
        }
    return UMP_OK;
}

/* Whether w is the first of the pending agreements. Lock held. */
static bool ctx_first(const struct ctx_waiter *w)
{
    for (const struct ctx_waiter *o = ctx_waiters; o; o = o->next)
        if (o->key < w->key) return false;
    return true;
}

static void ctx_waiter_remove(struct ctx_waiter *w)
{
    for (struct ctx_waiter **pp = &ctx_waiters; *pp; pp = &(*pp)->next)
        if (*pp == w) {
            *pp = w->next;
            return;
        }
}

/* agree_ctx_id on the tags of `group_tag` (MPI_Comm_create_group) or, when
 * it is negative, on the parent's own. */
static int agree_ctx_id_tagged(const char *call, MPI_Comm parent, bool member, int group_tag,
                               int *id)
{
    int tag_reduce = TAG_REDUCE, tag_bcast = TAG_BCAST;
    if (group_tag >= 0) {
        tag_reduce = GROUP_TAG_BASE + 2 * (group_tag % GROUP_TAG_PAIRS);
        tag_bcast = tag_reduce + 1;
    }
    struct ctx_waiter self = {
        .key = (uint64_t)(uint32_t)parent->ctx_id << 32 | (uint32_t)(group_tag + 1),
    };
    if (member) {
        ump_mpi_lock();
        self.next = ctx_waiters;
        ctx_waiters = &self;
        ump_mpi_unlock();
    }
    /* bits[NWORDS] is 1 from a process that offered its free ids (or, not
     * joining, every id): the AND of the rest is then the ids free on all. */
    uint64_t bits[NWORDS + 1];
    int rc = MPI_SUCCESS;
    for (unsigned round = 0;; round++) {
        bool owner = false;
        if (member) {
            ump_mpi_lock();
            if (!ctx_mask_busy && ctx_first(&self)) owner = ctx_mask_busy = true;
            for (int i = 0; i < NWORDS; i++)
                bits[i] = owner ? ~ctx_used[i] : 0;
            ump_mpi_unlock();
            bits[NWORDS] = owner;
        } else {
            for (int i = 0; i <= NWORDS; i++)
                bits[i] = ~0ull;
        }
        int urc = and_allreduce(parent, bits, NWORDS + 1, tag_reduce, tag_bcast);
        int found = -1;
        if (urc == UMP_OK)
            for (int i = 0; i < NWORDS && found < 0; i++)
                if (bits[i]) found = i * 64 + __builtin_ctzll(bits[i]);
        if (owner) {
            /* Marked before the bitmap is given up: no later offer has it. */
            ump_mpi_lock();
            if (found >= 0) ctx_used[found / 64] |= 1ull << (found % 64);
            ctx_mask_busy = false;
            ump_mpi_unlock();
        }
        if (urc != UMP_OK) {
            rc = ump_mpi_error(parent, ump_mpi_class_of(urc), call,
                               "context id agreement failed: %s", ump_strerror(urc));
            break;
        }
        if (found >= 0) {
            *id = found;
            break;
        }
        if (bits[NWORDS]) {
            rc = ump_mpi_error(parent, MPI_ERR_INTERN, call,
                               "no context id is free on every member (%d in use at most)",
                               UMP_MPI_MAX_CTX_IDS);
            break;
        }
        /* Some member's bitmap was taken by another agreement: let that one
         * finish before asking again. */
        if (round > 4) sched_yield();
    }
    if (member) {
        ump_mpi_lock();
        ctx_waiter_remove(&self);
        ump_mpi_unlock();
    }
    return rc;
}

/* Agrees on a context id among the members of `parent`; those with `member`
 * set mark it used. Every member of the parent must call it; safe at once
 * from several threads for different parents (see the top of the file). */
static int agree_ctx_id(const char *call, MPI_Comm parent, bool member, int *id)
{
    return agree_ctx_id_tagged(call, parent, member, -1, id);
}

int ump_mpi_ctx_free_mask(MPI_Comm local, uint64_t mask[UMP_MPI_MAX_CTX_IDS / 64])
{
    ump_mpi_lock();
    for (int i = 0; i < NWORDS; i++)
        mask[i] = ~ctx_used[i];
    ump_mpi_unlock();
    return ump_mpi_class_of_fast(and_allreduce(local, mask, NWORDS, TAG_REDUCE, TAG_BCAST));
}

int ump_mpi_ctx_pick(const uint64_t *mask)
{
    for (int i = 0; i < NWORDS; i++)
        if (mask[i]) return i * 64 + __builtin_ctzll(mask[i]);
    return -1;
}

static MPI_Comm comm_new(MPI_Group g, int id, MPI_Comm parent)
{
    MPI_Comm c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->magic = UMP_MPI_MAGIC_COMM;
    c->group = g;
    c->rank = g->rank;
    c->size = g->size;
    set_ctx(c, id);
    if (make_ucomm(c) != UMP_OK) {
        free(c);
        return NULL;
    }
    c->refcount = 1;
    /* Under the lock: another thread may set the parent's handler now. */
    ump_mpi_lock();
    c->errh = parent->errh;
    ump_mpi_errh_ref(c->errh);
    ump_mpi_unlock();
    return c;
}

MPI_Comm ump_mpi_comm_new(MPI_Group g, int id, MPI_Comm parent)
{
    return comm_new(g, id, parent);
}

void ump_mpi_ctx_mark(int id, bool used)
{
    ctx_mark(id, used);
}

/* --- MPI functions --------------------------------------------------------- */

#pragma weak MPI_Comm_size = PMPI_Comm_size
int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    static const char call[] = "MPI_Comm_size";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!size) return ump_mpi_error(comm, MPI_ERR_ARG, call, "size pointer is NULL");
    *size = comm->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    static const char call[] = "MPI_Comm_rank";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!rank) return ump_mpi_error(comm, MPI_ERR_ARG, call, "rank pointer is NULL");
    *rank = comm->rank;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_dup = PMPI_Comm_dup
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_dup";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!newcomm) return ump_mpi_error(comm, MPI_ERR_ARG, call, "newcomm pointer is NULL");
    if (comm->rgroup) return ump_mpi_inter_dup(call, comm, newcomm);
    int id, rc = agree_ctx_id(call, comm, true, &id);
    if (rc != MPI_SUCCESS) return rc;
    ump_mpi_group_ref(comm->group);
    MPI_Comm c = comm_new(comm->group, id, comm);
    if (!c) {
        ump_mpi_group_unref(comm->group);
        ctx_mark(id, false);
        return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    /* Before the attributes: copying the topology is collective. */
    if (comm->topo && (rc = ump_mpi_topo_dup(call, comm, c)) != MPI_SUCCESS) {
        ump_mpi_comm_unref(c);
        return rc;
    }
    rc = ump_mpi_comm_info_copy(comm, c);
    if (rc != MPI_SUCCESS) {
        ump_mpi_comm_unref(c);
        return rc;
    }
    rc = ump_mpi_attr_copy_all(comm, c);
    if (rc != MPI_SUCCESS) {
        ump_mpi_attr_delete_all(c);
        ump_mpi_comm_unref(c); /* gives the id back */
        return ump_mpi_error(comm, rc, call, "an attribute copy callback failed");
    }
    *newcomm = c;
    return MPI_SUCCESS;
}

struct split_entry {
    int color, key, prank;
};

static int cmp_split(const void *a, const void *b)
{
    const struct split_entry *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->prank < y->prank ? -1 : x->prank > y->prank;
}

static int split(const char *call, MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    int n = comm->size;
    struct split_entry mine = {color, key, comm->rank};
    struct split_entry *all = malloc(sizeof(*all) * (size_t)n);
    int *w = malloc(sizeof(int) * (size_t)n);
    int rc = MPI_SUCCESS;
    if (!all || !w) {
        /* Still take part, or the other members would wait for us forever. */
        free(all);
        free(w);
        return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    int urc = allgather(comm, &mine, sizeof(mine), all);
    if (urc != UMP_OK) {
        rc = ump_mpi_error(comm, ump_mpi_class_of(urc), call, "exchange of colors failed: %s",
                           ump_strerror(urc));
        goto out;
    }
    int k = 0;
    if (color != MPI_UNDEFINED) {
        for (int i = 0; i < n; i++)
            if (all[i].color == color) all[k++] = all[i];
        qsort(all, (size_t)k, sizeof(*all), cmp_split);
        for (int i = 0; i < k; i++)
            w[i] = to_world(comm, all[i].prank);
    }
    int id;
    rc = agree_ctx_id(call, comm, color != MPI_UNDEFINED, &id);
    if (rc != MPI_SUCCESS) goto out;
    if (color == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        goto out;
    }
    MPI_Group g = ump_mpi_group_new(k, w);
    MPI_Comm c = g ? comm_new(g, id, comm) : NULL;
    if (!c) {
        ump_mpi_group_unref(g);
        ctx_mark(id, false);
        rc = ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    *newcomm = c;
out:
    free(all);
    free(w);
    return rc;
}

#pragma weak MPI_Comm_split = PMPI_Comm_split
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_split";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!newcomm) return ump_mpi_error(comm, MPI_ERR_ARG, call, "newcomm pointer is NULL");
    if (color < 0 && color != MPI_UNDEFINED)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "color %d is negative and not MPI_UNDEFINED",
                             color);
    if (comm->rgroup) return ump_mpi_inter_split(call, comm, color, key, newcomm);
    return split(call, comm, color, key, newcomm);
}

#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_split_type";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!newcomm) return ump_mpi_error(comm, MPI_ERR_ARG, call, "newcomm pointer is NULL");
    if (info != MPI_INFO_NULL && !ump_mpi_info_ok(info))
        return ump_mpi_error(comm, MPI_ERR_INFO, call, "invalid info object");
    UMP_MPI_CHECK_INTRA(call, comm);
    int color;
    if (split_type == MPI_UNDEFINED) {
        color = MPI_UNDEFINED;
    } else if (split_type == MPI_COMM_TYPE_SHARED) {
        color = ump_node_id(ump_rank());
        if (color < 0)
            return ump_mpi_error(comm, ump_mpi_class_of(color), call, "node id unknown: %s",
                                 ump_strerror(color));
    } else {
        return ump_mpi_error(comm, MPI_ERR_ARG, call,
                             "split_type %d is not MPI_COMM_TYPE_SHARED or MPI_UNDEFINED",
                             split_type);
    }
    return split(call, comm, color, key, newcomm);
}

#pragma weak MPI_Comm_create = PMPI_Comm_create
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_create";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!newcomm) return ump_mpi_error(comm, MPI_ERR_ARG, call, "newcomm pointer is NULL");
    if (!ump_mpi_group_ok(group)) return ump_mpi_error(comm, MPI_ERR_GROUP, call, "invalid group");
    if (comm->rgroup) return ump_mpi_inter_create(call, comm, group, newcomm);
    for (int i = 0; i < group->size; i++)
        if (ump_mpi_comm_rank_of(comm, group->world[i]) == MPI_UNDEFINED)
            return ump_mpi_error(comm, MPI_ERR_GROUP, call,
                                 "group rank %d (world rank %d) is not in the communicator", i,
                                 group->world[i]);
    bool member = group->rank != MPI_UNDEFINED;
    int id, rc = agree_ctx_id(call, comm, member, &id);
    if (rc != MPI_SUCCESS) return rc;
    if (!member) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    ump_mpi_group_ref(group);
    MPI_Comm c = comm_new(group, id, comm);
    if (!c) {
        ump_mpi_group_unref(group);
        ctx_mark(id, false);
        return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    *newcomm = c;
    return MPI_SUCCESS;
}

/* MPI_Comm_create_group: collective over the members of `group` only, so
 * the context id is agreed on a stand-in communicator of the group that
 * speaks on the parent's collective context, on tags made from `tag`: the
 * tag keeps apart creations by several threads at once from one parent
 * (MPI 3.1 6.4.2) and orders them against each other. */
#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_create_group";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!newcomm) return ump_mpi_error(comm, MPI_ERR_ARG, call, "newcomm pointer is NULL");
    if (!ump_mpi_group_ok(group)) return ump_mpi_error(comm, MPI_ERR_GROUP, call, "invalid group");
    UMP_MPI_CHECK_INTRA(call, comm);
    if (tag < 0 || tag > UMP_TAG_UB)
        return ump_mpi_error(comm, MPI_ERR_TAG, call, "tag %d is outside [0, MPI_TAG_UB]", tag);
    for (int i = 0; i < group->size; i++)
        if (ump_mpi_comm_rank_of(comm, group->world[i]) == MPI_UNDEFINED)
            return ump_mpi_error(comm, MPI_ERR_GROUP, call,
                                 "group rank %d (world rank %d) is not in the communicator", i,
                                 group->world[i]);
    if (group->rank == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    struct ump_mpi_comm stand_in = {.magic = UMP_MPI_MAGIC_COMM,
                                    .predefined = true,
                                    .rank = group->rank,
                                    .size = group->size,
                                    .group = group,
                                    .ctx_id = comm->ctx_id,
                                    .ctx_coll = comm->ctx_coll,
                                    .errh = comm->errh};
    snprintf(stand_in.name, sizeof(stand_in.name), "(group of %d for MPI_Comm_create_group)",
             group->size);
    int id, rc = agree_ctx_id_tagged(call, &stand_in, true, tag, &id);
    if (rc != MPI_SUCCESS) return rc;
    ump_mpi_group_ref(group);
    MPI_Comm c = comm_new(group, id, comm);
    if (!c) {
        ump_mpi_group_unref(group);
        ctx_mark(id, false);
        return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    *newcomm = c;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_free = PMPI_Comm_free
int PMPI_Comm_free(MPI_Comm *comm)
{
    static const char call[] = "MPI_Comm_free";
    UMP_MPI_CHECK_INIT(call);
    if (!comm) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "comm pointer is NULL");
    MPI_Comm c = *comm;
    UMP_MPI_CHECK_COMM(call, c);
    if (c->predefined)
        return ump_mpi_error(c, MPI_ERR_COMM, call, "a predefined communicator cannot be freed");
    int rc = ump_mpi_attr_delete_all(c);
    if (rc != MPI_SUCCESS) return ump_mpi_error(c, rc, call, "an attribute delete callback failed");
    ump_mpi_parent_forget(c);
    /* Collectives started on c have taken what they need from it. */
    ump_comm_free(&c->ucomm);
    ump_mpi_comm_unref(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_compare = PMPI_Comm_compare
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    static const char call[] = "MPI_Comm_compare";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm1);
    UMP_MPI_CHECK_COMM(call, comm2);
    if (!result) return ump_mpi_error(comm1, MPI_ERR_ARG, call, "result pointer is NULL");
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (comm1->rgroup || comm2->rgroup) {
        *result = ump_mpi_inter_compare(comm1, comm2);
        return MPI_SUCCESS;
    }
    int g = ump_mpi_group_compare(comm1->group, comm2->group);
    *result = g == MPI_IDENT ? MPI_CONGRUENT : g;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_group = PMPI_Comm_group
int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    static const char call[] = "MPI_Comm_group";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!group) return ump_mpi_error(comm, MPI_ERR_ARG, call, "group pointer is NULL");
    ump_mpi_group_ref(comm->group);
    *group = comm->group;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    static const char call[] = "MPI_Comm_test_inter";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!flag) return ump_mpi_error(comm, MPI_ERR_ARG, call, "flag pointer is NULL");
    *flag = comm->rgroup != NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    static const char call[] = "MPI_Comm_set_name";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!comm_name) return ump_mpi_error(comm, MPI_ERR_ARG, call, "comm_name is NULL");
    /* Longer names are truncated, as MPI 3.1 6.8 allows. Under the lock:
     * another thread may read the name meanwhile. */
    ump_mpi_lock();
    snprintf(comm->name, sizeof(comm->name), "%s", comm_name);
    ump_mpi_unlock();
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    static const char call[] = "MPI_Comm_get_name";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!comm_name || !resultlen)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "comm_name or resultlen is NULL");
    ump_mpi_lock();
    int n = snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", comm->name);
    ump_mpi_unlock();
    *resultlen = UMP_MIN(n, MPI_MAX_OBJECT_NAME - 1);
    return MPI_SUCCESS;
}
