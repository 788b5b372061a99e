/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Schedules: the rounds every collective is made of, and the two ways of
 * running them (to the end at once, or step by step from a progress hook
 * for nonblocking collectives).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"

void ump_sched_init(ump_sched_t *s, ump_comm_t comm)
{
    memset(s, 0, offsetof(ump_sched_t, ops_in));
    s->ops = s->ops_in;
    s->capops = UMP_SCHED_INLINE;
    s->rend = s->rend_in;
    s->caprounds = UMP_SCHED_INLINE;
    s->reqs = s->reqs_in;
    s->capreqs = UMP_SCHED_INLINE;
    s->tmps = s->tmps_in;
    s->captmps = UMP_ARRAY_SIZE(s->tmps_in);
    ump_coll_comm_t *st = ump_coll_state(comm);
    s->ctx = comm->ctx;
    if (!st) {
        s->err = UMP_ERR_NO_MEMORY;
        return;
    }
    /* Tags stay below 2^30 (ump_coll.h): the faces may use the tags above
     * on the same context for their own traffic (communicator
     * construction); a wrap after 2^30 collectives is harmless because
     * older ones have completed by then on every rank. */
    s->tag = (int)(st->seq++ & 0x3fffffff);
}

/* Grows an array that starts in the schedule's inline storage `in`. */
static bool grow(void **arr, size_t *cap, size_t need, size_t elem, void *in)
{
    if (need <= *cap) return true;
    size_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need)
        ncap *= 2;
    void *p;
    if (*arr == in) {
        p = malloc(ncap * elem);
        if (p) memcpy(p, in, *cap * elem);
    } else {
        p = realloc(*arr, ncap * elem);
    }
    if (!p) return false;
    *arr = p;
    *cap = ncap;
    return true;
}

static ump_sop_t *add(ump_sched_t *s, int kind)
{
    if (s->err) return NULL;
    if (!grow((void **)&s->ops, &s->capops, s->nops + 1, sizeof(ump_sop_t), s->ops_in)) {
        s->err = UMP_ERR_NO_MEMORY;
        return NULL;
    }
    ump_sop_t *o = &s->ops[s->nops++];
    memset(o, 0, sizeof(*o));
    o->kind = (uint8_t)kind;
    return o;
}

void ump_sched_send(ump_sched_t *s, int peer, const void *buf, size_t bytes)
{
    ump_sop_t *o = add(s, UMP_SOP_SEND);
    if (!o) return;
    o->peer = peer;
    o->src = buf;
    o->n = bytes;
}

void ump_sched_recv(ump_sched_t *s, int peer, void *buf, size_t bytes)
{
    ump_sop_t *o = add(s, UMP_SOP_RECV);
    if (!o) return;
    o->peer = peer;
    o->dst = buf;
    o->n = bytes;
}

void ump_sched_send_dt(ump_sched_t *s, int peer, const void *buf, size_t count, ump_dt_t dt)
{
    ump_sop_t *o = add(s, UMP_SOP_SEND);
    if (!o) return;
    o->peer = peer;
    o->src = buf;
    o->n = count;
    /* The user may free the type while a nonblocking collective runs. */
    ump_dt_ref(dt);
    o->dt = dt;
}

void ump_sched_recv_dt(ump_sched_t *s, int peer, void *buf, size_t count, ump_dt_t dt)
{
    ump_sop_t *o = add(s, UMP_SOP_RECV);
    if (!o) return;
    o->peer = peer;
    o->dst = buf;
    o->n = count;
    ump_dt_ref(dt);
    o->dt = dt;
}

void ump_sched_copy(ump_sched_t *s, void *dst, const void *src, size_t bytes)
{
    if (!bytes || dst == src) return;
    ump_sop_t *o = add(s, UMP_SOP_COPY);
    if (!o) return;
    o->src = src;
    o->dst = dst;
    o->n = bytes;
}

void ump_sched_red(ump_sched_t *s, const void *in, void *inout, size_t count)
{
    if (!count) return;
    ump_sop_t *o = add(s, UMP_SOP_RED);
    if (!o) return;
    o->src = in;
    o->dst = inout;
    o->n = count;
}

void ump_sched_redr(ump_sched_t *s, void *scratch_in, void *inout, size_t count)
{
    if (!count) return;
    ump_sop_t *o = add(s, UMP_SOP_REDR);
    if (!o) return;
    o->src = scratch_in;
    o->dst = inout;
    o->n = count;
}

void ump_sched_unpack(ump_sched_t *s, void *dst, const void *packed, size_t count, ump_dt_t dt)
{
    if (!count) return;
    ump_sop_t *o = add(s, UMP_SOP_UNPACK);
    if (!o) return;
    o->src = packed;
    o->dst = dst;
    o->n = count;
    /* The user may free the type while a nonblocking collective runs. */
    ump_dt_ref(dt);
    o->dt = dt;
}

int ump_sched_reduction(ump_sched_t *s, ump_redop_t op, ump_dt_t dt)
{
    int rc = ump_coll_red_lookup(&s->red, op, dt);
    if (rc != UMP_OK) return rc;
    ump_coll_op_retain(op);
    ump_dt_ref(dt);
    s->has_red = true;
    return UMP_OK;
}

void ump_sched_round(ump_sched_t *s)
{
    if (s->err) return;
    size_t start = s->nrounds ? s->rend[s->nrounds - 1] : 0;
    if (s->nops == start) return;
    if (!grow((void **)&s->rend, &s->caprounds, s->nrounds + 1, sizeof(uint32_t), s->rend_in)) {
        s->err = UMP_ERR_NO_MEMORY;
        return;
    }
    s->rend[s->nrounds++] = (uint32_t)s->nops;
}

/* --- scratch buffers ----------------------------------------------------
 *
 * Large scratch buffers are kept between collectives: returned to the
 * system, they come back as fresh pages whose first touch (often by the
 * peer, through cross-memory attach) costs more than the collective
 * itself (measured: Rabenseifner reduce of 1 MiB on 2 ranks, 930 us with
 * fresh buffers against about 250 us with reused ones).
 */
UMP_CFG(ump_coll_scratch_cache, "UMP_COLL_SCRATCH_CACHE", UMP_CFG_SIZE, "64m",
        "bytes of large collective scratch buffers kept for reuse between collectives");

#define CACHE_MIN   (64 * 1024) /* smaller buffers come from malloc every time */
#define CACHE_SLOTS 8
static ump_sched_buf_t cache[CACHE_SLOTS];
static size_t cache_bytes;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

/* Page-aligned from a page on: a peer reading into (or from) a buffer at
 * the same offset in its page as its own runs at full speed, where a few
 * bytes' difference can cost the single copy 5x (UMP_SHM_CMA_SKEW). */
static void *scratch_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes < 4096) return malloc(bytes);
    return posix_memalign(&p, 4096, bytes) == 0 ? p : NULL;
}

static void *scratch_get(size_t bytes, size_t *cap)
{
    *cap = bytes ? bytes : 1;
    if (bytes < CACHE_MIN) return scratch_alloc(*cap);
    pthread_mutex_lock(&cache_lock);
    int best = -1;
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (cache[i].p && cache[i].cap >= bytes && (best < 0 || cache[i].cap < cache[best].cap))
            best = i;
    void *p = NULL;
    if (best >= 0) {
        p = cache[best].p;
        *cap = cache[best].cap;
        cache_bytes -= cache[best].cap;
        cache[best].p = NULL;
    }
    pthread_mutex_unlock(&cache_lock);
    return p ? p : scratch_alloc(*cap);
}

static void scratch_put(void *p, size_t cap)
{
    if (cap < CACHE_MIN) {
        free(p);
        return;
    }
    pthread_mutex_lock(&cache_lock);
    /* Keep it if it fits, evicting smaller buffers to make room. */
    while (cache_bytes + cap > ump_coll_scratch_cache.v.sz || cap > ump_coll_scratch_cache.v.sz) {
        int small = -1;
        for (int i = 0; i < CACHE_SLOTS; i++)
            if (cache[i].p && cache[i].cap < cap && (small < 0 || cache[i].cap < cache[small].cap))
                small = i;
        if (small < 0) break;
        free(cache[small].p);
        cache_bytes -= cache[small].cap;
        cache[small].p = NULL;
    }
    int slot = -1;
    if (cache_bytes + cap <= ump_coll_scratch_cache.v.sz)
        for (int i = 0; i < CACHE_SLOTS && slot < 0; i++)
            if (!cache[i].p) slot = i;
    if (slot >= 0) {
        cache[slot].p = p;
        cache[slot].cap = cap;
        cache_bytes += cap;
        p = NULL;
    }
    pthread_mutex_unlock(&cache_lock);
    free(p);
}

void *ump_sched_tmp(ump_sched_t *s, size_t bytes)
{
    if (s->err) return NULL;
    if (!grow((void **)&s->tmps, &s->captmps, s->ntmps + 1, sizeof(ump_sched_buf_t), s->tmps_in)) {
        s->err = UMP_ERR_NO_MEMORY;
        return NULL;
    }
    size_t cap;
    void *p = scratch_get(bytes, &cap);
    if (!p) {
        s->err = UMP_ERR_NO_MEMORY;
        return NULL;
    }
    s->tmps[s->ntmps].p = p;
    s->tmps[s->ntmps].cap = cap;
    s->ntmps++;
    return p;
}

void ump_sched_free(ump_sched_t *s)
{
    for (size_t i = 0; i < s->nops; i++)
        if (s->ops[i].dt) ump_dt_unref(s->ops[i].dt);
    if (s->has_red) {
        ump_coll_op_release(s->red.op);
        ump_dt_unref(s->red.dt);
    }
    for (size_t i = 0; i < s->ntmps; i++)
        scratch_put(s->tmps[i].p, s->tmps[i].cap);
    if (s->tmps != s->tmps_in) free(s->tmps);
    if (s->ops != s->ops_in) free(s->ops);
    if (s->rend != s->rend_in) free(s->rend);
    if (s->reqs != s->reqs_in) free(s->reqs);
    s->tmps = s->tmps_in;
    s->ops = s->ops_in;
    s->rend = s->rend_in;
    s->reqs = s->reqs_in;
    s->nops = s->ntmps = 0;
    s->has_red = false;
}

/* --- execution --------------------------------------------------------- */

static int post(ump_sched_t *s, size_t first, size_t end)
{
    s->nreqs = 0;
    if (!grow((void **)&s->reqs, &s->capreqs, end - first, sizeof(ump_req_t), s->reqs_in))
        return UMP_ERR_NO_MEMORY;
    for (size_t i = first; i < end; i++) {
        ump_sop_t *o = &s->ops[i];
        int rc;
        ump_dt_t dt = o->dt ? o->dt : UMP_BYTE;
        if (o->kind == UMP_SOP_SEND)
            rc = ump_isend(o->src, o->n, dt, o->peer, s->tag, s->ctx, &s->reqs[s->nreqs]);
        else if (o->kind == UMP_SOP_RECV)
            rc = ump_irecv(o->dst, o->n, dt, o->peer, s->tag, s->ctx, &s->reqs[s->nreqs]);
        else
            continue;
        if (rc != UMP_OK) return rc;
        s->nreqs++;
    }
    return UMP_OK;
}

static int locals(ump_sched_t *s, size_t first, size_t end)
{
    for (size_t i = first; i < end; i++) {
        ump_sop_t *o = &s->ops[i];
        switch (o->kind) {
        case UMP_SOP_COPY:
            memcpy(o->dst, o->src, o->n);
            break;
        case UMP_SOP_RED:
            ump_coll_red_apply(&s->red, o->src, o->dst, o->n);
            break;
        case UMP_SOP_REDR:
            if (s->red.commutative) {
                ump_coll_red_apply(&s->red, o->src, o->dst, o->n);
            } else {
                /* dst (op) src computed into src, then moved back. */
                ump_coll_red_apply(&s->red, o->dst, (void *)o->src, o->n);
                memcpy(o->dst, o->src, o->n * s->red.dt->size);
            }
            break;
        case UMP_SOP_UNPACK: {
            int rc = ump_coll_unpack(o->dst, o->src, o->n, o->dt);
            if (rc != UMP_OK) return rc;
            break;
        }
        default:
            break;
        }
    }
    return UMP_OK;
}

static int comm_error(ump_sched_t *s, int rc)
{
    for (size_t i = 0; i < s->nreqs; i++)
        if (s->reqs[i] != UMP_REQ_NULL) ump_wait(&s->reqs[i], UMP_STATUS_IGNORE);
    return rc;
}

int ump_sched_run(ump_sched_t *s)
{
    ump_sched_round(s);
    int err = s->err;
    size_t first = 0;
    for (size_t r = 0; r < s->nrounds && err == UMP_OK; r++) {
        size_t end = s->rend[r];
        err = post(s, first, end);
        if (s->nreqs) {
            int rc = ump_waitall(s->nreqs, s->reqs, UMP_STATUS_IGNORE);
            if (rc != UMP_OK && err == UMP_OK) err = comm_error(s, rc);
        }
        if (err == UMP_OK) err = locals(s, first, end);
        first = end;
    }
    ump_sched_free(s);
    return err;
}

/* --- nonblocking: schedules advanced by a progress hook ----------------- */

static ump_sched_t *active_head, **active_tail = &active_head;
static bool hook_registered;
static bool in_hook; /* the hook's own core calls run progress again */

/* Advances s as far as it goes without waiting; true when it finished. */
static bool advance(ump_sched_t *s)
{
    for (;;) {
        if (s->nreqs) {
            for (size_t i = 0; i < s->nreqs; i++) {
                if (s->reqs[i] == UMP_REQ_NULL) continue;
                int done = 0;
                ump_status_t st;
                int rc = ump_test(&s->reqs[i], &done, &st);
                if (rc != UMP_OK && !s->err) s->err = rc;
                if (!done) return false;
            }
            s->nreqs = 0;
            size_t first = s->cur ? s->rend[s->cur - 1] : 0;
            if (!s->err) s->err = locals(s, first, s->rend[s->cur]);
            s->cur++;
        }
        if (s->err || s->cur >= s->nrounds) return true;
        size_t first = s->cur ? s->rend[s->cur - 1] : 0;
        int rc = post(s, first, s->rend[s->cur]);
        if (rc != UMP_OK) {
            s->err = rc;
            return true;
        }
        if (!s->nreqs) {
            /* A round of local steps only. */
            s->err = locals(s, first, s->rend[s->cur]);
            s->cur++;
        }
    }
}

static int hook(void *arg)
{
    if (in_hook || !active_head) return 0;
    in_hook = true;
    int events = 0;
    ump_sched_t **pp = &active_head;
    while (*pp) {
        ump_sched_t *s = *pp;
        if (advance(s)) {
            *pp = s->next;
            if (active_tail == &s->next) active_tail = pp;
            ump_req_t g = s->greq;
            int err = s->err;
            ump_sched_free(s);
            free(s);
            ump_greq_complete(g, err);
            events++;
        } else {
            pp = &s->next;
        }
    }
    in_hook = false;
    return events;
}

int ump_sched_start(ump_sched_t *s, ump_req_t *greq)
{
    ump_sched_round(s);
    if (s->err) {
        int err = s->err;
        ump_sched_free(s);
        return err;
    }
    if (ump_query_thread() == UMP_THREAD_MULTIPLE) {
        /* The list of running schedules is walked by the progress hook
         * without a lock of its own, so at MULTIPLE a schedule runs to
         * completion here and hands back a completed request (correct,
         * but without overlap). */
        int err = ump_sched_run(s);
        int rc = ump_greq_start(greq);
        if (rc != UMP_OK) return rc;
        ump_greq_complete(*greq, err);
        return UMP_OK;
    }
    if (!hook_registered) {
        if (ump_progress_register(hook, NULL) != UMP_OK) {
            ump_sched_free(s);
            return UMP_ERR_INTERNAL;
        }
        hook_registered = true;
    }
    ump_sched_t *h = malloc(sizeof(*h));
    if (!h) {
        ump_sched_free(s);
        return UMP_ERR_NO_MEMORY;
    }
    *h = *s;
    /* Arrays still in the inline storage move with the schedule. */
    if (s->ops == s->ops_in) h->ops = h->ops_in;
    if (s->rend == s->rend_in) h->rend = h->rend_in;
    if (s->reqs == s->reqs_in) h->reqs = h->reqs_in;
    if (s->tmps == s->tmps_in) h->tmps = h->tmps_in;
    h->next = NULL;
    h->cur = 0;
    h->nreqs = 0;
    int rc = ump_greq_start(&h->greq);
    if (rc != UMP_OK) {
        ump_sched_free(h);
        free(h);
        return rc;
    }
    *greq = h->greq;
    /* Start the first round now so the messages leave before the caller
     * next enters the library. */
    bool in = in_hook;
    in_hook = true;
    bool done = advance(h);
    in_hook = in;
    if (done) {
        int err = h->err;
        ump_sched_free(h);
        free(h);
        ump_greq_complete(*greq, err);
        return UMP_OK;
    }
    *active_tail = h;
    active_tail = &h->next;
    return UMP_OK;
}
