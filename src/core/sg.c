/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scatter/gather RDMA of one rendezvous: the bytes of a request's buffer
 * (contiguous or following its datatype) read from or written to the
 * peer's memory (one range, or count elements of the peer's layout) with
 * the transport's get() or put(), in operations of at most its iovec
 * limits, all completing on the request's one completion object.
 *
 * A transport may refuse an operation for now (UMP_ERR_NO_RESOURCE: its
 * queue is full; libfabric's shm provider takes one RMA per peer until
 * progress). The rest of the transfer then waits as a job that holds one
 * count on the request's completion object and is resumed from the core's
 * progress, where it left off, so a refusal never turns a transfer into a
 * streamed one.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

#define SG_BATCH IOV_MAX

/* Walks the sender's runs for count elements from stream offset 0. */
typedef struct {
    const ump_rlay_t *lay; /* NULL: one range [addr, addr + total) */
    uint64_t addr;
    uint64_t count, elem;
    int64_t extent; /* this message's (the layout's from an earlier RTS may differ) */
    uint32_t run;
    size_t roff; /* bytes of the current run already listed */
    size_t total, pos;
} rwalk_t;

/* Up to max entries covering at most `want` bytes; returns bytes listed. */
static size_t rwalk_next(rwalk_t *w, ump_riov_t *out, int max, size_t want, int *n)
{
    size_t got = 0;
    int k = 0;
    if (!w->lay) {
        size_t m = UMP_MIN(want, w->total - w->pos);
        if (m && max) {
            out[k++] = (ump_riov_t){w->addr + w->pos, m};
            got = m;
        }
        w->pos += got;
        *n = k;
        return got;
    }
    const ump_rlay_t *l = w->lay;
    while (k < max && got < want && w->elem < w->count) {
        const ump_riov_t *r = &l->run[w->run];
        uint64_t a = w->addr + (uint64_t)((int64_t)w->elem * w->extent) + r->addr + w->roff;
        size_t m = UMP_MIN((size_t)r->len - w->roff, want - got);
        if (k && out[k - 1].addr + out[k - 1].len == a)
            out[k - 1].len += m; /* runs that touch across elements */
        else
            out[k++] = (ump_riov_t){a, m};
        got += m;
        w->roff += m;
        if (w->roff < r->len) break; /* `want` ends inside this run */
        w->roff = 0;
        if (++w->run == l->nruns) {
            w->run = 0;
            w->elem++;
        }
    }
    w->pos += got;
    *n = k;
    return got;
}

/* The rest of a transfer a transport refused for now. */
typedef struct ump_core_sg_job {
    struct ump_core_sg_job *next;
    struct ump_request *r;
    ump_xp_t *xp;
    int peer;
    bool put, has_ext, has_key;
    uint64_t addr;
    ump_rts_dt_t ext;
    ump_rlay_t *lay; /* referenced */
    size_t take, done;
    unsigned char rkey[UMP_XP_RKEY_MAX];
} sg_job_t;

struct ump_core_sg_job *ump_core_sg_jobs;

/* Issues the operations for bytes [*done, take); *done advances past every
 * one started. */
static int issue(ump_xp_t *xp, int peer, struct ump_request *r, uint64_t addr,
                 const ump_rts_dt_t *ext, const ump_rlay_t *lay, size_t take, const void *rkey,
                 bool put, size_t *done_io)
{
    /* The transport reads the lists during the call only, so one static
     * pair serves every batch (the core calls under its lock). */
    static ump_riov_t rem[SG_BATCH];
    static struct iovec loc[SG_BATCH];
    size_t max_iov = put ? xp->caps.put_max_iov : xp->caps.get_max_iov;
    int batch = (int)UMP_MIN((size_t)SG_BATCH, UMP_MAX(max_iov, (size_t)1));
    size_t done = *done_io;
    rwalk_t w = {.lay = lay,
                 .addr = addr,
                 .count = ext ? ext->count : 0,
                 .extent = ext ? ext->extent : 0,
                 .total = take};
    /* Resuming: walk the remote side up to where we stopped. */
    while (w.pos < done) {
        int n;
        if (!rwalk_next(&w, rem, SG_BATCH, done - w.pos, &n)) return UMP_ERR_INTERNAL;
    }
    ump_dt_cursor_t stack_cur, *c = NULL;
    if (r->dt) {
        c = &stack_cur;
        int rc = ump_dt_cursor_init(c, r->buf, r->count, r->dt, done);
        if (rc != UMP_OK) return rc;
    }
    while (done < take) {
        int nr = 0, nl = 0;
        size_t want = take - done;
        if (xp->caps.rma_max && want > xp->caps.rma_max) want = xp->caps.rma_max;
        /* Local first (its cursor cannot step back), then the same bytes of
         * the remote side; a remote side that runs out of entries first
         * shortens the batch, and the local cursor is moved back to match. */
        size_t lb;
        if (c) {
            lb = ump_dt_cursor_iov(c, want, loc, batch, &nl);
        } else {
            loc[0] = (struct iovec){(char *)r->buf + done, want};
            nl = 1;
            lb = want;
        }
        size_t rb = rwalk_next(&w, rem, batch, lb, &nr);
        if (!rb) return UMP_ERR_INTERNAL;
        if (rb < lb) {
            /* trim the local list to rb bytes */
            size_t sum = 0;
            for (int i = 0; i < nl; i++) {
                if (sum + loc[i].iov_len >= rb) {
                    loc[i].iov_len = rb - sum;
                    nl = i + 1;
                    break;
                }
                sum += loc[i].iov_len;
            }
            if (c) ump_dt_cursor_init(c, r->buf, r->count, r->dt, done + rb);
        }
        r->comp.count++;
        int rc = put ? xp->ops->put(xp, peer, loc, nl, r->mr, rem, nr, rkey, &r->comp)
                     : xp->ops->get(xp, peer, loc, nl, r->mr, rem, nr, rkey, &r->comp);
        if (rc != UMP_INPROGRESS) r->comp.count--;
        if (rc != UMP_OK && rc != UMP_INPROGRESS) {
            *done_io = done;
            return rc;
        }
        done += rb;
    }
    *done_io = done;
    return UMP_OK;
}

int ump_core_sg_rma(ump_xp_t *xp, int peer, struct ump_request *r, uint64_t addr,
                    const ump_rts_dt_t *ext, const ump_rlay_t *lay, size_t take, const void *rkey,
                    bool put)
{
    if (ext && !lay) return UMP_ERR_UNSUPPORTED;
    if (ext && lay && ext->count * lay->size < take) return UMP_ERR_UNSUPPORTED;
    size_t max_iov = put ? xp->caps.put_max_iov : xp->caps.get_max_iov;
    size_t batch = UMP_MIN((size_t)SG_BATCH, UMP_MAX(max_iov, (size_t)1));
    /* A layout of many short runs over a transport that takes few entries
     * per operation would need more operations than it queues: stream
     * (shm's single calls batch any number of entries themselves). */
    size_t runs = 1;
    if (r->dt) runs = UMP_MAX(runs, take / UMP_MAX(r->dt->avg_blk, (size_t)1) + 1);
    if (lay) runs = UMP_MAX(runs, take / UMP_MAX(lay->avg_run, (size_t)1) + 1);
    if (max_iov != SIZE_MAX && runs / batch + 1 > ump_core_rndv_max_ops())
        return UMP_ERR_UNSUPPORTED;
    size_t done = 0;
    int rc = issue(xp, peer, r, addr, ext, lay, take, rkey, put, &done);
    if (rc != UMP_ERR_NO_RESOURCE) return rc;
    /* The rest waits for progress, holding a count on r's completion. */
    sg_job_t *j = calloc(1, sizeof(*j));
    if (!j) return UMP_ERR_NO_MEMORY;
    *j = (sg_job_t){.r = r,
                    .xp = xp,
                    .peer = peer,
                    .put = put,
                    .has_ext = ext != NULL,
                    .has_key = rkey != NULL,
                    .addr = addr,
                    .lay = (ump_rlay_t *)lay,
                    .take = take,
                    .done = done};
    if (ext) j->ext = *ext;
    if (rkey) memcpy(j->rkey, rkey, xp->caps.rkey_size);
    if (j->lay) j->lay->refs++;
    r->comp.count++;
    j->next = ump_core_sg_jobs;
    ump_core_sg_jobs = j;
    return UMP_OK;
}

int ump_core_sg_resume(void)
{
    int events = 0;
    sg_job_t **pp = &ump_core_sg_jobs;
    while (*pp) {
        sg_job_t *j = *pp;
        int rc = issue(j->xp, j->peer, j->r, j->addr, j->has_ext ? &j->ext : NULL, j->lay, j->take,
                       j->has_key ? j->rkey : NULL, j->put, &j->done);
        if (rc == UMP_ERR_NO_RESOURCE) {
            pp = &j->next;
            continue;
        }
        *pp = j->next;
        events++;
        struct ump_request *r = j->r;
        ump_core_dt_lay_unref(j->lay);
        free(j);
        /* Drop the job's count: the last operation's completion, or this,
         * finishes the request (a failure streams it or fails it). */
        ump_xp_comp_done(&r->comp, rc);
    }
    return events;
}
