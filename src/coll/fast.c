/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Short blocking collectives as straight-line code over the core's
 * point-to-point calls: no schedule, no request array, no malloc.
 *
 * Measured on 2 ranks over shm (8 B allreduce), the schedule machinery
 * (building the ops and rounds, scratch from malloc, one request per send,
 * ump_waitall per round, preparing the reduction twice) cost about as much
 * as the messages themselves. Here an exchange with a partner sends first,
 * so the message the partner waits for leaves before anything else is
 * done: an eager message the transport takes at once completes inside the
 * call with no request, and the blocking receive that follows often meets
 * the partner's message already here and takes it with no request either.
 * A send that cannot leave at once (rendezvous, queued) keeps its request
 * and is waited for with the receive, so neither side blocks on the other.
 *
 * The message pattern of each function here is the one its schedule
 * counterpart uses for the same sizes (binomial trees, recursive doubling
 * with the same folding, linear alltoall), and the choice depends only on
 * arguments every rank agrees on (sizes, the communicator, tunables), so
 * ranks taking this path and ranks taking the schedule meet correctly.
 *
 * Callers use these only for blocking calls with the algorithm tunable at
 * auto. Each returns a status code, or UMP_COLL_NOFAST when it does not
 * apply (sizes, node-aware layout, operation) and the caller should build a
 * schedule.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll_int.h"

UMP_CFG(ump_coll_fast_max, "UMP_COLL_FAST_MAX", UMP_CFG_SIZE, "16k",
        "blocking collectives of at most this many bytes per rank run as direct point-to-point "
        "code instead of a schedule (0: never)");
UMP_CFG(ump_coll_fast_oversub, "UMP_COLL_FAST_OVERSUB", UMP_CFG_BOOL, "yes",
        "on an oversubscribed node, short barrier, allreduce and allgather exchange with every "
        "rank in one phase instead of log n rounds");

/* Scratch of the communicator for short collectives: kept between calls.
 * A communicator runs one blocking collective at a time (ump_coll.h forbids two
 * at once on one communicator), so one buffer serves them all. */
static void *scratch(ump_coll_comm_t *st, size_t bytes)
{
    if (bytes <= st->fcap) return st->ftmp;
    size_t cap = UMP_MAX(bytes, (size_t)256);
    void *p = malloc(cap);
    if (!p) return NULL;
    free(st->ftmp);
    st->ftmp = p;
    st->fcap = cap;
    return p;
}

/* The state of comm and the tag of this collective, or NULL when the fast
 * path does not apply (node-aware algorithms, no state). */
static ump_coll_comm_t *begin(ump_comm_t comm, int *tag)
{
    ump_coll_comm_t *st = ump_coll_state(comm);
    if (UMP_UNLIKELY(!st) || ump_coll_use_hier(st, comm->size)) return NULL;
    /* The same numbering as ump_sched_init. */
    *tag = (int)(st->seq++ & 0x3fffffff);
    return st;
}

static inline int wrank(ump_comm_t c, int r)
{
    return c->world[r];
}

static inline int cls(int rc)
{
    return rc;
}

/* Sends sn bytes to `to` while receiving rn bytes from `from`. */
static int xchg(const void *sb, size_t sn, int to, void *rb, size_t rn, int from, int tag,
                uint32_t ctx)
{
    ump_req_t s;
    int rc = ump_isend_inline(sb, sn, UMP_BYTE, to, tag, ctx, &s);
    if (UMP_UNLIKELY(rc != UMP_OK)) return rc;
    if (UMP_LIKELY(s == UMP_REQ_NULL))
        return ump_recv(rb, rn, UMP_BYTE, from, tag, ctx, UMP_STATUS_IGNORE);
    ump_req_t r;
    rc = ump_irecv(rb, rn, UMP_BYTE, from, tag, ctx, &r);
    /* The partner receives the send whatever happens here. */
    int src = ump_wait(&s, UMP_STATUS_IGNORE);
    if (rc == UMP_OK) rc = ump_wait(&r, UMP_STATUS_IGNORE);
    return src != UMP_OK ? src : rc;
}

/* inout = in (op) inout; the common sums inline. */
static inline void reduce_into(const ump_coll_red_t *r, const void *in, void *inout, size_t count)
{
    if (r->op == UMP_OP_SUM && r->dt == UMP_DOUBLE) {
        const double *a = in;
        double *b = inout;
        for (size_t i = 0; i < count; i++)
            b[i] += a[i];
    } else if (r->op == UMP_OP_SUM && r->dt == UMP_INT) {
        const int *a = in;
        int *b = inout;
        for (size_t i = 0; i < count; i++)
            b[i] = (int)((unsigned)b[i] + (unsigned)a[i]);
    } else {
        ump_coll_red_apply(r, in, inout, count);
    }
}

/* acc = acc (op) in, keeping operand order for non-commutative ops; `in`
 * is scratch and may be clobbered. */
static inline void reduce_after(const ump_coll_red_t *r, void *in, void *acc, size_t count)
{
    if (r->commutative) {
        reduce_into(r, in, acc, count);
    } else {
        reduce_into(r, acc, in, count);
        memcpy(acc, in, count * r->dt->size);
    }
}

/* Whether the one-phase (linear) variants below apply: every rank of comm
 * on this node, which has more ranks than cores. There, each dependent
 * round of a log-n algorithm waits for its partner to be scheduled; in one
 * phase a rank that gets a core sends all it has and sleeps once. */
static bool one_phase(const ump_coll_comm_t *st, int n)
{
    return st->oversub && st->nnodes == 1 && n <= 64 && ump_coll_fast_oversub.v.b;
}

/* Sends `bytes` at sb + i * sx to every other rank i (sx 0: the same bytes
 * to all) and receives as many from each rank i into rb + i * rx (rb may
 * be NULL when bytes is 0): every receive posted, then the sends, then the
 * waits. */
static int exchange_all(ump_comm_t comm, int tag, const char *sb, size_t sx, char *rb, size_t rx,
                        size_t bytes)
{
    int n = comm->size, me = comm->rank, nreq = 0, rc = UMP_OK;
    uint32_t ctx = comm->ctx;
    ump_req_t reqs[64];
    for (int k = 1; k < n && rc == UMP_OK; k++) {
        int from = (me - k + n) % n;
        rc = ump_irecv(rb ? rb + (size_t)from * rx : NULL, bytes, UMP_BYTE, wrank(comm, from), tag,
                       ctx, &reqs[nreq]);
        if (rc == UMP_OK) nreq++;
    }
    /* Every rank posts all its receives before its first send, so the
     * blocking sends cannot deadlock. */
    for (int k = 1; k < n && rc == UMP_OK; k++) {
        int to = (me + k) % n;
        rc = ump_send(sb ? sb + (size_t)to * sx : NULL, bytes, UMP_BYTE, wrank(comm, to), tag, ctx);
    }
    if (rc != UMP_OK)
        for (int i = 0; i < nreq; i++)
            ump_cancel(&reqs[i]);
    int wrc = ump_waitall((size_t)nreq, reqs, UMP_STATUS_IGNORE);
    return rc != UMP_OK ? rc : wrc;
}

/* --- barrier ------------------------------------------------------------- */

/* Dissemination, as ump_alg_barrier_dissem. */
int ump_fast_barrier(ump_comm_t comm)
{
    int tag;
    if (ump_coll_fast_max.v.sz == 0) return UMP_COLL_NOFAST;
    ump_coll_comm_t *st = begin(comm, &tag);
    if (!st) return UMP_COLL_NOFAST;
    int n = comm->size, me = comm->rank;
    if (one_phase(st, n) && n <= 16) return cls(exchange_all(comm, tag, NULL, 0, NULL, 0, 0));
    for (int d = 1; d < n; d <<= 1) {
        int rc = xchg(NULL, 0, wrank(comm, (me + d) % n), NULL, 0, wrank(comm, (me - d + n) % n),
                      tag, comm->ctx);
        if (rc != UMP_OK) return cls(rc);
    }
    return UMP_OK;
}

/* --- bcast --------------------------------------------------------------- */

/* Binomial tree, as ump_alg_bcast_binomial: the message from the parent,
 * then the children from the farthest. */
int ump_fast_bcast(void *buf, size_t count, ump_dt_t dt, int root, ump_comm_t comm)
{
    size_t bytes = (size_t)count * dt->size;
    int tag;
    if (bytes > ump_coll_fast_max.v.sz) return UMP_COLL_NOFAST;
    ump_coll_comm_t *st = begin(comm, &tag);
    if (!st) return UMP_COLL_NOFAST;
    int n = comm->size, vr = (comm->rank - root + n) % n;
    uint32_t ctx = comm->ctx;
    bool contig = dt->contiguous;
    void *p = buf;
    int rc = UMP_OK;
    if (!contig) {
        p = scratch(st, bytes);
        if (!p) return UMP_ERR_NO_MEMORY;
        if (!vr) ump_coll_pack(p, buf, (size_t)count, dt);
    }
    int mask = 1;
    while (mask < n) {
        if (vr & mask) {
            rc = ump_recv(p, bytes, UMP_BYTE, wrank(comm, (vr - mask + root) % n), tag, ctx,
                          UMP_STATUS_IGNORE);
            if (rc != UMP_OK) return cls(rc);
            break;
        }
        mask <<= 1;
    }
    /* The children's receives are posted as they enter, and a tree has no
     * cycle, so blocking sends cannot deadlock. */
    for (mask >>= 1; mask > 0 && rc == UMP_OK; mask >>= 1)
        if (vr + mask < n)
            rc = ump_send(p, bytes, UMP_BYTE, wrank(comm, (vr + mask + root) % n), tag, ctx);
    if (rc != UMP_OK) return cls(rc);
    if (!contig && vr) return ump_coll_unpack(buf, p, (size_t)count, dt);
    return UMP_OK;
}

/* --- reduce / allreduce ---------------------------------------------------- */

/* Reductions a child may run ahead of its parent (a power of two). */
#define RUNAHEAD 32

/* Binomial tree, as ump_alg_reduce_binomial for commutative ops (rooted at
 * the root). A leaf sends its send buffer as it is. */
int ump_fast_reduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                    int root, ump_comm_t comm)
{
    size_t esz = dt->size, cnt = (size_t)count, bytes = cnt * esz;
    int tag;
    if (bytes > ump_coll_fast_max.v.sz || !dt->contiguous || !op->commutative)
        return UMP_COLL_NOFAST;
    ump_coll_red_t red;
    int rc = ump_coll_red_lookup(&red, op, dt);
    if (rc != UMP_OK) return rc;
    if (!red.kernel && !red.user_contig) return UMP_COLL_NOFAST;
    ump_coll_comm_t *st = begin(comm, &tag);
    if (!st) return UMP_COLL_NOFAST;
    int n = comm->size, me = comm->rank, vr = (me - root + n) % n;
    uint32_t ctx = comm->ctx;
    const void *mine = sbuf == UMP_IN_PLACE ? rbuf : sbuf;
    char *tmp = NULL, *acc = NULL;
    for (int mask = 1; mask < n; mask <<= 1) {
        int peer = wrank(comm, ((vr ^ mask) + root) % n);
        if (vr & mask) {
            /* A child's send completes at once (eager), so children can run
             * thousands of reductions ahead of a busy parent; a parent
             * with several children then holds them all in its unexpected
             * queue, and each receive from its next child scans past them
             * (measured: 8 B reduce on 8 ranks on 2 cores went from 2 to
             * 8-40 us). Under such a parent every RUNAHEAD-th send is
             * synchronous, which bounds the lead. An only child runs free
             * (its parent's queue holds its messages in order), which is
             * worth 2x on 2 ranks. */
            int vp = vr - mask;
            bool siblings = mask > 1 || (vp + 2 * mask < n && (vp == 0 || 2 * mask < (vp & -vp)));
            const void *p = acc ? acc : mine;
            if (siblings && (tag & (RUNAHEAD - 1)) == RUNAHEAD - 1)
                rc = ump_ssend(p, bytes, UMP_BYTE, peer, tag, ctx);
            else
                rc = ump_send(p, bytes, UMP_BYTE, peer, tag, ctx);
            return cls(rc);
        }
        if (vr + mask >= n) continue;
        if (!tmp) {
            tmp = scratch(st, 2 * bytes);
            if (!tmp) return UMP_ERR_NO_MEMORY;
            acc = me == root ? rbuf : tmp + bytes;
            if (acc != mine) memcpy(acc, mine, bytes);
        }
        rc = ump_recv(tmp, bytes, UMP_BYTE, peer, tag, ctx, UMP_STATUS_IGNORE);
        if (rc != UMP_OK) return cls(rc);
        reduce_into(&red, tmp, acc, cnt);
    }
    /* The root of a tree with one rank, or a root without children. */
    if (me == root && !acc && rbuf != mine) memcpy(rbuf, mine, bytes);
    return UMP_OK;
}

/* Recursive doubling with the first 2 * rem ranks folded in pairs, as
 * ump_alg_allreduce_recdbl (rab.c's folding). */
int ump_fast_allreduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                       ump_comm_t comm)
{
    size_t esz = dt->size, cnt = (size_t)count, bytes = cnt * esz;
    int tag;
    if (bytes > ump_coll_fast_max.v.sz || !dt->contiguous) return UMP_COLL_NOFAST;
    ump_coll_red_t red;
    int rc = ump_coll_red_lookup(&red, op, dt);
    if (rc != UMP_OK) return rc;
    if (!red.kernel && !red.user_contig) return UMP_COLL_NOFAST;
    ump_coll_comm_t *st = begin(comm, &tag);
    if (!st) return UMP_COLL_NOFAST;
    int n = comm->size, me = comm->rank;
    uint32_t ctx = comm->ctx;
    char *acc = rbuf;
    if (sbuf != UMP_IN_PLACE) memcpy(acc, sbuf, bytes);
    if (one_phase(st, n) && bytes * (size_t)n <= ump_coll_fast_max.v.sz) {
        /* Every contribution to every rank, reduced in rank order
         * everywhere (so every rank computes the same bits). */
        char *all = scratch(st, bytes * (size_t)n);
        if (!all) return UMP_ERR_NO_MEMORY;
        rc = exchange_all(comm, tag, acc, 0, all, bytes, bytes);
        if (rc != UMP_OK) return cls(rc);
        memcpy(all + (size_t)me * bytes, acc, bytes);
        memcpy(acc, all, bytes);
        for (int i = 1; i < n; i++)
            reduce_after(&red, all + (size_t)i * bytes, acc, cnt);
        return UMP_OK;
    }
    char *tmp = scratch(st, bytes);
    if (!tmp) return UMP_ERR_NO_MEMORY;
    int p2 = ump_pow2_floor(n), rem = n - p2, nr;
    if (me < 2 * rem) {
        if (me & 1) {
            /* Folded away: hand the contribution over, get the result. */
            rc = ump_send(acc, bytes, UMP_BYTE, wrank(comm, me - 1), tag, ctx);
            if (rc == UMP_OK)
                rc = ump_recv(acc, bytes, UMP_BYTE, wrank(comm, me - 1), tag, ctx,
                              UMP_STATUS_IGNORE);
            return cls(rc);
        }
        rc = ump_recv(tmp, bytes, UMP_BYTE, wrank(comm, me + 1), tag, ctx, UMP_STATUS_IGNORE);
        if (rc != UMP_OK) return cls(rc);
        reduce_after(&red, tmp, acc, cnt);
        nr = me / 2;
    } else {
        nr = me - rem;
    }
    for (int mask = 1; mask < p2; mask <<= 1) {
        int pn = nr ^ mask;
        int peer = wrank(comm, pn < rem ? pn * 2 : pn + rem);
        rc = xchg(acc, bytes, peer, tmp, bytes, peer, tag, ctx);
        if (rc != UMP_OK) return cls(rc);
        if (pn < nr)
            reduce_into(&red, tmp, acc, cnt);
        else
            reduce_after(&red, tmp, acc, cnt);
    }
    if (me < 2 * rem) rc = ump_send(acc, bytes, UMP_BYTE, wrank(comm, me + 1), tag, ctx);
    return cls(rc);
}

/* --- allgather --------------------------------------------------------------- */

/* Recursive doubling (powers of two) straight in the receive buffer, as
 * ump_alg_allgather_recdbl; other sizes take the schedule (Bruck). */
int ump_fast_allgather(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                       ump_dt_t rdt, ump_comm_t comm)
{
    int n = comm->size, me = comm->rank, tag;
    size_t b = (size_t)rcount * rdt->size;
    if (b * (size_t)n > ump_coll_fast_max.v.sz) return UMP_COLL_NOFAST;
    ump_coll_comm_t *st = ump_coll_state(comm);
    bool linear = st && one_phase(st, n);
    if (!linear && (n & (n - 1))) return UMP_COLL_NOFAST;
    st = begin(comm, &tag);
    if (!st) return UMP_COLL_NOFAST;
    uint32_t ctx = comm->ctx;
    bool rcontig = rdt->contiguous;
    char *buf = rbuf;
    if (!rcontig) {
        buf = scratch(st, b * (size_t)n);
        if (!buf) return UMP_ERR_NO_MEMORY;
    }
    char *own = buf + (size_t)me * b;
    if (sbuf != UMP_IN_PLACE)
        ump_coll_pack(own, sbuf, (size_t)scount, sdt);
    else if (!rcontig)
        ump_coll_pack(own, (char *)rbuf + (size_t)me * (size_t)rcount * rdt->extent, (size_t)rcount,
                      rdt);
    if (linear) {
        int rc = exchange_all(comm, tag, own, 0, buf, b, b);
        if (rc != UMP_OK) return cls(rc);
    }
    for (int mask = 1; mask < n && !linear; mask <<= 1) {
        int pn = me ^ mask;
        size_t mine = (size_t)(me & ~(mask - 1)), theirs = (size_t)(pn & ~(mask - 1));
        int rc = xchg(buf + mine * b, (size_t)mask * b, wrank(comm, pn), buf + theirs * b,
                      (size_t)mask * b, wrank(comm, pn), tag, ctx);
        if (rc != UMP_OK) return cls(rc);
    }
    if (!rcontig)
        for (int i = 0; i < n; i++)
            if (i != me || sbuf != UMP_IN_PLACE) {
                int rc = ump_coll_unpack((char *)rbuf + (size_t)i * (size_t)rcount * rdt->extent,
                                         buf + (size_t)i * b, (size_t)rcount, rdt);
                if (rc != UMP_OK) return rc;
            }
    return UMP_OK;
}

/* --- alltoall ---------------------------------------------------------------- */

/* Linear: every receive posted, then the sends (eager for these sizes),
 * then the waits; the pattern of the schedule's linear algorithm. Blocks
 * of non-contiguous types go through packed scratch, so the choice does
 * not depend on a rank's own types. */
int ump_fast_alltoall(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                      ump_dt_t rdt, ump_comm_t comm)
{
    int n = comm->size, me = comm->rank, tag;
    size_t b = (size_t)rcount * rdt->size;
    if (sbuf == UMP_IN_PLACE || n > 64 || b * (size_t)n > ump_coll_fast_max.v.sz)
        return UMP_COLL_NOFAST;
    /* Many ranks that all run: Bruck's log n rounds beat n - 1 messages. */
    ump_coll_comm_t *st = ump_coll_state(comm);
    if (n > 8 && !(st && one_phase(st, n))) return UMP_COLL_NOFAST;
    st = begin(comm, &tag);
    if (!st) return UMP_COLL_NOFAST;
    uint32_t ctx = comm->ctx;
    bool scontig = sdt->contiguous, rcontig = rdt->contiguous;
    size_t sx = scontig ? (size_t)scount * sdt->extent : b;
    size_t rx = rcontig ? (size_t)rcount * rdt->extent : b;
    const char *sb = sbuf;
    char *rb = rbuf;
    if (!scontig || !rcontig) {
        char *t = scratch(st, 2 * b * (size_t)n);
        if (!t) return UMP_ERR_NO_MEMORY;
        if (!scontig) {
            for (int i = 0; i < n; i++)
                ump_coll_pack(t + (size_t)i * b,
                              (const char *)sbuf + (size_t)i * (size_t)scount * sdt->extent,
                              (size_t)scount, sdt);
            sb = t;
        }
        if (!rcontig) rb = t + b * (size_t)n;
    }
    if (b) memcpy(rb + (size_t)me * rx, sb + (size_t)me * sx, b);
    int rc, peer = 1 - me;
    if (n == 2) /* one exchange: a single request, waited alone */
        rc = xchg(sb + (size_t)peer * sx, b, wrank(comm, peer), rb + (size_t)peer * rx, b,
                  wrank(comm, peer), tag, ctx);
    else
        rc = exchange_all(comm, tag, sb, sx, rb, rx, b);
    if (rc != UMP_OK) return cls(rc);
    if (!rcontig)
        for (int i = 0; i < n; i++) {
            int e = ump_coll_unpack((char *)rbuf + (size_t)i * (size_t)rcount * rdt->extent,
                                    rb + (size_t)i * b, (size_t)rcount, rdt);
            if (e != UMP_OK) return e;
        }
    return UMP_OK;
}
