/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Core services for the layers above: matched probe, request status
 * without release, generalized requests, progress hooks, node ids,
 * counters.
 */
#include "core/core.h"

struct mprobe {
    int src, tag;
    uint32_t ctx;
};

static bool mprobe_found(void *arg)
{
    struct mprobe *p = arg;
    ump_ctxq_t *q = ump_core_ctxq(p->ctx, false);
    return q && ump_core_match_unexp(q, p->src, p->tag, false);
}

static int check_probe(int src, int tag)
{
    if (src != UMP_ANY_SOURCE && (src < 0 || src >= ump_core.npeers)) return UMP_ERR_RANK;
    if (tag != UMP_ANY_TAG && tag < 0) return UMP_ERR_TAG;
    return UMP_OK;
}

int ump_improbe(int src, int tag, uint32_t ctx, int *flag, ump_msg_t *msg, ump_status_t *st)
{
    UMP_CORE_CHECK_INIT();
    if (!flag || !msg) return UMP_ERR_INVALID;
    int rc = check_probe(src, tag);
    if (rc != UMP_OK) return rc;
    ump_core_lock();
    ump_core_progress();
    ump_ctxq_t *q = ump_core_ctxq(ctx, false);
    ump_unexp_t *u = q ? ump_core_match_unexp(q, src, tag, true) : NULL;
    *flag = u != NULL;
    *msg = u;
    if (u) ump_core_describe_unexp(u, st);
    ump_core_unlock();
    return UMP_OK;
}

int ump_mprobe(int src, int tag, uint32_t ctx, ump_msg_t *msg, ump_status_t *st)
{
    UMP_CORE_CHECK_INIT();
    if (!msg) return UMP_ERR_INVALID;
    int rc = check_probe(src, tag);
    if (rc != UMP_OK) return rc;
    struct mprobe p = {src, tag, ctx};
    ump_core_lock();
    ump_core_wait_until(mprobe_found, &p);
    ump_unexp_t *u = ump_core_match_unexp(ump_core_ctxq(ctx, false), src, tag, true);
    *msg = u;
    ump_core_describe_unexp(u, st);
    ump_core_unlock();
    return UMP_OK;
}

int ump_imrecv(void *buf, size_t count, ump_dt_t dt, ump_msg_t *msg, ump_req_t *req)
{
    size_t len;
    UMP_CORE_CHECK_INIT();
    if (!msg || !*msg || !req) return UMP_ERR_INVALID;
    if (!dt || (!dt->contiguous && (!ump_dt_valid(dt) || !dt->committed))) return UMP_ERR_DATATYPE;
    if (dt->size && count > (size_t)-1 / dt->size) return UMP_ERR_COUNT;
    len = count * dt->size;
    if (dt->contiguous && !buf && len) return UMP_ERR_BUFFER;
    ump_dt_t layout = NULL;
    if (!dt->contiguous && len) {
        if (ump_dt_is_contig(dt))
            buf = (char *)buf + ump_dt_true_lb(dt);
        else
            layout = dt;
    }
    int rc = ump_core_check_recv_layout("ump_imrecv", layout, count);
    if (rc != UMP_OK) return rc;
    ump_core_lock();
    struct ump_request *r = ump_core_req_alloc(UMP_REQ_RECV);
    if (!r) {
        ump_core_unlock();
        return UMP_ERR_NO_MEMORY;
    }
    ump_unexp_t *u = *msg;
    r->peer = u->src;
    r->tag = u->h.m.tag;
    r->ctx = u->h.m.ctx;
    r->buf = buf;
    r->len = len;
    r->dt = layout;
    r->count = count;
    if (layout) ump_dt_ref(layout);
    *req = r;
    *msg = NULL;
    ump_core_deliver_unexp(r, u);
    ump_core_unlock();
    return UMP_OK;
}

int ump_request_get_status(ump_req_t req, int *flag, ump_status_t *st)
{
    UMP_CORE_CHECK_INIT();
    if (!flag) return UMP_ERR_INVALID;
    if (!req) {
        *flag = 1;
        return UMP_OK;
    }
    ump_core_lock();
    if (!(req->flags & UMP_RF_COMPLETE)) ump_core_progress();
    *flag = (req->flags & UMP_RF_COMPLETE) != 0;
    if (*flag && st) *st = req->status;
    ump_core_unlock();
    return UMP_OK;
}

int ump_greq_start(ump_req_t *req)
{
    UMP_CORE_CHECK_INIT();
    if (!req) return UMP_ERR_INVALID;
    ump_core_lock();
    struct ump_request *r = ump_core_req_alloc(UMP_REQ_GREQ);
    if (r) {
        r->peer = UMP_ANY_SOURCE;
        r->status.source = UMP_ANY_SOURCE;
        r->status.tag = UMP_ANY_TAG;
    }
    *req = r;
    ump_core_unlock();
    return r ? UMP_OK : UMP_ERR_NO_MEMORY;
}

int ump_greq_complete(ump_req_t req, int error)
{
    UMP_CORE_CHECK_INIT();
    if (!req || req->kind != UMP_REQ_GREQ) return UMP_ERR_REQUEST;
    ump_core_lock();
    ump_core_req_complete(req, error);
    ump_core_unlock();
    return UMP_OK;
}

int ump_progress_register(ump_progress_fn_t fn, void *arg)
{
    if (!fn) return UMP_ERR_INVALID;
    ump_core_lock();
    int rc = UMP_ERR_NO_RESOURCE;
    if (ump_core.nhooks < (int)UMP_ARRAY_SIZE(ump_core.hooks)) {
        ump_core.hooks[ump_core.nhooks].fn = fn;
        ump_core.hooks[ump_core.nhooks].arg = arg;
        ump_core.nhooks++;
        rc = UMP_OK;
    }
    ump_core_unlock();
    return rc;
}

int ump_progress_unregister(ump_progress_fn_t fn, void *arg)
{
    ump_core_lock();
    int rc = UMP_ERR_INVALID;
    for (int i = 0; i < ump_core.nhooks; i++) {
        if (ump_core.hooks[i].fn == fn && ump_core.hooks[i].arg == arg) {
            ump_core.hooks[i] = ump_core.hooks[--ump_core.nhooks];
            rc = UMP_OK;
            break;
        }
    }
    ump_core_unlock();
    return rc;
}

int ump_node_id(int rank)
{
    UMP_CORE_CHECK_INIT();
    if (rank < 0 || rank >= ump_core.npeers) return UMP_ERR_RANK;
    return ump_rt_node_of(ump_core.rt, rank);
}

int ump_stats_get(ump_stats_t *st)
{
    if (!st) return UMP_ERR_INVALID;
    ump_core_lock();
    *st = ump_core.stats;
    st->requests = ump_core.outstanding;
    ump_xp_stats_t x = ump_core.xp_retired;
    for (int i = 0; i < ump_core.nxps; i++)
        if (ump_core.xps[i]->ops->stats) ump_core.xps[i]->ops->stats(ump_core.xps[i], &x);
    st->xp_sent = x.sent;
    st->xp_received = x.received;
    st->xp_retransmitted = x.retransmitted;
    st->xp_duplicates = x.duplicates;
    st->xp_corrupted = x.corrupted;
    st->xp_timeouts = x.timeouts;
    ump_core_unlock();
    return UMP_OK;
}
