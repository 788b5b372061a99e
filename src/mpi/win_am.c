/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The target side of one-sided communication: a progress hook that takes
 * the RMA messages of every window off the core's queues and applies them
 * to window memory, and the bookkeeping of what a window has in flight.
 *
 * The hook never blocks: it probes for messages (matched probe, so it
 * knows their length), posts their receives, and applies the received
 * ones strictly in the order they were probed. Messages of one origin are
 * probed in the order it sent them (the core's matching is
 * non-overtaking), so its operations land in issue order, and applying
 * one whole message at a time makes every accumulate atomic with respect
 * to the others (MPI 3.1 11.7.1). Any MPI call on the target (a wait,
 * a fence, a barrier) runs the hook.
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/win.h"

static bool multiple(void)
{
    return ump_mpi_thread_level == MPI_THREAD_MULTIPLE;
}

MPI_Win ump_win_enter_mt(MPI_Win w)
{
    if (!ump_win_ok(w)) return NULL;
    pthread_mutex_lock(&w->mu);
    return w;
}

/* The windows the hook serves; under MPI_THREAD_MULTIPLE changed under
 * wins_mu, which the hook only try-locks. */
static pthread_mutex_t wins_mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static MPI_Win *wins;
static int nwins, cwins;
static bool hook_on;
/* The hook tests requests, and a test runs the hooks again: the inner
 * call must not touch the lists the outer one walks. */
static bool in_hook;

/* --- what a window has in flight ------------------------------------------------ */

static int run_unlocks(MPI_Win w);

static int pend_push(MPI_Win w, ump_win_pending_t e)
{
    if (w->npend == w->cpend) {
        size_t c = w->cpend ? 2 * w->cpend : 16;
        ump_win_pending_t *p = realloc(w->pend, c * sizeof(*p));
        if (!p) return MPI_ERR_NO_MEM;
        w->pend = p;
        w->cpend = c;
    }
    w->pend[w->npend++] = e;
    return MPI_SUCCESS;
}

int ump_win_pend_add(MPI_Win w, ump_req_t req, void *buf, ump_req_t greq)
{
    return pend_push(w, (ump_win_pending_t){.req = req, .buf = buf, .greq = greq});
}

int ump_win_pend_add_reply(MPI_Win w, ump_req_t req)
{
    return pend_push(w, (ump_win_pending_t){.req = req, .reply = true});
}

int ump_win_pend_add_join(MPI_Win w, ump_req_t req, void *buf, ump_win_join_t *join, size_t n)
{
    return pend_push(
        w, (ump_win_pending_t){
               .req = req, .buf = buf, .reply = true, .spare = true, .join = join, .njoin = n});
}

char *ump_win_join_buf(MPI_Win w)
{
    if (w->njoin_spare) return w->join_spare[--w->njoin_spare];
    return malloc(UMP_WIN_JOIN_CAP);
}

static void pend_done(MPI_Win w, ump_win_pending_t *e, int err)
{
    if (e->from_win) w->win_reads--;
    for (size_t i = 0; i < e->njoin; i++) {
        ump_win_join_t *j = &e->join[i];
        if (err == UMP_OK)
            ump_dt_unpack(j->addr, j->count, j->dt, 0, (char *)e->buf + j->off, j->len);
        ump_dt_unref(j->dt);
    }
    free(e->join);
    if (e->spare && w->njoin_spare < (int)UMP_ARRAY_SIZE(w->join_spare))
        w->join_spare[w->njoin_spare++] = e->buf;
    else
        free(e->buf);
    if (e->greq) ump_greq_complete(e->greq, err);
}

/* From the hook: completes what it can, but a reply receive that only
 * ump_win_pend_wait needs (a get's, a flush's), which is left to it:
 * testing it here, inside progress, would only run progress again,
 * polling every transport once more per progress call while an origin
 * waits. (A target's sends must be reaped here: it may never wait.) */
static int pend_test(MPI_Win w)
{
    int events = 0;
    for (size_t i = 0; i < w->npend;) {
        if (w->pend[i].reply) {
            i++;
            continue;
        }
        int done = 0;
        ump_status_t st;
        int rc = ump_test(&w->pend[i].req, &done, &st);
        if (!done && rc == UMP_OK) {
            i++;
            continue;
        }
        ump_win_pending_t e = w->pend[i];
        w->pend[i] = w->pend[--w->npend];
        pend_done(w, &e, rc);
        events++;
    }
    return events;
}

int ump_win_pend_wait(MPI_Win w)
{
    /* Replies to operations still in a batch come only once it went; a
     * batch that cannot go leaves replies that never come: nothing in
     * flight is waited for then, but cancelled. */
    int brc = w->batch_replies ? ump_win_batch_send_all(w) : MPI_SUCCESS;
    int err = UMP_OK;
    while (w->npend) {
        ump_win_pending_t e = w->pend[--w->npend];
        if (brc != MPI_SUCCESS) ump_cancel(&e.req);
        ump_status_t st = {0};
        int rc = ump_wait(&e.req, &st);
        if (rc != UMP_OK && err == UMP_OK) err = rc;
        /* A joined reply that never came has nothing to unpack. */
        if (e.njoin && rc == UMP_OK && st.cancelled) rc = UMP_ERR_INVALID;
        pend_done(w, &e, rc);
    }
    w->reads = 0;
    /* This rank's own gets from the window may have held UNLOCKs back. */
    if (w->unlocks) run_unlocks(w);
    if (brc != MPI_SUCCESS) return brc;
    return err == UMP_OK ? MPI_SUCCESS : ump_mpi_class_of(err);
}

int ump_win_tag(MPI_Win w)
{
    int t = (int)w->next_tag;
    w->next_tag = w->next_tag >= 0x3fffffffu ? 1 : w->next_tag + 1;
    return t;
}

void ump_win_progress_until(MPI_Win w, bool (*cond)(MPI_Win w))
{
    while (!cond(w))
        if (ump_progress() <= 0) sched_yield();
}

int ump_win_ctrl(MPI_Win w, int target, int op, int lock_type, ump_win_reply_t reply)
{
    bool answered = reply != UMP_WIN_REPLY_NONE;
    /* Built here; copied into the batch, or into a buffer of its own
     * that goes with the send. */
    ump_win_hdr_t hs = {.op = (uint8_t)op, .lock_type = (uint8_t)lock_type, .origin = w->rank};
    ump_win_hdr_t *h = &hs;
    int tw = ump_win_world(w, target);
    uint32_t ctx = w->comm->ctx_p2p;
    ump_req_t rr = UMP_REQ_NULL, sr = UMP_REQ_NULL;
    static char none; /* replies carry no bytes */
    int rc = UMP_OK;
    if (answered) {
        h->reply_tag = ump_win_tag(w);
        rc = ump_irecv(&none, 0, UMP_BYTE, tw, h->reply_tag, ctx, &rr);
    }
    int mrc = MPI_SUCCESS;
    if (rc == UMP_OK && ump_win_batch_held(w, target)) {
        /* The operations waiting for this target go with it, in one message. */
        mrc = ump_win_batch_add(w, target, h, sizeof(*h));
        if (mrc == MPI_SUCCESS) mrc = ump_win_batch_send(w, target);
        if (mrc != MPI_SUCCESS) {
            if (rr) ump_cancel(&rr), ump_wait(&rr, UMP_STATUS_IGNORE);
            return mrc;
        }
    } else {
        h = rc == UMP_OK ? malloc(sizeof(*h)) : NULL;
        if (rc == UMP_OK && !h) rc = UMP_ERR_NO_MEMORY;
        if (rc == UMP_OK) {
            *h = hs;
            rc = ump_isend(h, sizeof(*h), UMP_BYTE, tw, UMP_WIN_TAG_REQ, ctx, &sr);
        }
        if (rc != UMP_OK) {
            free(h);
            if (rr) ump_cancel(&rr), ump_wait(&rr, UMP_STATUS_IGNORE);
            return ump_mpi_class_of(rc);
        }
        mrc = ump_win_pend_add(w, sr, h, UMP_REQ_NULL);
        if (mrc != MPI_SUCCESS) {
            ump_wait(&sr, UMP_STATUS_IGNORE);
            free(h);
        }
    }
    if (reply == UMP_WIN_REPLY_WAIT) {
        rc = ump_wait(&rr, UMP_STATUS_IGNORE);
    } else if (reply == UMP_WIN_REPLY_PEND && ump_win_pend_add_reply(w, rr)) {
        rc = ump_wait(&rr, UMP_STATUS_IGNORE); /* no room to keep it: wait now */
    }
    /* A reply waited for here, or by the caller's ump_win_pend_wait,
     * proves everything sent before applied. */
    w->unproven[target] = !answered || rc != UMP_OK || mrc != MPI_SUCCESS;
    return rc == UMP_OK ? mrc : ump_mpi_class_of(rc);
}

/* --- applying a message ------------------------------------------------------------- */

/* Sends len bytes at buf; `owned` (buf itself or NULL) is freed once
 * sent. from_win: buf is the window's memory, counted in win_reads until
 * sent (an UNLOCK waits for it). */
static void send_reply_from(MPI_Win w, int dst, int tag, const void *buf, size_t len, void *owned,
                            bool from_win)
{
    ump_req_t r;
    if (ump_isend(buf, len, UMP_BYTE, dst, tag, w->comm->ctx_p2p, &r) != UMP_OK ||
        pend_push(w, (ump_win_pending_t){.req = r, .buf = owned, .from_win = from_win}) !=
            MPI_SUCCESS) {
        /* Nothing the origin could be told: it waits for this reply. */
        ump_abort(MPI_ERR_INTERN, "one-sided: cannot send a reply to an origin");
    }
    if (from_win) w->win_reads++;
}

static void send_reply(MPI_Win w, int dst, int tag, void *buf, size_t len)
{
    send_reply_from(w, dst, tag, buf, len, buf, false);
}

/* Copies the target layout's stream between `data` and the window. */
static void move_runs(MPI_Win w, const ump_win_hdr_t *h, const ump_win_run_t *runs, char *data,
                      bool to_window)
{
    char *at = (char *)w->base + h->disp;
    for (uint64_t i = 0; i < h->nruns; i++) {
        char *p = at + runs[i].off;
        /* The origin cannot check a dynamic window's range: the target
         * refuses memory that is not attached rather than corrupt it. */
        if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC && !ump_win_dyn_covers(w, p, runs[i].len)) {
            char msg[200];
            snprintf(msg, sizeof(msg),
                     "one-sided: rank %d: an operation from rank %d touches %zu bytes at %p, "
                     "not attached to the dynamic window (MPI_ERR_RMA_RANGE)",
                     w->rank, h->origin, (size_t)runs[i].len, (void *)p);
            ump_abort(MPI_ERR_RMA_RANGE, msg);
        }
        if (to_window)
            memcpy(p, data, runs[i].len);
        else
            memcpy(data, p, runs[i].len);
        data += runs[i].len;
    }
}

static void accumulate(MPI_Win w, const ump_win_hdr_t *h, const ump_win_run_t *runs, char *data)
{
    MPI_Op op = ump_win_op_at(h->redop);
    if (op == MPI_NO_OP) return;
    if (op == MPI_REPLACE) {
        move_runs(w, h, runs, data, true);
        return;
    }
    MPI_Datatype dt = ump_win_dt_at(h->basic);
    if (!dt || !op) ump_abort(MPI_ERR_INTERN, "one-sided: cannot apply an accumulate");
    /* One run, both sides aligned for the type: reduced in place. */
    char *p = (char *)w->base + h->disp + (h->nruns == 1 ? runs[0].off : 0);
    size_t align = dt->size & -dt->size;
    if (align > 16) align = 16;
    if (h->nruns == 1 && w->flavor != MPI_WIN_FLAVOR_DYNAMIC && (uintptr_t)data % align == 0 &&
        (uintptr_t)p % align == 0) {
        PMPI_Reduce_local(data, p, (int)(h->tlen / dt->size), dt, op);
        return;
    }
    /* The target's bytes, and the origin's when the message does not hold
     * them at an address the type may be loaded from (long double wants 16). */
    size_t len = (h->tlen + 15) & ~(size_t)15;
    bool moved = ((uintptr_t)data & 15) != 0;
    char *tmp = aligned_alloc(16, len ? (moved ? 2 * len : len) : 16);
    if (!tmp) ump_abort(MPI_ERR_INTERN, "one-sided: cannot apply an accumulate");
    if (moved) data = memcpy(tmp + len, data, h->tlen);
    move_runs(w, h, runs, tmp, false);
    PMPI_Reduce_local(data, tmp, (int)(h->tlen / dt->size), dt, op);
    move_runs(w, h, runs, tmp, true);
    free(tmp);
}

static bool lock_fits(MPI_Win w, int type)
{
    if (w->lock_excl >= 0) return false;
    return type == MPI_LOCK_SHARED || w->lock_shared == 0;
}

static void grant(MPI_Win w, int origin, int type, int tag)
{
    if (type == MPI_LOCK_EXCLUSIVE)
        w->lock_excl = origin;
    else
        w->lock_shared++;
    send_reply(w, ump_win_world(w, origin), tag, NULL, 0);
}

static void grant_waiters(MPI_Win w)
{
    while (w->waiters && lock_fits(w, w->waiters->lock_type)) {
        ump_win_waiter_t *q = w->waiters;
        w->waiters = q->next;
        if (!w->waiters) w->waiters_tail = NULL;
        grant(w, q->origin, q->lock_type, q->reply_tag);
        free(q);
    }
}

/* Gives origin's lock back, answers it and grants what now fits. */
static void unlock(MPI_Win w, int origin, int tag)
{
    if (w->lock_excl == origin)
        w->lock_excl = -1;
    else if (w->lock_shared > 0)
        w->lock_shared--;
    send_reply(w, ump_win_world(w, origin), tag, NULL, 0);
    grant_waiters(w);
}

static void defer_unlock(MPI_Win w, int origin, int tag)
{
    ump_win_waiter_t *q = calloc(1, sizeof(*q));
    if (!q) ump_abort(MPI_ERR_NO_MEM, "one-sided: out of memory for an unlock");
    q->origin = origin;
    q->reply_tag = tag;
    if (w->unlocks_tail)
        w->unlocks_tail->next = q;
    else
        w->unlocks = q;
    w->unlocks_tail = q;
}

/* The UNLOCKs that waited for the window's reads, once none is left. */
static int run_unlocks(MPI_Win w)
{
    int events = 0;
    while (w->unlocks && !w->win_reads) {
        ump_win_waiter_t *q = w->unlocks;
        w->unlocks = q->next;
        if (!w->unlocks) w->unlocks_tail = NULL;
        unlock(w, q->origin, q->reply_tag);
        free(q);
        events++;
    }
    return events;
}

static void apply(MPI_Win w, ump_win_in_t *in);

/* A joined get (win.h): copies its bytes into the batch's reply at *at. */
static void join_get(MPI_Win w, const ump_win_hdr_t *h, const ump_win_run_t *runs, char *reply,
                     uint64_t rlen, uint64_t *at)
{
    uint64_t sum = 0, room = (h->tlen + 7) & ~(uint64_t)7;
    for (uint64_t i = 0; i < h->nruns && sum <= h->tlen; i++)
        sum += runs[i].len;
    /* (*at never passes rlen, which the caller checked against the
     * buffer's size.) */
    if (!reply || sum != h->tlen || room < h->tlen || room > rlen - *at)
        ump_abort(MPI_ERR_INTERN, "one-sided: malformed RMA batch");
    move_runs(w, h, runs, reply + *at, false);
    *at += room;
}

/* A batch: its operations one after the other, as if each had come alone;
 * its joined gets' data go back in one reply once all were applied. */
static void apply_batch(MPI_Win w, ump_win_in_t *in, const ump_win_hdr_t *bh, const char *data,
                        uint64_t len)
{
    char *reply = NULL;
    uint64_t rlen = 0, at = 0;
    if (bh->flags & UMP_WIN_F_JOIN) {
        rlen = bh->tlen;
        if (rlen > UMP_WIN_JOIN_CAP) ump_abort(MPI_ERR_INTERN, "one-sided: malformed RMA batch");
        if (!(reply = ump_win_join_buf(w)))
            ump_abort(MPI_ERR_NO_MEM, "one-sided: out of memory for a reply");
    }
    uint64_t off = 0;
    while (off < len) {
        ump_win_hdr_t h;
        if (len - off < sizeof(h)) ump_abort(MPI_ERR_INTERN, "one-sided: malformed RMA batch");
        memcpy(&h, data + off, sizeof(h));
        uint64_t left = len - off - sizeof(h);
        /* An operation whose data travels apart (F_DATA) never rides in a
         * batch: its data would have nowhere to land. */
        if (h.op == UMP_WIN_BATCH || (h.flags & UMP_WIN_F_DATA) ||
            h.nruns > left / sizeof(ump_win_run_t) ||
            h.datalen > left - h.nruns * sizeof(ump_win_run_t))
            ump_abort(MPI_ERR_INTERN, "one-sided: malformed RMA batch");
        size_t one = sizeof(h) + h.nruns * sizeof(ump_win_run_t) + h.datalen;
        if (h.op == UMP_WIN_GET && (h.flags & UMP_WIN_F_JOIN)) {
            join_get(w, &h, (const ump_win_run_t *)(data + off + sizeof(h)), reply, rlen, &at);
        } else {
            ump_win_in_t sub = {.buf = (char *)data + off, .len = one, .src = in->src};
            apply(w, &sub);
        }
        off += (one + 7) & ~(uint64_t)7;
    }
    if (reply) {
        if (at != rlen) ump_abort(MPI_ERR_INTERN, "one-sided: malformed RMA batch");
        ump_req_t r;
        if (ump_isend(reply, rlen, UMP_BYTE, in->src, bh->reply_tag, w->comm->ctx_p2p, &r) !=
                UMP_OK ||
            pend_push(w, (ump_win_pending_t){.req = r, .buf = reply, .spare = true}) != MPI_SUCCESS)
            ump_abort(MPI_ERR_INTERN, "one-sided: cannot send a reply to an origin");
    }
}

static void apply(MPI_Win w, ump_win_in_t *in)
{
    const ump_win_hdr_t *h = (const ump_win_hdr_t *)in->buf;
    if (in->len < sizeof(*h) || h->nruns > (in->len - sizeof(*h)) / sizeof(ump_win_run_t) ||
        in->len != sizeof(*h) + h->nruns * sizeof(ump_win_run_t) + h->datalen)
        ump_abort(MPI_ERR_INTERN, "one-sided: malformed RMA message");
    const ump_win_run_t *runs = (const ump_win_run_t *)(h + 1);
    char *data = (char *)(runs + h->nruns);
    char *reply;
    switch (h->op) {
    case UMP_WIN_PUT:
        if (!(h->flags & UMP_WIN_F_DATA)) move_runs(w, h, runs, data, true);
        break;
    case UMP_WIN_ACC:
        accumulate(w, h, runs, (h->flags & UMP_WIN_F_DATA) ? in->acc : data);
        break;
    case UMP_WIN_GET:
        if (h->flags & UMP_WIN_F_JOIN)
            ump_abort(MPI_ERR_INTERN, "one-sided: malformed RMA message");
        if (h->nruns == 1 && w->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
            /* One run: the reply leaves from the window itself. The origin
             * learns the get done only once every byte arrived, and an
             * UNLOCK waits until they left, so no access that MPI allows
             * changes them while they are read. */
            send_reply_from(w, in->src, h->reply_tag, (char *)w->base + h->disp + runs[0].off,
                            h->tlen, NULL, true);
            break;
        }
        /* fall through */
    case UMP_WIN_GACC:
        reply = malloc(h->tlen ? h->tlen : 1);
        if (!reply) ump_abort(MPI_ERR_NO_MEM, "one-sided: out of memory for a reply");
        move_runs(w, h, runs, reply, false);
        if (h->op == UMP_WIN_GACC) accumulate(w, h, runs, data);
        send_reply(w, in->src, h->reply_tag, reply, h->tlen);
        break;
    case UMP_WIN_CAS: {
        /* data: the new value, then the compare value; one element. */
        size_t sz = h->tlen;
        reply = malloc(sz ? sz : 1);
        if (!reply) ump_abort(MPI_ERR_NO_MEM, "one-sided: out of memory for a reply");
        move_runs(w, h, runs, reply, false);
        if (memcmp(reply, data + sz, sz) == 0) move_runs(w, h, runs, data, true);
        send_reply(w, in->src, h->reply_tag, reply, sz);
        break;
    }
    case UMP_WIN_LOCK:
        if (!w->waiters && lock_fits(w, h->lock_type)) {
            grant(w, h->origin, h->lock_type, h->reply_tag);
        } else {
            ump_win_waiter_t *q = calloc(1, sizeof(*q));
            if (!q) ump_abort(MPI_ERR_NO_MEM, "one-sided: out of memory for a lock request");
            q->origin = h->origin;
            q->lock_type = h->lock_type;
            q->reply_tag = h->reply_tag;
            if (w->waiters_tail)
                w->waiters_tail->next = q;
            else
                w->waiters = q;
            w->waiters_tail = q;
        }
        break;
    case UMP_WIN_UNLOCK:
        if (w->win_reads || w->unlocks)
            defer_unlock(w, h->origin, h->reply_tag);
        else
            unlock(w, h->origin, h->reply_tag);
        break;
    case UMP_WIN_FLUSH:
        send_reply(w, in->src, h->reply_tag, NULL, 0);
        break;
    case UMP_WIN_POST:
        w->post_seen[h->origin]++;
        break;
    case UMP_WIN_COMPLETE:
        w->completes++;
        break;
    case UMP_WIN_BATCH:
        apply_batch(w, in, h, data, h->datalen);
        break;
    default:
        ump_abort(MPI_ERR_INTERN, "one-sided: unknown RMA message");
    }
}

/* A split operation's header (win.h): receives its data, a put's straight
 * into the window, an accumulate's into a buffer of its own (in->acc),
 * in->req standing for that receive, and returns true; false for any
 * other message. */
static bool split_data(MPI_Win w, ump_win_in_t *in)
{
    const ump_win_hdr_t *h = (const ump_win_hdr_t *)in->buf;
    if (in->len < sizeof(*h) || (h->op != UMP_WIN_PUT && h->op != UMP_WIN_ACC) ||
        !(h->flags & UMP_WIN_F_DATA))
        return false;
    const ump_win_run_t *runs = (const ump_win_run_t *)(h + 1);
    if (h->nruns != 1 || h->datalen || in->len != sizeof(*h) + sizeof(*runs) ||
        w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        ump_abort(MPI_ERR_INTERN, "one-sided: malformed RMA message");
    char *p = (char *)w->base + h->disp + runs[0].off;
    if (h->op == UMP_WIN_ACC) {
        if (!(p = in->acc = malloc(h->tlen ? h->tlen : 1)))
            ump_abort(MPI_ERR_NO_MEM, "one-sided: out of memory for an accumulate's data");
    }
    if (ump_irecv(p, h->tlen, UMP_BYTE, in->src, h->reply_tag, w->comm->ctx_p2p, &in->req) !=
        UMP_OK)
        ump_abort(MPI_ERR_INTERN, "one-sided: cannot receive an operation's data");
    in->data = true;
    return true;
}

_Static_assert(sizeof(ump_win_hdr_t) <= 64, "a batch's header fits UMP_WIN_IN_SCRATCH");

static void in_release(MPI_Win w, ump_win_in_t *in)
{
    if (in->buf != w->in_scratch) free(in->buf);
    free(in->acc);
    free(in);
}

/* Receives the probed message into the scratch buffer and applies it at
 * once; false (nothing done) when the scratch does not suit it. Only with
 * nothing queued, so the message keeps its place in the order. A receive
 * that is not complete at once, or a split operation's header (whose data
 * come next), is queued holding the scratch until it is applied: then it
 * is the queue's head, so the scratch is free whenever the queue is
 * empty. */
static bool serve_now(MPI_Win w, ump_msg_t *msg, const ump_status_t *st)
{
    if (w->in_head || st->msg_len > UMP_WIN_IN_SCRATCH) return false;
    if (!w->in_scratch && !(w->in_scratch = malloc(UMP_WIN_IN_SCRATCH))) return false;
    ump_win_in_t now = {.buf = w->in_scratch, .len = st->msg_len, .src = st->source};
    int done = 0;
    if (ump_imrecv(now.buf, st->msg_len, UMP_BYTE, msg, &now.req) != UMP_OK ||
        ump_test(&now.req, &done, UMP_STATUS_IGNORE) != UMP_OK)
        ump_abort(MPI_ERR_INTERN, "one-sided: cannot receive an RMA message");
    if (done && !split_data(w, &now)) {
        apply(w, &now);
        return true;
    }
    ump_win_in_t *in = malloc(sizeof(*in));
    if (!in) ump_abort(MPI_ERR_NO_MEM, "one-sided: cannot receive an RMA message");
    *in = now;
    w->in_head = w->in_tail = in;
    return true;
}

static int serve(MPI_Win w)
{
    int events = 0;
    uint32_t ctx = w->comm->ctx_p2p;
    for (;;) {
        int flag = 0;
        ump_msg_t msg;
        ump_status_t st;
        if (ump_improbe(UMP_ANY_SOURCE, UMP_WIN_TAG_REQ, ctx, &flag, &msg, &st) != UMP_OK || !flag)
            break;
        events++;
        if (serve_now(w, &msg, &st)) continue;
        ump_win_in_t *in = calloc(1, sizeof(*in));
        char *buf = malloc(st.msg_len ? st.msg_len : 1);
        if (!in || !buf || ump_imrecv(buf, st.msg_len, UMP_BYTE, &msg, &in->req) != UMP_OK)
            ump_abort(MPI_ERR_NO_MEM, "one-sided: cannot receive an RMA message");
        in->buf = buf;
        in->len = st.msg_len;
        in->src = st.source;
        if (w->in_tail)
            w->in_tail->next = in;
        else
            w->in_head = in;
        w->in_tail = in;
    }
    while (w->in_head) {
        ump_win_in_t *in = w->in_head;
        int done = 0;
        if (ump_test(&in->req, &done, UMP_STATUS_IGNORE) != UMP_OK || !done) break;
        if (!in->data && split_data(w, in)) continue; /* its data now come */
        apply(w, in);
        w->in_head = in->next;
        if (!w->in_head) w->in_tail = NULL;
        in_release(w, in);
        events++;
    }
    return events;
}

static int hook(void *arg)
{
    (void)arg;
    bool mt = multiple();
    if (mt && pthread_mutex_trylock(&wins_mu) != 0) return 0;
    int events = 0;
    if (!in_hook) {
        in_hook = true;
        for (int i = 0; i < nwins; i++) {
            MPI_Win w = wins[i];
            if (mt && pthread_mutex_trylock(&w->mu) != 0) continue;
            events += serve(w);
            events += pend_test(w);
            if (w->unlocks) events += run_unlocks(w);
            if (mt) pthread_mutex_unlock(&w->mu);
        }
        in_hook = false;
    }
    if (mt) pthread_mutex_unlock(&wins_mu);
    return events;
}

static int am_attach(MPI_Win w)
{
    if (nwins == cwins) {
        int c = cwins ? 2 * cwins : 8;
        MPI_Win *p = realloc(wins, (size_t)c * sizeof(*p));
        if (!p) return MPI_ERR_NO_MEM;
        wins = p;
        cwins = c;
    }
    if (!hook_on) {
        if (ump_progress_register(hook, NULL) != UMP_OK) return MPI_ERR_INTERN;
        hook_on = true;
    }
    wins[nwins++] = w;
    return MPI_SUCCESS;
}

int ump_win_am_attach(MPI_Win w)
{
    pthread_mutex_lock(&wins_mu);
    int rc = am_attach(w);
    pthread_mutex_unlock(&wins_mu);
    return rc;
}

static void am_detach(MPI_Win w)
{
    for (int i = 0; i < nwins; i++)
        if (wins[i] == w) {
            wins[i] = wins[--nwins];
            break;
        }
    if (!nwins && hook_on) {
        ump_progress_unregister(hook, NULL);
        hook_on = false;
        free(wins);
        wins = NULL;
        cwins = 0;
    }
}

void ump_win_am_detach(MPI_Win w)
{
    pthread_mutex_lock(&wins_mu);
    am_detach(w);
    pthread_mutex_unlock(&wins_mu);
}
