/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point entry points of ump.h: argument checks and protocol choice. */
#include "core/core.h"

#define CHECK_INIT(call)                                                                           \
    do {                                                                                           \
        if (UMP_UNLIKELY(!ump_core.initialized || ump_core.finalized)) {                           \
            ump_error("%s: ump is not initialized", call);                                         \
            return UMP_ERR_NOT_INIT;                                                               \
        }                                                                                          \
    } while (0)

/* Checks what every send and receive shares; logs the call and argument.
 * On success *data is where the bytes start and *layout is NULL when the
 * message is one contiguous range, else *data is the layout's origin and
 * *layout the type (the request takes a reference). */
static UMP_INLINE_PATH int check_common(const char *call, const void *buf, size_t count,
                                        ump_dt_t dt, size_t *bytes, const void *req,
                                        const void **data, ump_dt_t *layout)
{
    if (UMP_UNLIKELY(!dt || (!dt->contiguous && !ump_dt_valid(dt)))) {
        ump_error("%s: datatype is null or freed (rank %d)", call, ump_core.rank);
        return UMP_ERR_DATATYPE;
    }
    if (UMP_UNLIKELY(dt->size && count > (size_t)-1 / dt->size)) {
        ump_error("%s: count %zu of datatype size %zu overflows (rank %d)", call, count, dt->size,
                  ump_core.rank);
        return UMP_ERR_COUNT;
    }
    *bytes = count * dt->size;
    *data = buf;
    *layout = NULL;
    if (UMP_LIKELY(dt->contiguous)) {
        if (!buf && *bytes) {
            ump_error("%s: buffer is null with count %zu (rank %d)", call, count, ump_core.rank);
            return UMP_ERR_BUFFER;
        }
    } else if (!dt->committed) {
        ump_error("%s: datatype '%s' is not committed (rank %d)", call, dt->name ? dt->name : "?",
                  ump_core.rank);
        return UMP_ERR_DATATYPE;
    } else if (*bytes && ump_dt_is_contig(dt)) {
        /* One range that starts away from buf (resized, absolute addresses). */
        *data = (const char *)buf + ump_dt_true_lb(dt);
    } else if (*bytes) {
        *layout = dt;
    }
    if (!req) {
        ump_error("%s: request pointer is null (rank %d)", call, ump_core.rank);
        return UMP_ERR_INVALID;
    }
    return UMP_OK;
}

int ump_core_check_buf(const char *call, const void *buf, size_t count, ump_dt_t dt, size_t *bytes,
                       const void *req, const void **data, ump_dt_t *layout)
{
    return check_common(call, buf, count, dt, bytes, req, data, layout);
}

/* Stores the message description in r; takes a reference on a layout. */
static UMP_INLINE_PATH void set_data(struct ump_request *r, const void *data, size_t len,
                                     ump_dt_t layout, size_t count)
{
    r->buf = (void *)data;
    r->len = len;
    r->dt = layout;
    r->count = count;
    if (layout) ump_dt_ref(layout);
}

/* The blocking standard send's fast path: an eager message goes out with no
 * request at all when nothing is queued ahead of it and the receiver has
 * granted the credit. */
static UMP_INLINE_PATH bool send_inline(ump_peer_t *p, int dst, const void *buf, size_t len,
                                        int tag, uint32_t ctx)
{
    if (!TAILQ_EMPTY(&p->match) || p->dead || len > p->xp->caps.eager_limit) return false;
    /* Sent from the buffer itself: needs a request the transport completes. */
    if (UMP_UNLIKELY(len >= p->xp->caps.zc_min)) return false;
    int64_t cost = (int64_t)ump_core_cost(UMP_AM_EAGER, sizeof(ump_hdr_match_t), len);
    if (cost > p->credits) return false;
    ump_hdr_match_t h = {.tag = tag, .ctx = ctx, .len = len, .sreq = 0};
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
    if (p->xp->ops->am_send(p->xp, dst, UMP_AM_EAGER_SHORT, &h, UMP_HDR_SHORT, &iov, len ? 1 : 0) !=
        UMP_OK)
        return false; /* the general path queues it or reports the error */
    p->credits -= cost;
    return true;
}

/* The same for a non-contiguous eager message: packed straight into the
 * transport's buffer. */
static bool send_inline_dt(ump_peer_t *p, int dst, const void *buf, size_t count, ump_dt_t dt,
                           size_t len, int tag, uint32_t ctx)
{
    if (!TAILQ_EMPTY(&p->match) || p->dead || len > p->xp->caps.eager_limit) return false;
    int64_t cost = (int64_t)ump_core_cost(UMP_AM_EAGER, sizeof(ump_hdr_match_t), len);
    if (cost > p->credits) return false;
    ump_hdr_match_t h = {.tag = tag, .ctx = ctx, .len = len, .sreq = 0};
    ump_dt_cursor_t c;
    if (ump_dt_cursor_init(&c, buf, count, dt, 0) != UMP_OK ||
        ump_core_dt_am_send(p->xp, dst, UMP_AM_EAGER_SHORT, &h, UMP_HDR_SHORT, &c, len) != UMP_OK)
        return false;
    p->credits -= cost;
    return true;
}

/* A burst of eager sends (a window of MPI_Isend) outruns the credits the
 * receiver has returned already but we have not read yet: look for them
 * before the message falls back to a rendezvous, which costs a round trip
 * (over libfabric's tcp, 64 sends of 16 KiB went half by RDMA read: 1.2
 * GB/s, against 1.6-2.1 GB/s all eager). One progress pass, then, while
 * the CREDIT is on its way, more for up to UMP_CREDIT_WAIT_US (both ways
 * at once over libfabric's net, 64 sends of 16 KiB: 1.4-1.8 GB/s with 41 %
 * by read after one pass, 2.2-2.4 waiting up to 200 us; 50 us is too
 * short: the receiver returns credits a quarter of the window at a time,
 * 128 KiB, which take some 60 us to arrive at 2 GB/s). A receiver that holds the
 * credits in unexpected messages while it waits for a later one (MPI
 * allows it) returns none: the wait times out once, and the next waits for
 * that peer are skipped until a CREDIT comes. Only for messages up to a
 * sixteenth of the window: larger ones win their credits back one or two
 * at a time, and 64 sends of 64 KiB over tcp then ran at 1.3-1.8 GB/s all
 * eager against 3.3-3.9 GB/s mostly by rendezvous. Not from inside
 * progress (a progress hook's send). */
static bool credits_short(const ump_peer_t *p, size_t len)
{
    return (int64_t)ump_core_cost(UMP_AM_EAGER, sizeof(ump_hdr_match_t), len) > p->credits;
}

static UMP_INLINE_PATH void credits_look(ump_peer_t *p, size_t len)
{
    if (UMP_LIKELY(!credits_short(p, len))) return;
    if (len > p->xp->caps.eager_limit || len > (size_t)ump_core.credits_init / 16 ||
        ump_core.progress_depth || !TAILQ_EMPTY(&p->match))
        return;
    ump_core_progress();
    if (!credits_short(p, len) || !ump_core.credit_wait_ns || p->credit_wait_off || p->dead) return;
    uint64_t t0 = ump_time_ns();
    do {
        if (ump_time_ns() - t0 >= ump_core.credit_wait_ns) {
            p->credit_wait_off = true;
            return;
        }
        ump_core_progress();
    } while (credits_short(p, len));
}

/* With `blocking` (a blocking send, or a caller of ump_isend_inline), a
 * standard send may complete inline and leave *req null. */
static UMP_INLINE_PATH int isend(const char *call, const void *buf, size_t count, ump_dt_t dt,
                                 int dst, int tag, uint32_t ctx, bool sync, bool blocking,
                                 ump_req_t *req)
{
    size_t len;
    const void *data;
    ump_dt_t layout;
    CHECK_INIT(call);
    int rc = check_common(call, buf, count, dt, &len, req, &data, &layout);
    if (rc != UMP_OK) return rc;
    if (UMP_UNLIKELY(dst < 0 || dst >= ump_core.npeers)) {
        ump_error("%s: destination rank %d is out of range [0, %d) (rank %d)", call, dst,
                  ump_core.npeers, ump_core.rank);
        return UMP_ERR_RANK;
    }
    if (UMP_UNLIKELY(tag < 0)) {
        ump_error("%s: tag %d is invalid: send tags are 0..%d (rank %d)", call, tag, UMP_TAG_UB,
                  ump_core.rank);
        return UMP_ERR_TAG;
    }
    ump_core_lock();
    ump_peer_t *p = &ump_core.peers[dst];
    if (UMP_UNLIKELY(!p->xp)) {
        ump_core_unlock();
        ump_error("%s: no transport reaches rank %d (UMP_TRANSPORTS?)", call, dst);
        return UMP_ERR_NO_TRANSPORT;
    }
    ump_core.stats.msgs_sent++;
    ump_core.stats.bytes_sent += len;
    if (blocking && !sync &&
        (layout ? send_inline_dt(p, dst, data, count, layout, len, tag, ctx)
                : send_inline(p, dst, data, len, tag, ctx))) {
        ump_core_unlock();
        *req = UMP_REQ_NULL;
        return UMP_OK;
    }
    credits_look(p, len); /* here, off the inline path: that one had the credits */
    struct ump_request *r = ump_core_req_alloc(UMP_REQ_SEND);
    if (UMP_UNLIKELY(!r)) {
        ump_core_unlock();
        return UMP_ERR_NO_MEMORY;
    }
    r->peer = dst;
    r->tag = tag;
    r->ctx = ctx;
    set_data(r, data, len, layout, count);
    r->status.source = ump_core.rank;
    r->status.tag = tag;
    r->status.count = len;
    r->status.msg_len = len;
    if (sync) r->flags |= UMP_RF_SYNC;
    *req = r;

    ump_op_t op = {.req = r};
    op.h.match.tag = tag;
    op.h.match.ctx = ctx;
    op.h.match.len = len;
    op.h.match.sreq = ump_req_id(r);
    if (len <= p->xp->caps.eager_limit) {
        op.am_id = sync ? UMP_AM_EAGER_SYNC : UMP_AM_EAGER;
        op.hlen = sizeof(ump_hdr_match_t);
    } else {
        op.am_id = UMP_AM_RTS;
        op.hlen = sizeof(ump_hdr_rts_t);
        ump_core.stats.rdv_sent++;
        op.h.rts.addr = (uint64_t)(uintptr_t)data;
    }
    ump_core_queue_op(dst, &op, false);
    ump_core_unlock();
    return UMP_OK;
}

int ump_isend(const void *buf, size_t count, ump_dt_t dt, int dst, int tag, uint32_t ctx,
              ump_req_t *req)
{
    return isend("ump_isend", buf, count, dt, dst, tag, ctx, false, false, req);
}

int ump_isend_inline(const void *buf, size_t count, ump_dt_t dt, int dst, int tag, uint32_t ctx,
                     ump_req_t *req)
{
    return isend("ump_isend", buf, count, dt, dst, tag, ctx, false, true, req);
}

int ump_issend(const void *buf, size_t count, ump_dt_t dt, int dst, int tag, uint32_t ctx,
               ump_req_t *req)
{
    return isend("ump_issend", buf, count, dt, dst, tag, ctx, true, false, req);
}

static UMP_INLINE_PATH int check_source(const char *call, int src, int tag)
{
    if (src != UMP_ANY_SOURCE && (src < 0 || src >= ump_core.npeers)) {
        ump_error("%s: source rank %d is out of range [0, %d) (rank %d)", call, src,
                  ump_core.npeers, ump_core.rank);
        return UMP_ERR_RANK;
    }
    if (tag != UMP_ANY_TAG && tag < 0) {
        ump_error("%s: tag %d is invalid: receive tags are 0..%d or UMP_ANY_TAG (rank %d)", call,
                  tag, UMP_TAG_UB, ump_core.rank);
        return UMP_ERR_TAG;
    }
    return UMP_OK;
}

/* MPI: receiving into a type map with overlapping entries is erroneous
 * (which copy of a byte would win is undefined, and the transports may
 * write runs in any order). Refused before anything is posted, so the
 * buffer is never touched. Only layouts can overlap: a contiguous range
 * cannot. */
int ump_core_check_recv_layout(const char *call, ump_dt_t layout, size_t count)
{
    if (!layout || UMP_LIKELY(!ump_dt_overlaps(layout, count))) return UMP_OK;
    ump_error("%s: datatype '%s' has overlapping entries for count %zu: a receive into it would "
              "write some bytes twice (rank %d)",
              call, layout->name && *layout->name ? layout->name : "(unnamed)", count,
              ump_core.rank);
    return UMP_ERR_DATATYPE;
}

/* Posts a checked receive (core lock held): it meets the earliest matching
 * unexpected message, `u` when the caller found it already, else waits in
 * the posted queue. */
static UMP_INLINE_PATH int post_recv(void *data, size_t len, ump_dt_t layout, size_t count, int src,
                                     int tag, uint32_t ctx, ump_ctxq_t *q, ump_unexp_t *u,
                                     ump_req_t *req)
{
    struct ump_request *r = q ? ump_core_req_alloc(UMP_REQ_RECV) : NULL;
    if (UMP_UNLIKELY(!r)) return UMP_ERR_NO_MEMORY;
    r->peer = src;
    r->tag = tag;
    r->ctx = ctx;
    set_data(r, data, len, layout, count);
    *req = r;
    if (!u && !TAILQ_EMPTY(&q->unexp)) u = ump_core_match_unexp(q, src, tag, false);
    if (u) {
        TAILQ_REMOVE(&q->unexp, u, link);
        ump_core_deliver_unexp(r, u);
    } else if (src != UMP_ANY_SOURCE && ump_core.peers[src].dead) {
        r->status.source = src;
        ump_core_req_complete(r, UMP_ERR_PEER_DEAD);
    } else {
        TAILQ_INSERT_TAIL(&q->posted, r, link);
        r->flags |= UMP_RF_POSTED;
    }
    return UMP_OK;
}

int ump_irecv(void *buf, size_t count, ump_dt_t dt, int src, int tag, uint32_t ctx, ump_req_t *req)
{
    static const char call[] = "ump_irecv";
    size_t len;
    const void *data;
    ump_dt_t layout;
    CHECK_INIT(call);
    int rc = check_common(call, buf, count, dt, &len, req, &data, &layout);
    if (rc == UMP_OK && layout) rc = ump_core_check_recv_layout(call, layout, count);
    if (rc == UMP_OK) rc = check_source(call, src, tag);
    if (rc != UMP_OK) return rc;
    ump_core_lock();
    rc = post_recv((void *)data, len, layout, count, src, tag, ctx, ump_core_ctxq(ctx, true), NULL,
                   req);
    ump_core_unlock();
    return rc;
}

int ump_send(const void *buf, size_t count, ump_dt_t dt, int dst, int tag, uint32_t ctx)
{
    ump_req_t r;
    int rc = isend("ump_send", buf, count, dt, dst, tag, ctx, false, true, &r);
    /* Sent inline: no request to wait for. */
    return rc == UMP_OK && r != UMP_REQ_NULL ? ump_wait(&r, UMP_STATUS_IGNORE) : rc;
}

int ump_ssend(const void *buf, size_t count, ump_dt_t dt, int dst, int tag, uint32_t ctx)
{
    ump_req_t r;
    int rc = isend("ump_ssend", buf, count, dt, dst, tag, ctx, true, true, &r);
    return rc == UMP_OK ? ump_wait(&r, UMP_STATUS_IGNORE) : rc;
}

int ump_recv(void *buf, size_t count, ump_dt_t dt, int src, int tag, uint32_t ctx, ump_status_t *st)
{
    static const char call[] = "ump_recv";
    size_t len;
    const void *data;
    ump_dt_t layout;
    ump_req_t r = UMP_REQ_NULL;
    CHECK_INIT(call);
    int rc = check_common(call, buf, count, dt, &len, &r, &data, &layout);
    if (rc == UMP_OK && layout) rc = ump_core_check_recv_layout(call, layout, count);
    if (rc == UMP_OK) rc = check_source(call, src, tag);
    if (rc != UMP_OK) return rc;
    ump_core_lock();
    ump_ctxq_t *q = ump_core_ctxq(ctx, true);
    ump_unexp_t *u = q && !TAILQ_EMPTY(&q->unexp) ? ump_core_match_unexp(q, src, tag, false) : NULL;
    if (u && (u->am_id == UMP_AM_EAGER || u->am_id == UMP_AM_EAGER_SYNC) &&
        !ump_core_unexp_lost(u)) {
        /* The message is here and complete: straight into the buffer,
         * with no request to make, complete and release. */
        TAILQ_REMOVE(&q->unexp, u, link);
        rc = ump_core_take_eager((void *)data, len, layout, count, u, st);
        ump_core_unlock();
        return rc;
    }
    rc = post_recv((void *)data, len, layout, count, src, tag, ctx, q, u, &r);
    ump_core_unlock();
    return rc == UMP_OK ? ump_wait(&r, st) : rc;
}

struct probe {
    int src, tag;
    uint32_t ctx;
    ump_unexp_t *found;
};

static bool probe_found(void *arg)
{
    struct probe *p = arg;
    ump_ctxq_t *q = ump_core_ctxq(p->ctx, false);
    p->found = q ? ump_core_match_unexp(q, p->src, p->tag, false) : NULL;
    return p->found != NULL;
}

int ump_iprobe(int src, int tag, uint32_t ctx, int *flag, ump_status_t *st)
{
    static const char call[] = "ump_iprobe";
    CHECK_INIT(call);
    if (!flag) return UMP_ERR_INVALID;
    int rc = check_source(call, src, tag);
    if (rc != UMP_OK) return rc;
    struct probe p = {src, tag, ctx, NULL};
    ump_core_lock();
    if (!probe_found(&p)) {
        ump_core_progress();
        probe_found(&p);
    }
    *flag = p.found != NULL;
    if (p.found) ump_core_describe_unexp(p.found, st);
    ump_core_unlock();
    return UMP_OK;
}

int ump_probe(int src, int tag, uint32_t ctx, ump_status_t *st)
{
    static const char call[] = "ump_probe";
    CHECK_INIT(call);
    int rc = check_source(call, src, tag);
    if (rc != UMP_OK) return rc;
    struct probe p = {src, tag, ctx, NULL};
    ump_core_lock();
    ump_core_wait_until(probe_found, &p);
    ump_core_describe_unexp(p.found, st);
    ump_core_unlock();
    return UMP_OK;
}
