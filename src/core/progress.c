/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress engine and the send queues.
 *
 * Each peer has two FIFO queues of operations a transport refused for now:
 * `match` (EAGER, EAGER_SYNC, RTS: they must keep their order, which is
 * MPI's order) and `ctrl` (CTS, DATA, FIN, SYNC_ACK, CREDIT: replies, which
 * may overtake them). An eager message that would exceed the credits the
 * receiver granted goes as RTS instead, so nothing waits for credits.
 */
#include <string.h>

#include "core/core.h"

enum { OP_DONE, OP_BLOCKED };

UMP_CFG(cfg_fail_ops, "UMP_CORE_FAIL_OPS", UMP_CFG_INT, "0",
        "test hook: every Nth queued operation finds no memory in the free list (0: never)");

/* Queued operations come from a free list; when it cannot grow, from a
 * static reserve, so a reply the peer waits for (CTS, FIN, acks, credits)
 * or a send is not dropped for want of a few dozen bytes. */
#define OP_RESERVE 256
static ump_op_t op_reserve[OP_RESERVE];
static ump_op_t *op_reserve_free[OP_RESERVE];
static int op_reserve_top = -1; /* -1: not set up yet */
static long op_allocs;

static ump_op_t *op_alloc(void)
{
    ump_op_t *op = NULL;
    if (!(cfg_fail_ops.v.i > 0 && ++op_allocs % cfg_fail_ops.v.i == 0))
        op = ump_freelist_take(&ump_core.op_fl);
    if (UMP_LIKELY(op)) {
        op->reserve = false;
        return op;
    }
    if (op_reserve_top < 0)
        for (op_reserve_top = 0; op_reserve_top < OP_RESERVE; op_reserve_top++)
            op_reserve_free[op_reserve_top] = &op_reserve[op_reserve_top];
    if (!op_reserve_top) return NULL;
    op = op_reserve_free[--op_reserve_top];
    op->reserve = true;
    return op;
}

static void op_free(ump_op_t *op)
{
    if (op->reserve)
        op_reserve_free[op_reserve_top++] = op;
    else
        ump_freelist_put(&ump_core.op_fl, op);
}

static inline ump_peer_t *peer_of(int peer)
{
    return &ump_core.peers[peer];
}
static inline int rank_of(ump_peer_t *p)
{
    return (int)(p - ump_core.peers);
}

/* The transport finished reading a standard send's buffer (am_send_zc). */
static void zc_done(ump_xp_comp_t *comp, int status)
{
    struct ump_request *r = UMP_CONTAINER_OF(comp, struct ump_request, comp);
    r->flags &= ~UMP_RF_RMA;
    ump_core_mr_release(r);
    ump_core_req_complete(r, status);
}

/* A standard eager send of a contiguous buffer from the buffer itself,
 * registered (through the cache), with no copy: UMP_INPROGRESS when the
 * transport completes r later (zc_done), else as am_send (UMP_OK: r's
 * buffer is free again). */
static int send_zc(ump_xp_t *xp, int peer, uint8_t am_id, ump_op_t *op, size_t hlen,
                   struct ump_request *r)
{
    struct iovec iov = {.iov_base = r->buf, .iov_len = r->len};
    if (xp->caps.mr_required && ump_core_mr_reg(xp, r, r->len) != UMP_OK)
        return xp->ops->am_send(xp, peer, am_id, &op->h, hlen, &iov, 1);
    r->comp = (ump_xp_comp_t){.count = 1, .status = UMP_OK, .cb = zc_done};
    int rc = xp->ops->am_send_zc(xp, peer, am_id, &op->h, hlen, &iov, 1, r->mr, &r->comp);
    if (rc == UMP_INPROGRESS) {
        r->flags |= UMP_RF_RMA; /* zc_done finishes it, even if the peer dies */
        return rc;
    }
    ump_core_mr_release(r);
    return rc;
}

/* Tries to hand `op` to the peer's transport. OP_DONE when the op is
 * finished with (sent, or failed and its request completed with the error). */
static int try_op(int peer, ump_peer_t *p, ump_op_t *op)
{
    ump_xp_t *xp = p->xp;
    struct ump_request *r = op->req;
    struct iovec iov;
    int rc;

    switch (op->am_id) {
    case UMP_AM_EAGER:
    case UMP_AM_EAGER_SYNC:
    case UMP_AM_RTS: {
        size_t plen = op->am_id == UMP_AM_RTS ? 0 : r->len;
        int64_t cost = (int64_t)ump_core_cost(op->am_id, op->hlen, plen);
        if (cost > p->credits) {
            /* The receiver holds as much unexpected data from us as we
             * allow: send a request-to-send instead, whose data stays here
             * until the receive is posted. Waiting for credits could
             * deadlock a receiver that takes our later messages first. */
            op->h.rts.addr = (uint64_t)(uintptr_t)r->buf;
            op->am_id = UMP_AM_RTS;
            op->hlen = sizeof(ump_hdr_rts_t);
            plen = 0;
            cost = 0;
        }
        /* What goes on the wire: a standard eager message's short header. */
        size_t hlen = op->hlen;
        uint8_t am_id = ump_core_wire_am(op->am_id, &hlen);
        if (UMP_UNLIKELY(op->am_id == UMP_AM_RTS && xp->caps.mr_required && !r->dt)) {
            /* The RTS carries the key of our registered buffer. */
            char key[sizeof(ump_rts_key_t) + UMP_XP_RKEY_MAX];
            iov.iov_base = key;
            iov.iov_len = ump_core_rts_key_make(xp, r, key);
            rc = xp->ops->am_send(xp, peer, am_id, &op->h, hlen, &iov, 1);
        } else if (UMP_UNLIKELY(plen >= xp->caps.zc_min && op->am_id == UMP_AM_EAGER && !r->dt &&
                                plen)) {
            rc = send_zc(xp, peer, am_id, op, hlen, r);
        } else if (UMP_LIKELY(!r->dt)) {
            iov.iov_base = r->buf;
            iov.iov_len = plen;
            rc = xp->ops->am_send(xp, peer, am_id, &op->h, hlen, &iov, plen ? 1 : 0);
        } else if (op->am_id == UMP_AM_RTS) {
            rc = ump_core_dt_send_rts(xp, peer, &op->h.rts, r);
        } else {
            /* Eager: pack straight into the transport's buffer. */
            ump_dt_cursor_t c;
            rc = ump_dt_cursor_init(&c, r->buf, r->count, r->dt, 0);
            if (rc == UMP_OK) rc = ump_core_dt_am_send(xp, peer, am_id, &op->h, hlen, &c, plen);
        }
        if (rc == UMP_ERR_NO_RESOURCE) {
            ump_core.blocked_sends++;
            return OP_BLOCKED;
        }
        if (rc != UMP_OK && rc != UMP_INPROGRESS) {
            ump_core_req_complete(r, rc);
            return OP_DONE;
        }
        p->credits -= cost;
        if (rc == UMP_INPROGRESS) return OP_DONE; /* sent from r's buffer: zc_done completes r */
        /* A standard eager send is complete once its bytes are taken; the
         * synchronous one waits for SYNC_ACK, the rendezvous for CTS/FIN. */
        if (op->am_id == UMP_AM_EAGER)
            ump_core_req_complete(r, UMP_OK);
        else if (op->am_id == UMP_AM_RTS && r->dt)
            ump_core_dt_prepack(xp, r);
        return OP_DONE;
    }
    case UMP_AM_DATA: {
        size_t seg = r->dt ? ump_core_dt_seg(xp, r->expected, true) : xp->caps.seg_size;
        while (r->done < r->expected) {
            size_t n = UMP_MIN(seg, r->expected - r->done);
            ump_hdr_data_t h = {.rreq = r->rreq, .offset = r->done};
            const void *pre;
            if (r->dt && (pre = ump_core_dt_prepacked(r, r->done, &n))) {
                iov.iov_base = (void *)pre;
                iov.iov_len = n;
                rc = xp->ops->am_send(xp, peer, UMP_AM_DATA, &h, sizeof(h), &iov, 1);
            } else if (r->dt) {
                rc = ump_core_dt_am_send(xp, peer, UMP_AM_DATA, &h, sizeof(h), r->cur, n);
            } else {
                iov.iov_base = (char *)r->buf + r->done;
                iov.iov_len = n;
                rc = xp->ops->am_send(xp, peer, UMP_AM_DATA, &h, sizeof(h), &iov, 1);
            }
            if (rc == UMP_ERR_NO_RESOURCE) {
                ump_core.blocked_sends++;
                return OP_BLOCKED;
            }
            if (rc != UMP_OK) {
                ump_core_req_complete(r, rc);
                return OP_DONE;
            }
            r->done += n;
        }
        ump_core_req_complete(r, UMP_OK);
        return OP_DONE;
    }
    default:
        rc = xp->ops->am_send(xp, peer, op->am_id, &op->h, op->hlen, NULL, 0);
        if (rc == UMP_ERR_NO_RESOURCE) {
            ump_core.blocked_sends++;
            return OP_BLOCKED;
        }
        /* A reply to a dead peer has nobody to reach: drop it. */
        return OP_DONE;
    }
}

static void mark_pending(ump_peer_t *p)
{
    if (!p->on_pending_list) {
        TAILQ_INSERT_TAIL(&ump_core.pending_peers, p, pending_link);
        p->on_pending_list = true;
    }
}

void ump_core_queue_op(int peer, ump_op_t *tmpl, bool ctrl)
{
    ump_peer_t *p = peer_of(peer);
    struct ump_op_list *q = ctrl ? &p->ctrl : &p->match;

    if (UMP_UNLIKELY(p->dead)) {
        if (tmpl->req) ump_core_req_complete(tmpl->req, UMP_ERR_PEER_DEAD);
        return;
    }
    /* Fast path: nothing queued ahead, so order allows sending now. */
    if (TAILQ_EMPTY(q) && try_op(peer, p, tmpl) == OP_DONE) return;
    ump_op_t *op = op_alloc();
    if (UMP_UNLIKELY(!op)) {
        ump_error("out of memory queueing a message to rank %d%s", peer,
                  tmpl->req ? "" : ": a reply it waits for is lost");
        if (tmpl->req) ump_core_req_complete(tmpl->req, UMP_ERR_NO_MEMORY);
        return;
    }
    bool reserve = op->reserve;
    memcpy(op, tmpl, sizeof(*op));
    op->reserve = reserve;
    TAILQ_INSERT_TAIL(q, op, link);
    mark_pending(p);
}

void ump_core_send_ctrl(int peer, uint8_t am_id, const void *hdr, size_t hlen)
{
    ump_op_t op = {.am_id = am_id, .hlen = (uint8_t)hlen};
    memcpy(&op.h, hdr, hlen);
    ump_core_queue_op(peer, &op, true);
}

void ump_core_send_nack(int peer, uint64_t req, int error)
{
    ump_hdr_nack_t h = {.req = req, .error = error};
    ump_core_send_ctrl(peer, UMP_AM_NACK, &h, sizeof(h));
}

static bool drain(int peer, ump_peer_t *p, struct ump_op_list *q)
{
    while (!TAILQ_EMPTY(q)) {
        ump_op_t *op = TAILQ_FIRST(q);
        if (try_op(peer, p, op) != OP_DONE) return false;
        TAILQ_REMOVE(q, op, link);
        op_free(op);
    }
    return true;
}

static void progress_pending(void)
{
    ump_peer_t *p = TAILQ_FIRST(&ump_core.pending_peers);
    while (p) {
        ump_peer_t *next = TAILQ_NEXT(p, pending_link);
        int peer = rank_of(p);
        bool empty = drain(peer, p, &p->ctrl);
        empty = drain(peer, p, &p->match) && empty;
        if (empty) {
            TAILQ_REMOVE(&ump_core.pending_peers, p, pending_link);
            p->on_pending_list = false;
        }
        p = next;
    }
}

int ump_core_progress(void)
{
    int events = 0;
    ump_core.blocked_sends = 0;
    ump_core.stats.progress++;
    ump_core.progress_depth++;
    for (int i = 0; i < ump_core.nxps; i++) {
        ump_xp_t *xp = ump_core.xps[i];
        if (xp->idle) continue;
        int n = xp->ops->progress(xp);
        if (n > 0) events += n;
    }
    if (!TAILQ_EMPTY(&ump_core.pending_peers)) progress_pending();
    if (UMP_UNLIKELY(ump_core_sg_pending())) events += ump_core_sg_resume();
    for (int i = 0; i < ump_core.nhooks; i++) {
        int n = ump_core.hooks[i].fn(ump_core.hooks[i].arg);
        if (n > 0) events += n;
    }
    ump_core.progress_depth--;
    return events;
}

bool ump_core_sends_pending(void)
{
    return !TAILQ_EMPTY(&ump_core.pending_peers) || ump_core_sg_pending();
}

static bool involves(struct ump_request *r, int peer)
{
    if (r->kind == UMP_REQ_SEND) return r->peer == peer;
    if (r->flags & UMP_RF_MATCHED) return r->status.source == peer;
    return r->peer == peer; /* posted for that source; ANY_SOURCE may still match others */
}

void ump_core_fail_peer(int peer, int error)
{
    ump_peer_t *p = peer_of(peer);
    size_t failed = 0;
    p->dead = true;
    struct ump_op_list *lists[] = {&p->ctrl, &p->match};
    for (int i = 0; i < 2; i++) {
        while (!TAILQ_EMPTY(lists[i])) {
            ump_op_t *op = TAILQ_FIRST(lists[i]);
            TAILQ_REMOVE(lists[i], op, link);
            op_free(op);
        }
    }
    if (p->on_pending_list) {
        TAILQ_REMOVE(&ump_core.pending_peers, p, pending_link);
        p->on_pending_list = false;
    }
    struct ump_request *r = TAILQ_FIRST(&ump_core.active);
    while (r) {
        struct ump_request *next = TAILQ_NEXT(r, active);
        /* A receive the transport still reads into completes through the
         * transport's completion, which reports the failure. */
        if (involves(r, peer) && !(r->flags & UMP_RF_RMA)) {
            if (r->flags & UMP_RF_POSTED) {
                ump_ctxq_t *q = ump_core_ctxq(r->ctx, false);
                TAILQ_REMOVE(&q->posted, r, link);
                r->flags &= ~UMP_RF_POSTED;
            }
            r->status.source = peer;
            ump_core_req_complete(r, error);
            failed++;
        }
        r = next;
    }
    if (failed)
        ump_error("rank %d is unreachable (%s): %zu operation(s) with it failed", peer,
                  ump_strerror(error), failed);
}
